"""Triton port of reduce_sum.cu with a seeded bug: a data race. Each 256-tile is split between two
programs of 128 lanes, and each adds its half into out[pid // 2] with a plain load, add and store
(out zeroed first) instead of tl.atomic_add: programs 2t and 2t + 1 both store out[t], with
different values, and no order between them; on a GPU one half's sum can be lost. Triton's
interpreter runs the programs one after another, so an interpreted run gets the right sums."""

import torch
import triton
import triton.language as tl


@triton.jit
def reduce_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    partial = tl.load(out_ptr + pid // 2)
    tl.store(out_ptr + pid // 2, partial + tl.sum(x, axis=0))


def reduce_sum(x: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    BLOCK = 128  # half a tile of the source: two programs per output
    n_out = triton.cdiv(n, 256)
    out = torch.zeros(n_out, dtype=x.dtype, device=x.device)
    reduce_sum_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    return out
