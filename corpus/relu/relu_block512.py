"""Triton port of relu.cu, correct with another block size and no grid-stride loop: one 512-wide
tile per program, 2 warps, a cdiv(n, 512) grid (the source: 64 threads per block, at most 16 blocks,
a grid-stride loop)."""

import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


def relu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 512
    grid = (triton.cdiv(n, BLOCK),)
    relu_kernel[grid](x, out, n, BLOCK=BLOCK, num_warps=2)
    return out
