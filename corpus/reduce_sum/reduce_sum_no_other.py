"""Triton port of reduce_sum.cu with a seeded bug: the masked load has no `other=`, so in the last
tile (n % 256 != 0) the lanes past n hold undefined values on a GPU, and tl.sum adds them into the
partial sum. Triton's interpreter fills such lanes with 0.0, the neutral element of the sum, so the
bug does not show in an interpreted run."""

import torch
import triton
import triton.language as tl


@triton.jit
def reduce_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + pid, tl.sum(x, axis=0))


def reduce_sum(x: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    BLOCK = 256
    n_out = triton.cdiv(n, BLOCK)
    out = torch.empty(n_out, dtype=x.dtype, device=x.device)
    reduce_sum_kernel[(n_out,)](x, out, n, BLOCK=BLOCK)
    return out
