"""RMSNorm written out in PyTorch operations, float32, with a weight passed by get_init_inputs."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, weight: torch.Tensor, eps: float):
        super().__init__()
        self.weight = nn.Parameter(weight)
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return x * scale * self.weight


WIDTH = 1023


def get_inputs():
    rows = int(torch.randint(40, 90, (1,)))
    return [torch.randn(rows, WIDTH) * 2.0]


def get_init_inputs():
    return [torch.rand(WIDTH) + 0.5, 1e-6]
