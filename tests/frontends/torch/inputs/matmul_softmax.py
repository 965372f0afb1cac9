# A KernelBench-style problem: softmax(a @ b) + 1. torch.export ties a's columns to b's rows.
import torch
import torch.nn as nn

M, K, N = 64, 32, 48


class Model(nn.Module):
    def __init__(self, shift: float):
        super().__init__()
        self.shift = shift

    def forward(self, a, b):
        return torch.softmax(a @ b, dim=-1) + self.shift


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return [1.0]
