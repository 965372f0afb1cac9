"""A linear layer with a ReLU: its weights come from nn.Linear's random initialisation."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.linear = nn.Linear(features, features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x))


FEATURES = 127


def get_inputs():
    rows = int(torch.randint(30, 60, (1,)))
    return [torch.randn(rows, FEATURES)]


def get_init_inputs():
    return [FEATURES]
