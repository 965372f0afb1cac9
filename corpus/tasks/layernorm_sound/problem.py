"""LayerNorm over the last dimension, float32, with a learned affine: rows and widths drawn per trial."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        with torch.no_grad():  # a non-trivial affine: weights and biases away from 1 and 0
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


WIDTH = 1531  # odd: no tile divides it


def get_inputs():
    rows = int(torch.randint(20, 60, (1,)))
    return [torch.randn(rows, WIDTH) * 3.0 + 1.0]


def get_init_inputs():
    return [WIDTH]
