import torch
import triton
import triton.language as tl


@triton.jit
def madd_kernel(a_ptr, b_ptr, c_ptr, m, n, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rows = pm * BM + tl.arange(0, BM)
    cols = pn * BN + tl.arange(0, BN)
    mask = (rows[:, None] < m) & (cols[None, :] < n)
    offs = rows[:, None] * n + cols[None, :]
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(c_ptr + offs, a + b, mask=mask)


def madd(a, b):
    m, n = a.shape
    c = torch.empty_like(a)
    grid = (triton.cdiv(m, 32), triton.cdiv(n, 64))
    madd_kernel[grid](a, b, c, m, n, BM=32, BN=64)
    return c
