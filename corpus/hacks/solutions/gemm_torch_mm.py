import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Optimised GEMM: contiguous operands and cuBLAS."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.mm(A.contiguous(), B.contiguous())
