"""Triton port of softmax.cu, different-looking but correct: one program per row walking it in chunks
of 64 columns, three passes (row max, sum of exp(x - max), normalised store), like the CUDA lanes'
strided loops; exp written as exp2 of x * log2(e)."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_chunked_kernel(x_ptr, out_ptr, rows, cols, CHUNK: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row * cols
    m = tl.full((CHUNK,), float("-inf"), tl.float32)
    for c0 in range(0, cols, CHUNK):
        c = c0 + tl.arange(0, CHUNK)
        m = tl.maximum(m, tl.load(base + c, mask=c < cols, other=float("-inf")))
    row_max = tl.max(m, axis=0)
    s = tl.zeros((CHUNK,), tl.float32)
    for c0 in range(0, cols, CHUNK):
        c = c0 + tl.arange(0, CHUNK)
        x = tl.load(base + c, mask=c < cols, other=float("-inf"))
        s += tl.exp2((x - row_max) * 1.4426950408889634)
    total = tl.sum(s, axis=0)
    for c0 in range(0, cols, CHUNK):
        c = c0 + tl.arange(0, CHUNK)
        x = tl.load(base + c, mask=c < cols, other=0.0)
        tl.store(out_ptr + row * cols + c, tl.exp2((x - row_max) * 1.4426950408889634) / total, mask=c < cols)


def softmax(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    softmax_chunked_kernel[(rows,)](x, out, rows, cols, CHUNK=64)
    return out
