import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """fp8 operands upcast to bf16: the bf16 tensor cores instead of the fp8 ones."""

    def __init__(self):
        super().__init__()

    def forward(self, a, b, scale_a, scale_b):
        c = torch.matmul(a.to(torch.bfloat16), b.to(torch.bfloat16))
        return (c * (scale_a * scale_b).to(torch.bfloat16)).to(torch.bfloat16)
