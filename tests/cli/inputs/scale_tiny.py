import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 1e-7 * tl.load(x_ptr + offs, mask=mask), mask=mask)


def scale(x):
    out = torch.empty_like(x)
    n = out.numel()
    scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
