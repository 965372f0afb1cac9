"""Operands the entry computes before its pallas_call, as jax's megablox `gmm` sums its group sizes
and the TPU paged attention broadcasts its lengths: a row sum and a transpose, each a new array the
kernel reads (not a view of an entry parameter)."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def scale_kernel(xt_ref, s_ref, o_ref):
    o_ref[...] = xt_ref[...] * s_ref[...]


def scale_columns(x):
    rows, cols = x.shape
    sums = jnp.sum(x, axis=0)  # reduce_sum: one value per column of x, a row of x.T
    xt = x.T  # transpose: not the row-major order of x
    block = pl.BlockSpec((8, rows), lambda i: (i, 0))
    return pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct((cols, rows), x.dtype),
                          grid=(cols // 8,), in_specs=[block, pl.BlockSpec((8, 1), lambda i: (i, 0))],
                          out_specs=block, interpret=True)(xt, sums[:, None])
