"""Triton port of cross_entropy.cu: out[r] = logsumexp(x[r, :]) - x[r, target[r]] for logits x
(rows, cols) and int64 targets (rows,). Correct: one program per row, the row in one BLOCK =
next_power_of_2(cols) tile; padding lanes load -inf (they add exp(-inf) = 0 to the sum and never
win the max); the target logit is selected with tl.where(c == t, x, 0) and summed."""

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
