# PyTorch reference (KernelBench format) for a matrix transpose; the result is a new contiguous
# tensor, as the kernels write it.
import torch
import torch.nn as nn

ROWS, COLS = 45, 70


class Model(nn.Module):
    def forward(self, x):
        return x.t().contiguous()


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []
