"""A KernelBench-style level-1 problem (written for lowercheck's corpus): ReLU on torch.rand inputs,
float32, audited as KernelBench's own evaluator judges it (`--harness kernelbench`)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    """A ReLU activation."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


batch_size = 16
dim = 16384


def get_inputs():
    x = torch.rand(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
