"""Triton port of transpose.cu, different-looking but correct: a 1-D grid over tiles of the output
(16 rows of out x 64 columns of out), the tile index split into (tile row, tile column) by division,
and the load written through tl.trans of a tile read in x's own orientation."""

import torch
import triton
import triton.language as tl


@triton.jit
def transpose_out_tiles_kernel(x_ptr, out_ptr, rows, cols, BLOCK_OR: tl.constexpr, BLOCK_OC: tl.constexpr):
    pid = tl.program_id(0)
    tiles_oc = tl.cdiv(rows, BLOCK_OC)  # out has `rows` columns
    orow0 = (pid // tiles_oc) * BLOCK_OR  # first row of out = first column of x
    ocol0 = (pid % tiles_oc) * BLOCK_OC  # first column of out = first row of x
    xr = ocol0 + tl.arange(0, BLOCK_OC)[:, None]  # rows of x
    xc = orow0 + tl.arange(0, BLOCK_OR)[None, :]  # columns of x
    tile = tl.load(x_ptr + xr * cols + xc, mask=(xr < rows) & (xc < cols))  # (BLOCK_OC, BLOCK_OR)
    orow = orow0 + tl.arange(0, BLOCK_OR)[:, None]
    ocol = ocol0 + tl.arange(0, BLOCK_OC)[None, :]
    tl.store(out_ptr + orow * rows + ocol, tl.trans(tile), mask=(orow < cols) & (ocol < rows))


def transpose(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((cols, rows), dtype=x.dtype, device=x.device)
    BLOCK_OR, BLOCK_OC = 16, 64
    grid = (triton.cdiv(cols, BLOCK_OR) * triton.cdiv(rows, BLOCK_OC),)
    transpose_out_tiles_kernel[grid](x, out, rows, cols, BLOCK_OR=BLOCK_OR, BLOCK_OC=BLOCK_OC)
    return out
