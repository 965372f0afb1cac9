"""SiLU (x * sigmoid(x)) on a 3-D activation, float32."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return nn.functional.silu(x)


def get_inputs():
    batch = int(torch.randint(2, 5, (1,)))
    seq = int(torch.randint(50, 120, (1,))) | 1
    return [torch.randn(batch, seq, 257) * 4.0]


def get_init_inputs():
    return []
