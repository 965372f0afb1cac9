"""A copy over a four-axis grid (batch, heads, row blocks, column blocks), as jax's tpu flash
attention launches: one (8, 128) tile per program."""

import jax
from jax.experimental import pallas as pl


def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def copy4(x):
    batch, heads, rows, cols = x.shape
    spec = pl.BlockSpec((None, None, 8, 128), lambda b, h, i, j: (b, h, i, j))
    return pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(batch, heads, rows // 8, cols // 128), in_specs=[spec], out_specs=spec,
                          interpret=True)(x)
