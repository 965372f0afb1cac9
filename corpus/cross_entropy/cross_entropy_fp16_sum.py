"""Triton port of cross_entropy.cu with a seeded bug: the sum of exp(x - max) is taken in fp16
(each term rounded to fp16 and the reduction done in fp16: relative error ~2^-11 per addition), then
widened for the log. The source sums in fp32; the accesses are the same."""

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
    s = tl.sum(tl.exp(x - m).to(tl.float16), axis=0).to(tl.float32)
    picked = tl.sum(tl.where(mask & (c == t), x, 0.0), axis=0)
    tl.store(out_ptr + row, m + tl.log(s) - picked)


def cross_entropy(x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows,), dtype=torch.float32, device=x.device)
    BLOCK = triton.next_power_of_2(cols)
    cross_entropy_kernel[(rows,)](x, target, out, rows, cols, BLOCK=BLOCK)
    return out
