"""Our PyTorch reference of RMSNorm with a bias, as jax's Pallas GPU op defines it:
x * rsqrt(mean(x^2) + eps) * weight + bias over the last dimension, eps 1e-5."""

import torch


def rms_norm(a, w, b):
    return a * torch.rsqrt(a.pow(2).mean(-1, keepdim=True) + 1e-5) * w + b
