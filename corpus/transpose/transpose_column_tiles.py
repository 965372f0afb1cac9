"""Triton port of transpose.cu, correct but with an uncoalesced read: 1-D tiles, one column of x per
program row (grid cols x cdiv(rows, 128)). Each program reads 128 elements down column c of x
(x[r][c], stride cols between consecutive lanes: no tile dimension is contiguous, so no layout can
coalesce it) and writes them along row c of out (stride 1). The source's threadIdx.x reads x along
a row (stride 1) and writes out with stride rows. Same elements, same values."""

import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    c = tl.program_id(0)
    r = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = r < rows
    column = tl.load(x_ptr + r * cols + c, mask=mask)
    tl.store(out_ptr + c * rows + r, column, mask=mask)


def transpose(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((cols, rows), dtype=x.dtype, device=x.device)
    BLOCK = 128
    grid = (cols, triton.cdiv(rows, BLOCK))
    transpose_kernel[grid](x, out, rows, cols, BLOCK=BLOCK)
    return out
