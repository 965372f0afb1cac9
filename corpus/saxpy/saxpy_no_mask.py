"""Triton port of saxpy.cu. Seeded bug: no tail mask, so when n % BLOCK != 0 the last program reads x
and y and writes out past their end."""

import torch
import triton
import triton.language as tl


@triton.jit
def saxpy_kernel(a, x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, a * x + y)


def saxpy(a: float, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 512
    grid = (triton.cdiv(n, BLOCK),)
    saxpy_kernel[grid](a, x, y, out, n, BLOCK=BLOCK)
    return out
