# Writes only the first half of its output: the rest stays poisoned (NaN).
import torch
import triton
import triton.language as tl


@triton.jit
def half_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n // 2
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def copy(x):
    out = torch.empty_like(x)
    n = x.numel()
    half_kernel[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
    return out
