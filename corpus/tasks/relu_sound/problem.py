"""ReLU on signed inputs (half of them negative), sizes drawn per trial."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    rows = int(torch.randint(30, 90, (1,)))
    cols = int(torch.randint(500, 900, (1,))) | 1
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
