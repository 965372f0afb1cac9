"""Triton port of saxpy.cu. Seeded bug: the roles of x and y are swapped (out = a * y + x). Each
output still reads exactly x[i] and y[i]; only the arithmetic differs."""

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
    tl.store(out_ptr + offs, a * y + x, mask=mask)


def saxpy(a: float, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 512
    grid = (triton.cdiv(n, BLOCK),)
    saxpy_kernel[grid](a, x, y, out, n, BLOCK=BLOCK)
    return out
