"""Triton port of vadd.cu with a seeded bug: the sum is cast to fp16 before the store (a conversion
the reference does not make; the store converts it back to the fp32 output): every element is
rounded to 11 significant bits, a relative error up to 2^-11, and sums beyond 65504 would be inf."""

import torch
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, (x + y).to(tl.float16), mask=mask)


def vadd(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    vadd_kernel[grid](x, y, out, n, BLOCK=BLOCK)
    return out
