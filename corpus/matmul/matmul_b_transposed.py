"""Triton port of matmul.cu with a seeded bug: b is read as if it were stored n x k (the layout of a
linear layer's weight), b[col][kk] = b[col * k + kk], where the source reads b[kk][col] =
b[kk * n + col]; the tile is loaded (BLOCK_N, BLOCK_K) with kk walking contiguous memory and
transposed for tl.dot. For a square b (k == n) every read is in bounds and out = a @ b.T instead of
a @ b."""

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, out_ptr, m, n, k,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * k + rk[None, :], mask=(rm[:, None] < m) & (rk[None, :] < k), other=0.0)
        bt = tl.load(b_ptr + rn[:, None] * k + rk[None, :], mask=(rn[:, None] < n) & (rk[None, :] < k), other=0.0)
        acc += tl.dot(a, tl.trans(bt), input_precision="ieee")
    tl.store(out_ptr + rm[:, None] * n + rn[None, :], acc, mask=(rm[:, None] < m) & (rn[None, :] < n))


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    m, k = a.shape
    n = b.shape[1]
    out = torch.empty((m, n), dtype=a.dtype, device=a.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 32, 32, 16
    grid = (triton.cdiv(n, BLOCK_N), triton.cdiv(m, BLOCK_M))
    matmul_kernel[grid](a, b, out, m, n, k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out
