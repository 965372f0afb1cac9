"""Our PyTorch reference of Dynamic Tanh (DyT, "Transformers without Normalization"):
gamma * tanh(alpha * x) + beta, with one learnt scalar alpha and per-channel gamma, beta."""

import torch


def dyt(x, alpha, gamma, beta):
    return gamma * torch.tanh(alpha * x) + beta


def dyt_backward(dy, x, alpha, gamma, beta):
    """The gradients of `dyt` for the upstream gradient dy: (dx, dalpha, dgamma, dbeta), dalpha as a
    one-element tensor like alpha itself."""
    t = torch.tanh(alpha * x)
    dt = dy * gamma * (1 - t * t)
    return dt * alpha, (dt * x).sum().reshape(1), (dy * t).sum(0), dy.sum(0)
