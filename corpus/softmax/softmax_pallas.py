"""JAX Pallas port of softmax.cu: row softmax of x (rows, cols). Correct: each program takes 8 whole
rows in a (8, C) block, C = cols rounded up to a power of two (Pallas on Triton lowers only
power-of-two shapes); the padding columns are set to -inf before the max and the sum (they are
whatever the block's padding holds), so exp gives 0 there. Rows past `rows` in the last block are
padding and never stored."""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS = 8


def softmax_kernel(x_ref, out_ref, *, cols):
    x = x_ref[...]
    inside = jax.lax.broadcasted_iota(jnp.int32, x.shape, 1) < cols
    x = jnp.where(inside, x, -jnp.inf)
    e = jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
    out_ref[...] = e / jnp.sum(e, axis=1, keepdims=True)


def softmax(x):
    rows, cols = x.shape
    width = pl.next_power_of_2(cols)
    block = pl.BlockSpec((ROWS, width), lambda i: (i, 0))
    return pl.pallas_call(
        functools.partial(softmax_kernel, cols=cols),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, ROWS),),
        in_specs=[block],
        out_specs=block,
    )(x)
