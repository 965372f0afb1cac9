"""A KernelBench-style level-1 problem (written for lowercheck's corpus): softmax over 16384 columns,
in bfloat16, audited as KernelBench's own evaluator judges it (`--harness kernelbench`)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    """Softmax along the last dimension."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


batch_size = 16
dim = 16384


def get_inputs():
    x = torch.randn(batch_size, dim, dtype=torch.bfloat16)
    return [x]


def get_init_inputs():
    return []
