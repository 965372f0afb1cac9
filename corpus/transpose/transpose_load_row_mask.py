"""Triton port of transpose.cu with a seeded bug: the load of the x tile is masked on rows only
(`r < rows`); the store uses the full mask. When cols % 32 != 0 the last tile column reads
x[r * cols + c] for c >= cols: column c is past the end of row r (dimension 1 of x out of bounds),
which lands in row r + 1, or past the end of x in the last row. Those lanes are not stored, so every
value of out is right and only the read is out of bounds."""

import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, rows, cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    r = tl.program_id(1) * BLOCK_R + tl.arange(0, BLOCK_R)[:, None]
    c = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)[None, :]
    tile = tl.load(x_ptr + r * cols + c, mask=r < rows)
    tl.store(out_ptr + c * rows + r, tile, mask=(r < rows) & (c < cols))


def transpose(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((cols, rows), dtype=x.dtype, device=x.device)
    BLOCK_R, BLOCK_C = 32, 32
    grid = (triton.cdiv(cols, BLOCK_C), triton.cdiv(rows, BLOCK_R))
    transpose_kernel[grid](x, out, rows, cols, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
    return out
