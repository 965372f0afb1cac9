"""JAX Pallas port of vadd.cu: out = x + y. Correct: a 1-D grid of cdiv(n, 1024) programs, each
adding one 1024-element block; the last block's elements past n are Pallas padding (never stored).
1024 is a power of two (Pallas on Triton) and a multiple of 8 x 128 (a TPU's tiling)."""

import jax
from jax.experimental import pallas as pl

BLOCK = 1024


def vadd_kernel(x_ref, y_ref, out_ref):
    out_ref[...] = x_ref[...] + y_ref[...]


def vadd(x, y):
    n = x.shape[0]
    block = pl.BlockSpec((BLOCK,), lambda i: (i,))
    return pl.pallas_call(
        vadd_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(n, BLOCK),),
        in_specs=[block, block],
        out_specs=block,
    )(x, y)
