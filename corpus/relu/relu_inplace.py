"""Triton port of relu.cu. Seeded bug: an in-place activation: the result is stored back into x and
x is returned, so the caller's input is overwritten. The returned values are right."""

import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(x_ptr + offs, tl.maximum(x, 0.0), mask=mask)


def relu(x: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    BLOCK = 256
    grid = (triton.cdiv(n, BLOCK),)
    relu_kernel[grid](x, n, BLOCK=BLOCK)
    return x
