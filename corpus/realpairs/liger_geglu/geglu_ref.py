"""Our PyTorch reference of GEGLU with the tanh form of GELU: gelu_tanh(gate) * up."""

import torch


def geglu(gate, up):
    return torch.nn.functional.gelu(gate, approximate="tanh") * up
