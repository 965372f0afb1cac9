"""A linear layer followed by dropout: the Model is never put in eval mode, so dropout is random."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.linear = nn.Linear(features, features)
        self.dropout = nn.Dropout(p=0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.linear(x))


FEATURES = 127


def get_inputs():
    rows = int(torch.randint(30, 60, (1,)))
    return [torch.randn(rows, FEATURES)]


def get_init_inputs():
    return [FEATURES]
