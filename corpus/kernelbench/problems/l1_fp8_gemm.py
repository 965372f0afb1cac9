import torch
import torch.nn as nn


class Model(nn.Module):
    """An fp8 GEMM: e4m3 operands with per-tensor scales, the product in fp32, the result in bf16."""

    def __init__(self):
        super().__init__()

    def forward(self, a, b, scale_a, scale_b):
        return ((a.to(torch.float32) @ b.to(torch.float32)) * scale_a * scale_b).to(torch.bfloat16)


M, K, N = 64, 128, 96


def get_inputs():
    a = (torch.randn(M, K) * 4).to(torch.float8_e4m3fn)
    b = (torch.randn(K, N) * 4).to(torch.float8_e4m3fn)
    return [a, b, torch.tensor(0.05), torch.tensor(0.02)]


def get_init_inputs():
    return []
