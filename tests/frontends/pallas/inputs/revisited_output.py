"""Column blocks of `x` summed into one output block that every step along the second grid axis
revisits (as jax's TPU matmul accumulates along k). `block_sums` declares that axis "arbitrary":
a TPU core runs its steps in order, so the rewrites of the block are one work item's. `block_sums_parallel`
declares it "parallel": its steps may run at once, and they write the same block."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def sum_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += x_ref[...]


def _call(x, semantics):
    rows, cols = x.shape
    return pl.pallas_call(sum_kernel, out_shape=jax.ShapeDtypeStruct((rows, 128), x.dtype),
                          grid=(rows // 8, cols // 128),
                          in_specs=[pl.BlockSpec((8, 128), lambda i, k: (i, k))],
                          out_specs=pl.BlockSpec((8, 128), lambda i, k: (i, 0)),
                          compiler_params=pltpu.CompilerParams(dimension_semantics=semantics),
                          interpret=True)(x)


def block_sums(x):
    return _call(x, ("parallel", "arbitrary"))


def block_sums_parallel(x):
    return _call(x, ("parallel", "parallel"))
