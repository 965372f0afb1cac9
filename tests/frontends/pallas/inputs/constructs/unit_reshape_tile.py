"""A mask built as a column (`[:, None]`) and flattened back (`reshape(-1)`), as jax's gpu decode
attention masks its residual rows; a row statistic repeated along the lanes with `jnp.tile`."""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plgpu

BLOCK = 16


def rows_kernel(x_ref, o_ref, m_ref, *, n):
    mask = (jnp.arange(BLOCK) < n)[:, None]
    x = plgpu.load(x_ref, mask=mask, other=0.0)
    m = jnp.max(x, axis=1, keepdims=True)
    o_ref[...] = x - jnp.tile(m, (1, x.shape[1]))
    plgpu.store(m_ref.at[pl.ds(0, BLOCK)], m.reshape(-1), mask=mask.reshape(-1))


def rows_minus_max(x):
    return pl.pallas_call(functools.partial(rows_kernel, n=x.shape[0]),
                          out_shape=[jax.ShapeDtypeStruct(x.shape, x.dtype),
                                     jax.ShapeDtypeStruct(x.shape[:1], x.dtype)],
                          grid=(1,),
                          in_specs=[pl.BlockSpec((BLOCK, x.shape[1]), lambda i: (0, 0))],
                          out_specs=[pl.BlockSpec((BLOCK, x.shape[1]), lambda i: (0, 0)),
                                     pl.BlockSpec((BLOCK,), lambda i: (0,))])(x)
