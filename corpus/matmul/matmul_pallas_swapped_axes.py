"""JAX Pallas port of matmul.cu. Seeded bug: b's BlockSpec takes the wrong grid axis: its index_map
returns (0, i) (the row-block axis) instead of (0, j), so output block (i, j) multiplies a's row
strip i by b's column strip i: every output element is computed from other columns of b than
a @ b's (and where m > n, b's window for the last row blocks lies past its columns)."""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plgpu

BM, BN = 32, 32


def matmul_kernel(a_ref, b_ref, out_ref, *, k):
    a = plgpu.load(a_ref, mask=jax.lax.broadcasted_iota(jnp.int32, a_ref.shape, 1) < k, other=0.0)
    b = plgpu.load(b_ref, mask=jax.lax.broadcasted_iota(jnp.int32, b_ref.shape, 0) < k, other=0.0)
    out_ref[...] = jnp.dot(a, b, precision=jax.lax.Precision.HIGHEST, preferred_element_type=jnp.float32)


def matmul(a, b):
    m, k = a.shape
    n = b.shape[1]
    kp = pl.next_power_of_2(k)
    return pl.pallas_call(
        functools.partial(matmul_kernel, k=k),
        out_shape=jax.ShapeDtypeStruct((m, n), a.dtype),
        grid=(pl.cdiv(m, BM), pl.cdiv(n, BN)),
        in_specs=[pl.BlockSpec((BM, kp), lambda i, j: (i, 0)),
                  pl.BlockSpec((kp, BN), lambda i, j: (0, i))],
        out_specs=pl.BlockSpec((BM, BN), lambda i, j: (i, j)),
    )(a, b)
