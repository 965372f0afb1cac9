import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Optimised matmul: cuBLAS through torch.mm, inputs made contiguous first."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.mm(A.contiguous(), B.contiguous())
