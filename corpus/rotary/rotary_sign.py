"""Triton port of rotary.cu with a seeded bug: the sine term's sign is flipped in both outputs (a
rotation by -theta, the inverse rotation): out[s, i] = a cos + b sin, out[s, i + half] = b cos - a sin.
Same accesses as the source, wrong values wherever sin != 0."""

import torch
import triton
import triton.language as tl


@triton.jit
def rotary_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, seq, half, BLOCK: tl.constexpr):
    s = tl.program_id(0)
    i = tl.arange(0, BLOCK)
    mask = i < half
    c = tl.load(cos_ptr + s * half + i, mask=mask, other=0.0)
    sn = tl.load(sin_ptr + s * half + i, mask=mask, other=0.0)
    a = tl.load(x_ptr + s * 2 * half + i, mask=mask, other=0.0)
    b = tl.load(x_ptr + s * 2 * half + half + i, mask=mask, other=0.0)
    tl.store(out_ptr + s * 2 * half + i, a * c + b * sn, mask=mask)
    tl.store(out_ptr + s * 2 * half + half + i, b * c - a * sn, mask=mask)


def rotary(x: torch.Tensor, cos_t: torch.Tensor, sin_t: torch.Tensor) -> torch.Tensor:
    seq, half = cos_t.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(half)
    rotary_kernel[(seq,)](x, cos_t, sin_t, out, seq, half, BLOCK=BLOCK)
    return out
