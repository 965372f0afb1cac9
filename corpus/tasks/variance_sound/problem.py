"""The unbiased variance of short rows: N small enough that the biased reading differs visibly."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.var(dim=-1, unbiased=True)


def get_inputs():
    rows = int(torch.randint(300, 600, (1,)))
    n = int(torch.randint(5, 40, (1,)))
    return [torch.randn(rows, n) * 2.0 + 0.5]


def get_init_inputs():
    return []
