"""Our PyTorch reference of SwiGLU's gating (LLaMA's MLP): silu(gate) * up, elementwise."""

import torch


def swiglu(gate, up):
    return torch.nn.functional.silu(gate) * up
