"""Triton port of relu.cu. Seeded bug: the clamp is missing and x is copied to out unchanged. With
non-negative test inputs (torch.rand) this passes; with signed inputs it does not."""

import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)


def relu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 256
    grid = (triton.cdiv(n, BLOCK),)
    relu_kernel[grid](x, out, n, BLOCK=BLOCK)
    return out
