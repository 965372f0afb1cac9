"""Pallas vadd with the output's index_map off by one block (`i + 1`): block 0 of the output is
never written, and the last program's output window lies past the end."""

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
        out_specs=pl.BlockSpec((BLOCK,), lambda i: (i + 1,)),
    )(x, y)
