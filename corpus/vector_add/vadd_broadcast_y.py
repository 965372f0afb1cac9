"""Triton port of vadd.cu with a seeded bug: y is read with stride 0, as if it were a broadcast bias
(y.expand(n), one element), so every lane loads y[0]: out[i] = x[i] + y[0] where the reference
reads y[i]. Every access in bounds, every element written once; out[i] depends on y[0] instead of
y[i], and the values differ wherever y[i] != y[0]."""

import torch
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, stride_y, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs * stride_y, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def vadd(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    vadd_kernel[grid](x, y, out, n, 0, BLOCK=BLOCK)  # stride 0: the broadcast layout of a bias
    return out
