# A tensor element where the kernel takes a constexpr (a list of section sizes assumed to be a
# tensor): Triton cannot compile a tensor as a constant, and the error names the launch.
import torch
import triton
import triton.language as tl


@triton.jit
def head_kernel(x_ptr, out_ptr, FIRST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < FIRST), mask=offs < FIRST)


def head(x, sections):
    out = torch.empty_like(x)
    head_kernel[(1,)](x, out, sections[0], BLOCK=1024)
    return out
