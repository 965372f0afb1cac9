"""An fp8 matmul: float8_e4m3fn operands, per-tensor scales, float32 products, a bfloat16 result."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, scale_a, scale_b):
        return ((a.float() @ b.float()) * (scale_a * scale_b)).to(torch.bfloat16)


M, K, N = 48, 96, 80


def get_inputs():
    a = (torch.randn(M, K) * 2).to(torch.float8_e4m3fn)
    b = (torch.randn(K, N) * 2).to(torch.float8_e4m3fn)
    return [a, b, torch.tensor(0.1), torch.tensor(0.03)]


def get_init_inputs():
    return []
