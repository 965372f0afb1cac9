"""Triton port of transpose.cu with a seeded bug: the grid's rows dimension is `rows // BLOCK_R`
instead of cdiv (the columns dimension is right), so when rows % 32 != 0 the last rows % 32 rows of x
are never transposed: out[c][r] for r >= 32 * (rows // 32) keeps whatever it held (all of out when
rows < 32). Every access is masked and in bounds."""

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
    BLOCK_R, BLOCK_C = 32, 32
    grid = (triton.cdiv(cols, BLOCK_C), rows // BLOCK_R)
    transpose_kernel[grid](x, out, rows, cols, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
    return out
