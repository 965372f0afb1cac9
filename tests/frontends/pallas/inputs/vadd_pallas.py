"""Pallas port of corpus/vector_add/vadd.cu: out = x + y, one 256-element block per program.
Correct: the grid is cdiv(n, 256); the last block's elements past n are Pallas padding."""

import jax
from jax.experimental import pallas as pl

BLOCK = 256


def vadd_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def vadd(x, y):
    spec = pl.BlockSpec((BLOCK,), lambda i: (i,))
    return pl.pallas_call(
        vadd_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(x.shape[0], BLOCK),),
        in_specs=[spec, spec],
        out_specs=spec,
        interpret=True,
    )(x, y)
