"""Triton port of saxpy.cu with a seeded bug: the tiles are BLOCK = 512 wide but start every
STEP = 384 elements (grid cdiv(n, 384)), so each program also stores the first 128 elements of the
next program's tile: for n > 384 those elements are written twice, with the same value. Every
element is written and every access is masked and in bounds."""

import torch
import triton
import triton.language as tl


@triton.jit
def saxpy_kernel(a, x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, STEP: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * STEP + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * x + y, mask=mask)


def saxpy(a: float, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK, STEP = 512, 384
    grid = (triton.cdiv(n, STEP),)
    saxpy_kernel[grid](a, x, y, out, n, BLOCK=BLOCK, STEP=STEP)
    return out
