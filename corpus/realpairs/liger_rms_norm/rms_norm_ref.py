"""Our PyTorch reference of RMSNorm as Llama defines it (the "llama" casting mode): the mean of
squares in float32, the normalised row cast back to the input's dtype, then scaled by the weight."""

import torch


def rms_norm(x, weight):
    rstd = torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6)
    return (x.float() * rstd).to(x.dtype) * weight
