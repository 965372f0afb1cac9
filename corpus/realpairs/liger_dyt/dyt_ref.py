"""Our PyTorch reference of Dynamic Tanh (DyT, "Transformers without Normalization"):
gamma * tanh(alpha * x) + beta, with one learnt scalar alpha and per-channel gamma, beta."""

import torch


def dyt(x, alpha, gamma, beta):
    return gamma * torch.tanh(alpha * x) + beta
