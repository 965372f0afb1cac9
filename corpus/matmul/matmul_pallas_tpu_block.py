"""JAX Pallas port of matmul.cu with 8 x 100 output blocks (100 columns per program, as a CUDA
launch might pick). The values are right, but a TPU cannot lower it: Mosaic needs the last two
block dims equal to the array's or divisible by 8 and 128, and 100 is neither (b's (K, 100) block
and the (8, 100) output block). Seeded bug: a block shape the target cannot lower (checked with
--platform tpu-v5e)."""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plgpu

BM, BN = 8, 100


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
                  pl.BlockSpec((kp, BN), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((BM, BN), lambda i, j: (i, j)),
    )(a, b)
