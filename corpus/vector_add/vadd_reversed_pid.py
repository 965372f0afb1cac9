"""Triton port of vadd.cu: out = x + y. Correct: programs take the tiles in reverse order (program 0
does the last tile). Reversing the program index is a bijection on the tiles, so every element is
still written exactly once with x + y."""

import torch
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    tile = tl.num_programs(0) - 1 - tl.program_id(0)
    offs = tile * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def vadd(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 256
    grid = (triton.cdiv(n, BLOCK),)
    vadd_kernel[grid](x, y, out, n, BLOCK=BLOCK)
    return out
