"""A 2-D copy-and-scale in (8, 100) blocks: runs anywhere in the interpreter, but the last block dim
is neither a multiple of 128 (a TPU's lanes) nor a power of two (Pallas on Triton)."""

import jax
from jax.experimental import pallas as pl

BLOCK = (8, 100)


def scale_kernel(x_ref, out_ref):
    out_ref[...] = x_ref[...] * 2.0


def scale(x):
    rows, cols = x.shape
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, BLOCK[0]), pl.cdiv(cols, BLOCK[1])),
        in_specs=[pl.BlockSpec(BLOCK,
                               lambda i, j: (i, j))],
        out_specs=pl.BlockSpec(BLOCK, lambda i, j: (i, j)),
    )(x)
