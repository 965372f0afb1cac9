"""Triton port of gelu.cu. Seeded bug: the tanh approximation
0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) instead of the source's exact erf form. The two
differ by up to about 5e-4 in absolute value (near |x| = 2.7), far above fp32 tolerance."""

import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    # tanh(u) = 2 * sigmoid(2u) - 1 (tl has no tanh outside libdevice)
    t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
    tl.store(out_ptr + offs, 0.5 * x * (1.0 + t), mask=mask)


def gelu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 128
    grid = (triton.cdiv(n, BLOCK),)
    gelu_kernel[grid](x, out, n, BLOCK=BLOCK)
    return out
