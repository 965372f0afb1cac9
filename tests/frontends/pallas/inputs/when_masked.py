"""pl.when, a masked plgpu.load/store, a scalar store and an integer index into a squeezed block
dimension (`None` in the BlockSpec): the constructs beyond plain `ref[...]`."""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plgpu


def rows_kernel(x_ref, o_ref, s_ref, *, cols):
    i = pl.program_id(0)
    offs = jax.lax.broadcasted_iota(jnp.int32, (128,), 0)
    x = plgpu.load(x_ref, mask=offs < cols, other=0.0)

    @pl.when(i % 2 == 0)
    def _():
        plgpu.store(o_ref, x * 2.0, mask=offs < cols)

    s_ref[0] = jnp.sum(x)


def rows(x):
    n_rows, cols = x.shape
    return pl.pallas_call(
        functools.partial(rows_kernel, cols=cols),
        out_shape=(jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct((n_rows, 1), x.dtype)),
        grid=(n_rows,),
        in_specs=[pl.BlockSpec((None, 128), lambda i: (i, 0))],
        out_specs=(pl.BlockSpec((None, 128), lambda i: (i, 0)), pl.BlockSpec((None, 1), lambda i: (i, 0))),
    )(x)
