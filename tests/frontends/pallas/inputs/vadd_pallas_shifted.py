"""Pallas port of corpus/vector_add/vadd.cu. Seeded bug: x's index_map is off by one block
(`i + 1`), so program i adds block i + 1 of x to block i of y, and the last program's x window
lies past the end of x."""

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
        in_specs=[pl.BlockSpec((BLOCK,), lambda i: (i + 1,)), spec],
        out_specs=spec,
        interpret=True,
    )(x, y)
