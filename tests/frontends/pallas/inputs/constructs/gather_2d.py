"""Column sums over blocks of rows, as jax's gpu layer_norm backward reduces dw: a 2-D gather
`x_ref.at[rows[:, None], cols[None, :]]`, the two index arrays broadcast to one (rows, cols) tile."""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plgpu


def colsum_kernel(x_ref, o_ref, *, block_m, block_n):
    m, n = x_ref.shape
    cols = pl.program_id(0) * block_n + jnp.arange(block_n)
    col_mask = cols < n

    def body(i, acc):
        rows = i * block_m + jnp.arange(block_m)
        mask = (rows < m)[:, None] & col_mask[None, :]
        x = plgpu.load(x_ref.at[rows[:, None], cols[None, :]], mask=mask, other=0.0)
        return acc + x

    acc = lax.fori_loop(0, pl.cdiv(m, block_m), body, jnp.zeros((block_m, block_n), jnp.float32))
    plgpu.store(o_ref.at[cols], acc.sum(axis=0), mask=col_mask)


def colsum(x):
    block_m, block_n = 16, 32
    return pl.pallas_call(functools.partial(colsum_kernel, block_m=block_m, block_n=block_n),
                          grid=(pl.cdiv(x.shape[1], block_n),),
                          out_shape=jax.ShapeDtypeStruct(x.shape[1:], x.dtype))(x)
