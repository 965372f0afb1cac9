"""Triton port of rotary.cu, different-looking but correct: 2-D tiles of 8 positions x 32 pairs on a
2-D grid (cdiv(seq, 8), cdiv(half, 32)), masked in both dimensions; the row offsets are taken from
the row length dim = 2 * half, the second half reached through `+ half`; the rotation written with
tl.fma; 2 warps."""

import torch
import triton
import triton.language as tl


@triton.jit
def rotary_tiles_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, seq, half, dim, BS: tl.constexpr, BH: tl.constexpr):
    s = tl.program_id(0) * BS + tl.arange(0, BS)[:, None]
    i = tl.program_id(1) * BH + tl.arange(0, BH)[None, :]
    mask = (s < seq) & (i < half)
    c = tl.load(cos_ptr + s * half + i, mask=mask, other=0.0)
    sn = tl.load(sin_ptr + s * half + i, mask=mask, other=0.0)
    first = x_ptr + s * dim + i
    a = tl.load(first, mask=mask, other=0.0)
    b = tl.load(first + half, mask=mask, other=0.0)
    tl.store(out_ptr + s * dim + i, tl.fma(a, c, -(b * sn)), mask=mask)
    tl.store(out_ptr + s * dim + half + i, tl.fma(b, c, a * sn), mask=mask)


def rotary(x: torch.Tensor, cos_t: torch.Tensor, sin_t: torch.Tensor) -> torch.Tensor:
    seq, dim = x.shape
    half = dim // 2
    out = torch.empty_like(x)
    grid = (triton.cdiv(seq, 8), triton.cdiv(half, 32))
    rotary_tiles_kernel[grid](x, cos_t, sin_t, out, seq, half, dim, BS=8, BH=32, num_warps=2)
    return out
