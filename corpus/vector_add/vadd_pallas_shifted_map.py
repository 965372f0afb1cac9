"""JAX Pallas port of vadd.cu. Seeded bug: x's index_map is off by one block (`i + 1`): program i
adds block i + 1 of x to block i of y, so out[j] = x[j + 1024] + y[j], and the last program's x
window lies past the end of x."""

import jax
from jax.experimental import pallas as pl

BLOCK = 1024


def vadd_kernel(x_ref, y_ref, out_ref):
    out_ref[...] = x_ref[...] + y_ref[...]


def vadd(x, y):
    n = x.shape[0]
    block = pl.BlockSpec((BLOCK,), lambda i: (i,))
    return pl.pallas_call(
        vadd_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(n, BLOCK),),
        in_specs=[pl.BlockSpec((BLOCK,), lambda i: (i + 1,)), block],
        out_specs=block,
    )(x, y)
