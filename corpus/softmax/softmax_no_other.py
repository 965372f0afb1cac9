"""Triton port of softmax.cu with a seeded bug: the masked load has no `other=`, so when cols is not
a power of two the padding lanes hold undefined values (0.0 in Triton's interpreter, whatever the
registers held on a GPU) and feed tl.max and tl.sum: in the interpreter each padding lane adds
exp(0 - max) to the row sum (and 0.0 can become the max of an all-negative row), so every value of
such a row is too small; on a GPU the row can be anything, NaN included."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    x = tl.load(x_ptr + row * cols + c, mask=mask)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * cols + c, e / tl.sum(e, axis=0), mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(cols)
    softmax_kernel[(rows,)](x, out, rows, cols, BLOCK=BLOCK)
    return out
