# PyTorch reference (KernelBench format) for a row softmax of a [rows, cols] matrix.
import torch
import torch.nn as nn

ROWS, COLS = 33, 200


class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []
