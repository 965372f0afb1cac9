"""Triton port of transpose.cu, correct with another block size: 16 x 64 tiles (16 rows of x, 64
columns) and 2 warps, the grid cdiv(cols, 64) x cdiv(rows, 16)."""

import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, rows, cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    r = tl.program_id(1) * BLOCK_R + tl.arange(0, BLOCK_R)[:, None]
    c = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)[None, :]
    mask = (r < rows) & (c < cols)
    tile = tl.load(x_ptr + r * cols + c, mask=mask)
    tl.store(out_ptr + c * rows + r, tile, mask=mask)


def transpose(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((cols, rows), dtype=x.dtype, device=x.device)
    BLOCK_R, BLOCK_C = 16, 64
    grid = (triton.cdiv(cols, BLOCK_C), triton.cdiv(rows, BLOCK_R))
    transpose_kernel[grid](x, out, rows, cols, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=2)
    return out
