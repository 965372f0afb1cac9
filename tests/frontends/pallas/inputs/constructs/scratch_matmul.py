"""A blocked matmul with an accumulator in a scratch buffer (`scratch_shapes=[pltpu.VMEM(...)]`),
as jax's tpu matmul: zeroed at the first k step, accumulated, copied to the output."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

BM, BN, BK = 16, 16, 32


def matmul_kernel(a_ref, b_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(2) == 0)
    def init():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)
    o_ref[...] = acc_ref[...]


def matmul(a, b):
    m, k = a.shape
    n = b.shape[1]
    return pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), a.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=0,
            grid=(m // BM, n // BN, k // BK),
            in_specs=[pl.BlockSpec((BM, BK), lambda i, j, kk: (i, kk)),
                      pl.BlockSpec((BK, BN), lambda i, j, kk: (kk, j))],
            out_specs=pl.BlockSpec((BM, BN), lambda i, j, kk: (i, j)),
            scratch_shapes=[pltpu.VMEM((BM, BN), jnp.float32)],
        ),
        interpret=True,
    )(a, b)
