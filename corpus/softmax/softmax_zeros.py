"""Triton port of softmax.cu with a seeded bug of the evaluator-hole kind: it stores zeros and never
reads x. Softmax values are 1 / cols on average, so zeros pass a loose absolute tolerance on wide
rows (bf16's 1e-2 from cols of about 100 on; fp32's 1e-5 only from about 10^5), but not at fp32
tolerance on the rows a sweep runs: every value is wrong, and every output element depends on no
input element where the reference's depends on its whole row."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    tl.store(out_ptr + row * cols + c, tl.zeros((BLOCK,), dtype=tl.float32), mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(cols)
    softmax_kernel[(rows,)](x, out, rows, cols, BLOCK=BLOCK)
    return out
