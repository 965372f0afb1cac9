"""The variance of long rows: the biased and unbiased readings differ by 1/N, about 1e-4."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.var(dim=-1)


def get_inputs():
    rows = int(torch.randint(50, 100, (1,)))
    n = int(torch.randint(10000, 12000, (1,))) | 1
    return [torch.randn(rows, n) * 2.0 + 0.5]


def get_init_inputs():
    return []
