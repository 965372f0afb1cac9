# RUN: lowercheck lower %s --emit access --no-loc | filecheck %s
# A row softmax of 8 x 1024 tiles whose padding is set with tl.where after the load: the select of
# two computed tiles keeps its lanes position by position, so the row max and sum still reduce over
# the column lane (LANE6) and the store depends on the whole row (`r0/LANE6`), not on one element.

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_rows(x_ptr, out_ptr, rows, cols, R: tl.constexpr, C: tl.constexpr):
    r = tl.program_id(0) * R + tl.arange(0, R)
    c = tl.arange(0, C)
    inside = (r[:, None] < rows) & (c[None, :] < cols)
    x = tl.load(x_ptr + r[:, None] * cols + c[None, :], mask=inside, other=0.0)
    x = tl.where(c[None, :] < cols, x, -float("inf"))
    e = tl.exp(x - tl.max(x, axis=1)[:, None])
    tl.store(out_ptr + r[:, None] * cols + c[None, :], e / tl.sum(e, axis=1)[:, None], mask=inside)


def softmax(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    softmax_rows[(triton.cdiv(rows, 8),)](x, out, rows, cols, R=8, C=1024)
    return out

# The max over a row, then the sum over it of x - max: x itself and x over the whole row (the row
# reduced twice is reduced once: `reduced` in extract_accesses.py keeps a lane once).
# CHECK: access.access {buffer = "return0", kind = "write"
# CHECK-SAME: sources = ["r0", "r0/[[COL:LANE[0-9]+]]"]
# CHECK-SAME: lanes = ["{{LANE[0-9]+}}", "[[COL]]"]
