import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(in_ptr, out_ptr, rows, cols, B: tl.constexpr):
    pr = tl.program_id(0)
    pc = tl.program_id(1)
    r = pr * B + tl.arange(0, B)
    c = pc * B + tl.arange(0, B)
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    tile = tl.load(in_ptr + r[:, None] * cols + c[None, :], mask=mask)
    tl.store(out_ptr + c[None, :] * rows + r[:, None], tile, mask=mask)


def transpose(x):
    rows, cols = x.shape
    out = torch.empty((cols, rows), dtype=x.dtype)
    grid = (triton.cdiv(rows, 32), triton.cdiv(cols, 32))
    transpose_kernel[grid](x, out, rows, cols, B=32)
    return out
