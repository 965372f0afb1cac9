"""Prefix sums of row blocks: program i adds blocks 0..i, a `fori_loop` whose bound is traced
(it depends on the program id), so it is a jaxpr `while`, as in jax's gpu decode attention."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

ROWS = 8


def prefix_kernel(x_ref, o_ref):
    i = pl.program_id(0)

    def body(j, acc):
        return acc + x_ref[pl.ds(j * ROWS, ROWS), :]

    o_ref[...] = lax.fori_loop(0, i + 1, body, jnp.zeros((ROWS, x_ref.shape[1]), jnp.float32))


def prefix_blocks(x):
    rows, cols = x.shape
    return pl.pallas_call(prefix_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(rows // ROWS,),
                          in_specs=[pl.BlockSpec((rows, cols), lambda i: (0, 0))],
                          out_specs=pl.BlockSpec((ROWS, cols), lambda i: (i, 0)),
                          interpret=True)(x)
