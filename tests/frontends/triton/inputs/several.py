# Two wrappers and no ENTRY: lowercheck cannot choose.
import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def copy(x):
    out = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), BLOCK=64)
    return out


def copy_again(x):
    out = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), 32),)](x, out, x.numel(), BLOCK=32)
    return out
