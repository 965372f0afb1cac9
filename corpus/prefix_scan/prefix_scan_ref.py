"""PyTorch reference for prefix_scan (KernelBench format): the inclusive cumulative sum along each row
of a (rows, cols) fp32 tensor, out[r][c] = x[r][0] + ... + x[r][c], as prefix_scan.cu computes it."""

import torch
import torch.nn as nn

ROWS = 64
COLS = 1000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x, dim=1)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []
