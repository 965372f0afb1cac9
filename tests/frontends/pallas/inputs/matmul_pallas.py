"""Pallas port of corpus/matmul/matmul.cu: out = a @ b, a (m, k), b (k, n), fp32. Correct: a 2-D
grid of 16 x 16 output blocks; each program holds a 16-row strip of a and a 16-column strip of b,
K rounded up to a whole number of 16-wide steps (the padding is masked to zero), and loops over K."""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plgpu

BM, BN, BK = 16, 16, 16


def matmul_kernel(a_ref, b_ref, o_ref, *, k, steps):
    def step(s, acc):
        cols = s * BK + jax.lax.broadcasted_iota(jnp.int32, (BM, BK), 1)
        a = plgpu.load(a_ref.at[:, pl.ds(s * BK, BK)], mask=cols < k, other=0.0)
        rows = s * BK + jax.lax.broadcasted_iota(jnp.int32, (BK, BN), 0)
        b = plgpu.load(b_ref.at[pl.ds(s * BK, BK), :], mask=rows < k, other=0.0)
        return acc + jnp.dot(a, b, precision=jax.lax.Precision.HIGHEST, preferred_element_type=jnp.float32)

    o_ref[...] = jax.lax.fori_loop(0, steps, step, jnp.zeros((BM, BN), jnp.float32))


def matmul(a, b):
    m, k = a.shape
    n = b.shape[1]
    steps = pl.cdiv(k, BK)
    return pl.pallas_call(
        functools.partial(matmul_kernel, k=k, steps=steps),
        out_shape=jax.ShapeDtypeStruct((m, n), a.dtype),
        grid=(pl.cdiv(m, BM), pl.cdiv(n, BN)),
        in_specs=[pl.BlockSpec((BM, steps * BK), lambda i, j: (i, 0)),
                  pl.BlockSpec((steps * BK, BN), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((BM, BN), lambda i, j: (i, j)),
        interpret=True,
    )(a, b)
