"""Our PyTorch reference of DeepSpeed's scaled vector add: gamma * a + b."""

import torch  # noqa: F401 - marks this file as a PyTorch reference


def scaled_add(a, b, gamma):
    return gamma * a + b
