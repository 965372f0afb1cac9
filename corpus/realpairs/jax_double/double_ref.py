"""Our PyTorch reference of jax's example kernel: 2 * x."""

import torch  # noqa: F401 - marks this file as a PyTorch reference


def double(x):
    return x * 2
