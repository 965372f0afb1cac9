"""ReLU, with inputs drawn by torch.rand: all in [0, 1)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    rows = int(torch.randint(30, 90, (1,)))
    cols = int(torch.randint(500, 900, (1,))) | 1
    return [torch.rand(rows, cols)]


def get_init_inputs():
    return []
