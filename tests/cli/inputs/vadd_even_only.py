import torch
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def vadd(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    if n % 2:  # a port that handles even lengths only
        raise ValueError(f"vadd: n must be even, got {n}")
    block = min(triton.next_power_of_2(n), 1024)
    vadd_kernel[(triton.cdiv(n, block),)](x, y, out, n, BLOCK=block)
    return out
