"""Softmax over the rows of a (batch, features) float32 tensor."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


batch = 24
features = 700


def get_inputs():
    return [torch.randn(batch, features)]


def get_init_inputs():
    return []
