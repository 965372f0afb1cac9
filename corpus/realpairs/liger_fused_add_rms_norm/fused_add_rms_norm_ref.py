"""Our PyTorch reference of the residual add fused with RMSNorm (as in Llama's decoder layers): the
new residual s = x + residual, and rms_norm(s) * weight ("llama" casting: statistics in float32).
It returns both, the normalised value first."""

import torch


def fused_add_rms_norm(x, residual, weight):
    s = x + residual
    rstd = torch.rsqrt(s.float().pow(2).mean(-1, keepdim=True) + 1e-6)
    return (s.float() * rstd).to(s.dtype) * weight, s
