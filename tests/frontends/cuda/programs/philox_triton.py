"""Triton's own Philox-4x32-10 (`tl.philox`), run by its interpreter: the independent implementation
the CUDA front end's cuRAND model (include/curand_kernel.h) is checked against."""

import torch
import triton
import triton.language as tl


@triton.jit
def _blocks(out, seed, c0, c1, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    zero = tl.zeros([BLOCK], dtype=tl.uint32)
    # block i: counter (c0, c1, i, 0) under the key `seed`
    a, b, c, d = tl.philox(seed, zero + c0, zero + c1, i.to(tl.uint32), zero)
    mask = i < n
    tl.store(out + 4 * i, a, mask=mask)
    tl.store(out + 4 * i + 1, b, mask=mask)
    tl.store(out + 4 * i + 2, c, mask=mask)
    tl.store(out + 4 * i + 3, d, mask=mask)


def philox_blocks(out: torch.Tensor, seed: int, c0: int, c1: int, n: int) -> None:
    _blocks[(triton.cdiv(n, 64),)](out, seed, c0, c1, n, BLOCK=64)
