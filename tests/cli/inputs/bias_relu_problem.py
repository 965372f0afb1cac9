# A KernelBench-style problem: relu(x + bias), bias broadcast over the rows. Its ModelNew is
# tests/frontends/cuda/inputs/kernelbench_relu.py (CUDA through load_inline).
import torch
import torch.nn as nn

BATCH, FEATURES = 24, 200


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, bias):
        return torch.relu(x + bias)


def get_inputs():
    return [torch.randn(BATCH, FEATURES), torch.randn(FEATURES)]


def get_init_inputs():
    return []
