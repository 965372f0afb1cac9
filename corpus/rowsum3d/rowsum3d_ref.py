# PyTorch reference (KernelBench format) for rowsum3d: the sum over the last dimension of a
# [B, T, C] tensor, out of [B, T].
import torch
import torch.nn as nn

B, T, C = 4, 8, 100


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, inp):
        return inp.sum(dim=-1)


def get_inputs():
    return [torch.randn(B, T, C)]


def get_init_inputs():
    return []
