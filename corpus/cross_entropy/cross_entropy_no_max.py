"""Triton port of cross_entropy.cu with a seeded bug: logsumexp without the max subtraction,
log(sum(exp(x))). Equal up to rounding while exp(x) stays finite and the sum does not underflow; a
logit above ~88.7 overflows exp to inf (loss inf where the source is finite), and a row of logits all
below ~-103 sums to 0 (log 0 = -inf). Standard-normal inputs never get there."""

import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(x_ptr, target_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    x = tl.load(x_ptr + row * cols + c, mask=mask, other=float("-inf"))
    t = tl.load(target_ptr + row)
    s = tl.sum(tl.exp(x), axis=0)
    picked = tl.sum(tl.where(mask & (c == t), x, 0.0), axis=0)
    tl.store(out_ptr + row, tl.log(s) - picked)


def cross_entropy(x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows,), dtype=torch.float32, device=x.device)
    BLOCK = triton.next_power_of_2(cols)
    cross_entropy_kernel[(rows,)](x, target, out, rows, cols, BLOCK=BLOCK)
    return out
