"""Triton port of relu.cu. Seeded bug: the source's grid cap was carried over (at most 4 programs)
but its grid-stride loop was not: each program does one tile, so only the first 4 * BLOCK = 1024
elements are ever written."""

import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


def relu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 256
    grid = (min(triton.cdiv(n, BLOCK), 4),)
    relu_kernel[grid](x, out, n, BLOCK=BLOCK)
    return out
