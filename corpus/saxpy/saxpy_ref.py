# PyTorch reference (KernelBench format) for saxpy: out = a * x + y, `a` a Python float.
import torch
import torch.nn as nn

N = 3001


class Model(nn.Module):
    def forward(self, a, x, y):
        return a * x + y


def get_inputs():
    return [1.75, torch.randn(N), torch.randn(N)]


def get_init_inputs():
    return []
