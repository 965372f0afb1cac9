"""Level 1: RMS normalisation over the feature dimension of a (batch, features, length) tensor."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rms = torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + self.eps)
        return x / rms


batch_size = 8
features = 64
length = 300


def get_inputs():
    return [torch.randn(batch_size, features, length)]


def get_init_inputs():
    return [features]
