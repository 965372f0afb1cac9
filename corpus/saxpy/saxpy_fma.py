"""Triton port of saxpy.cu: out = a * x + y. Correct: written as an explicit fused multiply-add with
bigger tiles and 8 warps. nvcc contracts `a * x[i] + y[i]` into an FMA by default, and a rounding step
less is well inside fp32 tolerance either way."""

import torch
import triton
import triton.language as tl


@triton.jit
def saxpy_kernel(a, x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    in_range = offs < n
    x = tl.load(x_ptr + offs, mask=in_range, other=0.0)
    y = tl.load(y_ptr + offs, mask=in_range, other=0.0)
    tl.store(out_ptr + offs, tl.fma(x, a, y), mask=in_range)


def saxpy(a: float, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 2048
    grid = (triton.cdiv(n, BLOCK),)
    saxpy_kernel[grid](a, x, y, out, n, BLOCK=BLOCK, num_warps=8)
    return out
