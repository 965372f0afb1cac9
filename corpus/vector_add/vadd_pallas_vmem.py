"""JAX Pallas port of vadd.cu with one huge block per program: 2^20 elements (4 MiB of float32).
Correct values, but on a TPU Pallas double-buffers each of the three blocks (x, y, out) in VMEM:
2 x 3 x 4 MiB = 24 MiB, past the 16 MiB a v5e kernel gets by default. Seeded bug: a VMEM budget
overrun (checked with --platform tpu-v5e)."""

import jax
from jax.experimental import pallas as pl

BLOCK = 1 << 20


def vadd_kernel(x_ref, y_ref, out_ref):
    out_ref[...] = x_ref[...] + y_ref[...]


def vadd(x, y):
    n = x.shape[0]
    block = pl.BlockSpec((BLOCK,), lambda i: (i,))
    return pl.pallas_call(
        vadd_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(n, BLOCK),),
        in_specs=[block, block],
        out_specs=block,
    )(x, y)
