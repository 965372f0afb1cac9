"""C = A @ B for float32 matrices of about 1000 x 1000, the sizes drawn per trial and odd (never a
multiple of a tile)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


def get_inputs():
    m = int(torch.randint(960, 1040, (1,))) | 1
    k = int(torch.randint(960, 1040, (1,))) | 1
    n = int(torch.randint(960, 1040, (1,))) | 1
    return [torch.randn(m, k), torch.randn(k, n)]


def get_init_inputs():
    return []
