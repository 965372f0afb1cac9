"""A PyTorch reference: nothing to compile."""
import torch


class Model(torch.nn.Module):
    def forward(self, a, b):
        return a @ b
