# PyTorch reference (KernelBench format) for relu. torch.relu propagates NaN (relu(NaN) = NaN), as
# fmaxf in the CUDA reference does not: the ports follow the CUDA reference, so the corpus pairs
# this reference only with special-value-free checks in mind (see expected.toml).
import torch
import torch.nn as nn

N = 5000


class Model(nn.Module):
    def forward(self, x):
        return torch.clamp_min(x, 0.0)


def get_inputs():
    return [torch.randn(N)]


def get_init_inputs():
    return []
