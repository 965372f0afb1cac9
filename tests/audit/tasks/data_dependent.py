"""A reference with a data-dependent shape (a boolean mask): meta tensors cannot run it."""

import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return x[x > 0].sum().reshape(1) + torch.randn(1)

def get_inputs():
    return [torch.randn(1000)]

def get_init_inputs():
    return []
