"""Triton port of rowsum3d.cu: out[b, t] = sum over c of inp[b, t, c], inp (B, T, C), out (B, T).
Correct: one program per (b, t) row, the B*T rows as one flat program id (row * C + cols), the row in
one BLOCK_C = next_power_of_2(C) tile; padding lanes load 0.0, which adds nothing to the sum."""

import torch
import triton
import triton.language as tl


@triton.jit
def rowsum3d_kernel(inp_ptr, out_ptr, C, BLOCK_C: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_C)
    x = tl.load(inp_ptr + row * C + cols, mask=cols < C, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))


def rowsum3d(inp: torch.Tensor) -> torch.Tensor:
    B, T, C = inp.shape
    out = torch.empty((B, T), dtype=inp.dtype, device=inp.device)
    BLOCK_C = triton.next_power_of_2(C)
    rowsum3d_kernel[(B * T,)](inp, out, C, BLOCK_C=BLOCK_C)
    return out
