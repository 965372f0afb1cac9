# PyTorch reference (KernelBench format) for C = A @ B, A [M, K], B [K, N].
import torch
import torch.nn as nn

M, K, N = 40, 50, 60


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
