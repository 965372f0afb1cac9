"""PyTorch reference for attention (KernelBench format): single-head forward attention without a mask,
out = softmax(q k^T / sqrt(d)) v for q, k, v of (seq, d) fp32, as attention.cu computes it."""

import math

import torch
import torch.nn as nn

SEQ = 256
D = 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scores = (q @ k.transpose(0, 1)) / math.sqrt(q.shape[1])
        return torch.softmax(scores, dim=1) @ v


def get_inputs():
    return [torch.randn(SEQ, D), torch.randn(SEQ, D), torch.randn(SEQ, D)]


def get_init_inputs():
    return []
