"""Level 1: LayerNorm over the last dimension, with its affine weight and bias."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, normalized_shape: int):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape)
        with torch.no_grad():  # weights that are not the identity, so a kernel that ignores them differs
            self.ln.weight.uniform_(0.5, 1.5)
            self.ln.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ln(x)


batch_size = 64
features = 768


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
