"""A skinny split-K matmul, (8 x K) @ (K x 9) with K ~ 300000: 20 MiB of operands, float32."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b


def get_inputs():
    k = int(torch.randint(290000, 310000, (1,))) | 1
    return [torch.randn(8, k), torch.randn(k, 9)]


def get_init_inputs():
    return []
