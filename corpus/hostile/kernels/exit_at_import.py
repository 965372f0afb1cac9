"""Hostile port of vadd.cu: Exits with status 0 while lowercheck imports it."""


import torch
import triton
import triton.language as tl

import sys

sys.exit(0)


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def vadd(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    vadd_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out
