# `lax.while_loop` on a condition on data inside a kernel: each program sums rows of its block while
# a running total stays below a limit read from a prefetched table. A TPU kernel (scalar prefetch),
# and the same loop in a kernel for any backend (the plain interpreter clamps, so not bounds-checked).
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def _capped_kernel(limits_ref, x_ref, o_ref):
    limit = limits_ref[pl.program_id(0)]

    def going(state):
        row, total = state
        return jnp.logical_and(row < x_ref.shape[0], total < limit)

    def step(state):
        row, total = state
        return row + 1, total + x_ref[row, 0]

    _, total = lax.while_loop(going, step, (0, jnp.float32(0)))
    o_ref[...] = jnp.full(o_ref.shape, total, o_ref.dtype)


def capped_sums(limits, x):
    blocks = limits.shape[0]
    return pl.pallas_call(
        _capped_kernel,
        out_shape=jax.ShapeDtypeStruct((blocks * 8, 128), x.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1, grid=(blocks,),
            in_specs=[pl.BlockSpec((8, 128), lambda i, limits: (i, 0))],
            out_specs=pl.BlockSpec((8, 128), lambda i, limits: (i, 0))),
    )(limits, x)
