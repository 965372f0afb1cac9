# A launch option from the wrapper's arguments: `num_warps` is checked as Triton checks it (a power
# of 2) at the launch's line; computed from a symbolic size, it needs concrete sizes.
import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def copy(x, warps):
    out = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.shape[0], 256),)](x, out, x.shape[0], BLOCK=256, num_warps=warps)
    return out
