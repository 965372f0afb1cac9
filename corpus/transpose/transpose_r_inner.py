"""Triton port of transpose.cu, correct, with the tile laid out the other way round: (BLOCK_C,
BLOCK_R), r (the row of x) as its last dimension. Triton's coalescing pass orders each memory op's
layout by the pointer's contiguity, so the load still has consecutive threads along c (x[r][c],
stride 1) and the store along r (out[c][r], stride 1), with a layout conversion in between: both
accesses coalesced, like the straight port's. Same elements, same values."""

import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, rows, cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    c = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)[:, None]
    r = tl.program_id(1) * BLOCK_R + tl.arange(0, BLOCK_R)[None, :]
    mask = (c < cols) & (r < rows)
    tile = tl.load(x_ptr + r * cols + c, mask=mask)
    tl.store(out_ptr + c * rows + r, tile, mask=mask)


def transpose(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((cols, rows), dtype=x.dtype, device=x.device)
    BLOCK_R, BLOCK_C = 32, 32
    grid = (triton.cdiv(cols, BLOCK_C), triton.cdiv(rows, BLOCK_R))
    transpose_kernel[grid](x, out, rows, cols, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
    return out
