"""Our PyTorch reference of the bias-GELU of a transformer's MLP: the tanh form of GELU of x + bias
(the form DeepSpeed computes), bias broadcast over the rows."""

import torch


def bias_gelu(x, bias):
    return torch.nn.functional.gelu(x + bias, approximate="tanh")
