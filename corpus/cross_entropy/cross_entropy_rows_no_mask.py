"""Triton port of cross_entropy.cu with a seeded bug: 4 rows per program (as cross_entropy_rows.py)
but the store of the losses is not masked, so when rows is not a multiple of 4 the last program writes
up to 3 losses past the end of out (the loads are masked: the values in bounds are right)."""

import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_rows_kernel(x_ptr, target_ptr, out_ptr, rows, cols, ROWS: tl.constexpr, CHUNK: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    live = r < rows
    t = tl.load(target_ptr + r, mask=live, other=-1)
    m = tl.full((ROWS,), float("-inf"), tl.float32)
    s = tl.zeros((ROWS,), tl.float32)
    picked = tl.zeros((ROWS,), tl.float32)
    for c0 in range(0, cols, CHUNK):
        c = c0 + tl.arange(0, CHUNK)
        inside = live[:, None] & (c[None, :] < cols)
        x = tl.load(x_ptr + r[:, None] * cols + c[None, :], mask=inside, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x, axis=1))
        s = s * tl.exp2((m - m_new) * 1.4426950408889634) \
            + tl.sum(tl.exp2((x - m_new[:, None]) * 1.4426950408889634), axis=1)
        picked += tl.sum(tl.where(inside & (c[None, :] == t[:, None]), x, 0.0), axis=1)
        m = m_new
    loss = m + tl.log2(s) * 0.6931471805599453 - picked
    tl.store(out_ptr + r, loss)


def cross_entropy(x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows,), dtype=torch.float32, device=x.device)
    cross_entropy_rows_kernel[(triton.cdiv(rows, 4),)](x, target, out, rows, cols, ROWS=4, CHUNK=32)
    return out
