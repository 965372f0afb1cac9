"""Triton port of rowsum3d.cu, seeded bug: the column mask is `cols <= C`, so when C is not a power
of two lane C reads the next row's first element into the sum (and the last row reads past the end
of inp)."""

import torch
import triton
import triton.language as tl


@triton.jit
def rowsum3d_kernel(inp_ptr, out_ptr, C, BLOCK_C: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_C)
    x = tl.load(inp_ptr + row * C + cols, mask=cols <= C, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))


def rowsum3d(inp: torch.Tensor) -> torch.Tensor:
    B, T, C = inp.shape
    out = torch.empty((B, T), dtype=inp.dtype, device=inp.device)
    BLOCK_C = triton.next_power_of_2(C)
    rowsum3d_kernel[(B * T,)](inp, out, C, BLOCK_C=BLOCK_C)
    return out
