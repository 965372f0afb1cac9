"""Triton port of rowsum3d.cu, correct: each program takes 16 rows and walks C in chunks of 32,
storing the running sums into out after every chunk. A program rewrites its rows' elements at the
same positions of the same tile, trip after trip, in order: not a double write."""

import torch
import triton
import triton.language as tl


@triton.jit
def rowsum3d_kernel(inp_ptr, out_ptr, n_rows, C, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_C)
    acc = tl.zeros([BLOCK_R], dtype=tl.float32)
    for k in range(0, C, BLOCK_C):
        mask = (rows[:, None] < n_rows) & (k + cols[None, :] < C)
        x = tl.load(inp_ptr + rows[:, None] * C + k + cols[None, :], mask=mask, other=0.0)
        acc += tl.sum(x, axis=1)
        tl.store(out_ptr + rows, acc, mask=rows < n_rows)


def rowsum3d(inp: torch.Tensor) -> torch.Tensor:
    B, T, C = inp.shape
    out = torch.empty((B, T), dtype=inp.dtype, device=inp.device)
    n_rows = B * T
    rowsum3d_kernel[(triton.cdiv(n_rows, 16),)](inp, out, n_rows, C, BLOCK_R=16, BLOCK_C=32)
    return out
