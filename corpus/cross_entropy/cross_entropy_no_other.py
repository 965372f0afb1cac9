"""Triton port of cross_entropy.cu with a seeded bug: the row is loaded with a mask but without
`other=`, so the padding lanes (c >= cols, when cols is not a power of two) hold what Triton leaves
there (0.0 in its interpreter), not -inf: they add exp(0 - max) each to the sum, and they win the max of a row
whose logits are all negative. The loss of those rows is wrong."""

import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(x_ptr, target_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    x = tl.load(x_ptr + row * cols + c, mask=mask)
    t = tl.load(target_ptr + row)
    m = tl.max(x, axis=0)
    s = tl.sum(tl.exp(x - m), axis=0)
    picked = tl.sum(tl.where(mask & (c == t), x, 0.0), axis=0)
    tl.store(out_ptr + row, m + tl.log(s) - picked)


def cross_entropy(x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows,), dtype=torch.float32, device=x.device)
    BLOCK = triton.next_power_of_2(cols)
    cross_entropy_kernel[(rows,)](x, target, out, rows, cols, BLOCK=BLOCK)
    return out
