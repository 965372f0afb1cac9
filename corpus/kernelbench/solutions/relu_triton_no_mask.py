import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, BLOCK_SIZE: tl.constexpr):
    # The blocks tile the tensor exactly (16 x 16384 elements, BLOCK_SIZE = 1024), so no mask.
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets)
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(n // 1024,)](x, out, BLOCK_SIZE=1024)
        return out
