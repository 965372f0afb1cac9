"""Level 2: Conv2d, then multiply by a learned per-channel scale, then sigmoid."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, scale_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.scale = nn.Parameter(torch.randn(scale_shape))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.conv(x)
        x = x * self.scale
        return torch.sigmoid(x)


batch_size = 4
in_channels = 3
out_channels = 16
height = width = 24
kernel_size = 3
scale_shape = (out_channels, 1, 1)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, scale_shape]
