"""Triton port of matmul.cu, correct but with an uncoalesced read of a: 32 x 32 output tiles built
as a sum of outer products, one K index at a time: a column of a (a[rm][kk], 32 rows, stride k
between consecutive lanes: a 1-D tile with no contiguous dimension) times a row of b (b[kk][rn],
stride 1), accumulated in fp32. The source's threadIdx.x reads a along a row (stride 1). b and out
are walked as in the source; the sum runs over kk in order, within fp32 tolerance."""

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, out_ptr, m, n, k, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kk in range(0, k):
        a_col = tl.load(a_ptr + rm * k + kk, mask=rm < m, other=0.0)
        b_row = tl.load(b_ptr + kk * n + rn, mask=rn < n, other=0.0)
        acc += a_col[:, None] * b_row[None, :]
    tl.store(out_ptr + rm[:, None] * n + rn[None, :], acc, mask=(rm[:, None] < m) & (rn[None, :] < n))


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    m, k = a.shape
    n = b.shape[1]
    out = torch.empty((m, n), dtype=a.dtype, device=a.device)
    BLOCK_M, BLOCK_N = 32, 32
    grid = (triton.cdiv(n, BLOCK_N), triton.cdiv(m, BLOCK_M))
    matmul_kernel[grid](a, b, out, m, n, k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out
