"""A Pallas kernel with a construct lowercheck does not model: a cumulative sum of a block."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def cumsum_kernel(x_ref, o_ref):
    o_ref[...] = jnp.cumsum(x_ref[...])


def cumsum(x):
    spec = pl.BlockSpec((128,), lambda i: (i,))
    return pl.pallas_call(cumsum_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(pl.cdiv(x.shape[0], 128),), in_specs=[spec], out_specs=spec)(x)
