"""Our PyTorch reference of plain (non-causal, unmasked) multi-head attention, written for this
pair: softmax(q k^T * sm_scale) v per batch and head, on [batch, seq, heads, head_dim] tensors."""

import torch


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sm_scale: float) -> torch.Tensor:
    scores = torch.einsum("bqhd,bkhd->bhqk", q, k) * sm_scale
    return torch.einsum("bhqk,bkhd->bqhd", torch.softmax(scores, dim=-1), v)
