"""ReLU of activations drawn with torch.rand (every value in [0, 1))."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


batch = 8
dim = 5000


def get_inputs():
    return [torch.rand(batch, dim)]


def get_init_inputs():
    return []
