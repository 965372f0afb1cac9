"""A float32 matmul with K drawn per trial; the tolerance follows from K (see task.toml)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b


def get_inputs():
    m = int(torch.randint(60, 100, (1,))) | 1
    k = int(torch.randint(700, 1000, (1,))) | 1
    n = int(torch.randint(60, 100, (1,))) | 1
    return [torch.randn(m, k), torch.randn(k, n)]


def get_init_inputs():
    return []
