"""Triton port of rotary.cu with a seeded bug: the interleaved (GPT-J) pairing, (x[s, 2i], x[s, 2i + 1]),
where the source pairs (x[s, i], x[s, i + half]) (half-split, GPT-NeoX): the layout of the other
convention. Every element is read from and stored to the wrong place of the row (except when
half = 1, where both pairings agree)."""

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
    a = tl.load(x_ptr + s * 2 * half + 2 * i, mask=mask, other=0.0)
    b = tl.load(x_ptr + s * 2 * half + 2 * i + 1, mask=mask, other=0.0)
    tl.store(out_ptr + s * 2 * half + 2 * i, a * c - b * sn, mask=mask)
    tl.store(out_ptr + s * 2 * half + 2 * i + 1, b * c + a * sn, mask=mask)


def rotary(x: torch.Tensor, cos_t: torch.Tensor, sin_t: torch.Tensor) -> torch.Tensor:
    seq, half = cos_t.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(half)
    rotary_kernel[(seq,)](x, cos_t, sin_t, out, seq, half, BLOCK=BLOCK)
    return out
