"""Our PyTorch reference of squared ReLU (Primer): relu(x) ** 2."""

import torch


def relu_squared(x):
    return torch.relu(x) ** 2
