# PyTorch reference (KernelBench format) for gelu, the exact erf form: x/2 * (1 + erf(x/sqrt 2)).
import torch
import torch.nn as nn

N = 2050


class Model(nn.Module):
    def forward(self, x):
        return torch.nn.functional.gelu(x)


def get_inputs():
    return [torch.randn(N)]


def get_init_inputs():
    return []
