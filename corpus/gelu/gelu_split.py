"""Triton port of gelu.cu: the exact GELU. Correct, written differently: x * Phi(x) with
Phi(x) = 0.5 + 0.5 * erf(x / sqrt(2)) (a division where the source multiplies by 1/sqrt(2)),
2048-wide tiles and 8 warps. The reordering changes only the last bits, well inside fp32 tolerance."""

import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    x = tl.load(x_ptr + offs, mask=keep, other=0.0)
    cdf = 0.5 + 0.5 * tl.erf(x / 1.4142135623730951)
    tl.store(out_ptr + offs, x * cdf, mask=keep)


def gelu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 2048
    grid = (triton.cdiv(n, BLOCK),)
    gelu_kernel[grid](x, out, n, BLOCK=BLOCK, num_warps=8)
    return out
