"""Our PyTorch reference of LayerNorm over the last dimension, with weight and bias."""

import torch


def layer_norm(x, weight, bias):
    return torch.nn.functional.layer_norm(x, x.shape[-1:], weight, bias, eps=1e-6)
