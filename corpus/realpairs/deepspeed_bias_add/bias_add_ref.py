"""Our PyTorch reference of a bias add: x + bias, bias broadcast over the rows."""

import torch  # noqa: F401 - marks this file as a PyTorch reference


def bias_add(x, bias):
    return x + bias
