"""vmem_big.py with the kernel's VMEM limit raised to 64 MiB (pltpu.CompilerParams): 24 MiB fits."""

import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

BLOCK = 1 << 20


def add_kernel(x_ref, y_ref, out_ref):
    out_ref[...] = x_ref[...] + y_ref[...]


def add(x, y):
    block = pl.BlockSpec((BLOCK,), lambda i: (i,))
    return pl.pallas_call(
        add_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(x.shape[0], BLOCK),),
        in_specs=[block, block],
        out_specs=block,
        compiler_params=pltpu.CompilerParams(vmem_limit_bytes=64 * 2**20),
    )(x, y)
