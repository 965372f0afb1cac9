"""Triton port of rmsnorm.cu with a seeded bug: the sum of squares is accumulated in fp16. The row is
walked in chunks of 64 columns; each chunk's squares are rounded to fp16 and added into an fp16
accumulator (relative error ~2^-11 per rounding), reduced in fp32 only at the end. The source
accumulates in fp32; the accesses are the same."""

import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, rows, cols, CHUNK: tl.constexpr):
    base = tl.program_id(0) * cols
    acc = tl.zeros((CHUNK,), tl.float16)
    for c0 in range(0, cols, CHUNK):
        c = c0 + tl.arange(0, CHUNK)
        v = tl.load(x_ptr + base + c, mask=c < cols, other=0.0)
        acc += (v * v).to(tl.float16)
    inv = 1.0 / tl.sqrt(tl.sum(acc.to(tl.float32), axis=0) / cols + 1e-6)
    for c0 in range(0, cols, CHUNK):
        c = c0 + tl.arange(0, CHUNK)
        v = tl.load(x_ptr + base + c, mask=c < cols, other=0.0)
        g = tl.load(w_ptr + c, mask=c < cols, other=0.0)
        tl.store(out_ptr + base + c, v * inv * g, mask=c < cols)


def rmsnorm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    rmsnorm_kernel[(rows,)](x, w, out, rows, cols, CHUNK=64)
    return out
