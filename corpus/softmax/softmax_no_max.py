"""Triton port of softmax.cu with a seeded bug: no max subtraction, e = exp(x). Mathematically the
same; in fp32 exp overflows to inf for x > ~88.7 and the row becomes NaN (inf / inf) or 0. On
inputs of small magnitude (standard normal) it agrees with the source within rounding."""


import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    x = tl.load(x_ptr + row * cols + c, mask=mask, other=float("-inf"))
    e = tl.exp(x)
    tl.store(out_ptr + row * cols + c, e / tl.sum(e, axis=0), mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(cols)
    softmax_kernel[(rows,)](x, out, rows, cols, BLOCK=BLOCK)
    return out
