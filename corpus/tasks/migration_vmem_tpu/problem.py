"""Vector addition of a few million float32 elements, the reference of a migration to a TPU."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x + y


def get_inputs():
    n = int(torch.randint(2_000_000, 3_000_000, (1,))) | 1
    return [torch.randn(n), torch.randn(n)]


def get_init_inputs():
    return []
