"""Triton port of gelu.cu, correct with a grid-stride loop where the source has one element per
thread: at most 8 programs of BLOCK = 128, program p doing the tiles p, p + P, p + 2P, ... (P the
number of programs). Tile t goes to program t mod P: every element is written exactly once."""

import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    step = tl.num_programs(0) * BLOCK
    for start in range(tl.program_id(0) * BLOCK, n, step):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476)), mask=mask)


def gelu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 128
    grid = (min(triton.cdiv(n, BLOCK), 8),)
    gelu_kernel[grid](x, out, n, BLOCK=BLOCK)
    return out
