"""Triton port of reduce_sum.cu with a seeded bug: each 256-tile is accumulated in fp16. The program
walks its tile in 4 chunks of 64, adds each chunk (rounded to fp16) into an fp16 accumulator, and
reduces the 64 fp16 partial sums in fp32 at the end; the source sums in fp32 throughout. Every
partial sum loses ~11 bits (relative error ~2^-11 per rounding); the accesses are the source's."""

import torch
import triton
import triton.language as tl


@triton.jit
def reduce_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, CHUNK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros((CHUNK,), dtype=tl.float16)
    for start in range(0, BLOCK, CHUNK):
        offs = pid * BLOCK + start + tl.arange(0, CHUNK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float16)
    tl.store(out_ptr + pid, tl.sum(acc.to(tl.float32), axis=0))


def reduce_sum(x: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    BLOCK = 256  # one output per 256 inputs, as in the source
    n_out = triton.cdiv(n, BLOCK)
    out = torch.empty(n_out, dtype=x.dtype, device=x.device)
    reduce_sum_kernel[(n_out,)](x, out, n, BLOCK=BLOCK, CHUNK=64)
    return out
