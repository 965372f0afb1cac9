# The kernel does not compile: tl.arange needs a power of two (line 10).
import torch
import triton
import triton.language as tl


@triton.jit
def bad_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, 100)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def copy(x):
    out = torch.empty_like(x)
    bad_kernel[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), BLOCK=64)
    return out
