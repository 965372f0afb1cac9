"""Triton port of saxpy.cu: out = a * x + y. Correct."""

import torch
import triton
import triton.language as tl


@triton.jit
def saxpy_kernel(a, x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * x + y, mask=mask)


def saxpy(a: float, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 512
    grid = (triton.cdiv(n, BLOCK),)
    saxpy_kernel[grid](a, x, y, out, n, BLOCK=BLOCK)
    return out
