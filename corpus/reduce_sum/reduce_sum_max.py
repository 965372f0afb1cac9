"""Triton port of reduce_sum.cu (seeded bug: the wrong combining operator). One program per
256-element tile, as in the port, but the tile is reduced with tl.max instead of tl.sum: out[b]
reads exactly the inputs the source's tree and shuffles sum, and combines them by max."""

import torch
import triton
import triton.language as tl


@triton.jit
def reduce_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + pid, tl.max(x, axis=0))


def reduce_sum(x: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    BLOCK = 256
    n_out = triton.cdiv(n, BLOCK)
    out = torch.empty(n_out, dtype=x.dtype, device=x.device)
    reduce_sum_kernel[(n_out,)](x, out, n, BLOCK=BLOCK)
    return out
