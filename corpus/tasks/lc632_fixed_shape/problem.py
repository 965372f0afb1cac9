"""ReLU on one fixed odd shape: every trial has the same sizes."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    return [torch.randn(61, 777)]


def get_init_inputs():
    return []
