"""Triton port of rotary.cu with a seeded bug: the cos/sin values are rounded to bf16 after the load
(as if the tables were cached in bf16; 8-bit significand, relative error up to 2^-9) and widened back,
so every rotated value is off by up to ~2e-3 relative where the source keeps fp32 angles."""

import torch
import triton
import triton.language as tl


@triton.jit
def rotary_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, seq, half, BLOCK: tl.constexpr):
    s = tl.program_id(0)
    i = tl.arange(0, BLOCK)
    mask = i < half
    c = tl.load(cos_ptr + s * half + i, mask=mask, other=0.0).to(tl.bfloat16).to(tl.float32)
    sn = tl.load(sin_ptr + s * half + i, mask=mask, other=0.0).to(tl.bfloat16).to(tl.float32)
    a = tl.load(x_ptr + s * 2 * half + i, mask=mask, other=0.0)
    b = tl.load(x_ptr + s * 2 * half + half + i, mask=mask, other=0.0)
    tl.store(out_ptr + s * 2 * half + i, a * c - b * sn, mask=mask)
    tl.store(out_ptr + s * 2 * half + half + i, b * c + a * sn, mask=mask)


def rotary(x: torch.Tensor, cos_t: torch.Tensor, sin_t: torch.Tensor) -> torch.Tensor:
    seq, half = cos_t.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(half)
    rotary_kernel[(seq,)](x, cos_t, sin_t, out, seq, half, BLOCK=BLOCK)
    return out
