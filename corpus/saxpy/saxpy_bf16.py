"""Triton port of saxpy.cu with a seeded bug: x and y are converted to bf16 after the load (as in a
bf16 version of the kernel) and a * x + y is computed from the rounded values, where the reference
works on the fp32 inputs throughout: each input keeps 8 significant bits (relative error up to 2^-9),
far beyond fp32 tolerance."""

import torch
import triton
import triton.language as tl


@triton.jit
def saxpy_kernel(a, x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.bfloat16)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.bfloat16)
    tl.store(out_ptr + offs, a * x.to(tl.float32) + y.to(tl.float32), mask=mask)


def saxpy(a: float, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 512
    grid = (triton.cdiv(n, BLOCK),)
    saxpy_kernel[grid](a, x, y, out, n, BLOCK=BLOCK)
    return out
