# PyTorch reference (KernelBench format) for the half-split (GPT-NeoX) rotary position embedding of a
# [seq, dim] matrix with cos/sin tables of [seq, dim / 2]: the pair (x[:, i], x[:, i + dim / 2]) is
# rotated by the angle of (cos_t[:, i], sin_t[:, i]).
import torch
import torch.nn as nn

SEQ, DIM = 128, 64


class Model(nn.Module):
    def forward(self, x, cos_t, sin_t):
        a, b = x.chunk(2, dim=-1)
        return torch.cat([a * cos_t - b * sin_t, b * cos_t + a * sin_t], dim=-1)


def get_inputs():
    angles = torch.arange(SEQ, dtype=torch.float32)[:, None] * (
        10000.0 ** (-torch.arange(DIM // 2, dtype=torch.float32) / (DIM // 2)))[None, :]
    return [torch.randn(SEQ, DIM), torch.cos(angles), torch.sin(angles)]


def get_init_inputs():
    return []
