"""JAX Pallas port of saxpy.cu: out = a * x + y. Correct: `a` is closed over by the kernel (a traced
scalar, as the wrapper receives it), a 1-D grid of cdiv(n, 256) programs, one 256-element block
each; the last block's elements past n are padding that is never stored."""

import jax
from jax.experimental import pallas as pl

BLOCK = 256


def saxpy(a: float, x, y):
    n = x.shape[0]

    def saxpy_kernel(x_ref, y_ref, out_ref):
        out_ref[...] = a * x_ref[...] + y_ref[...]

    block = pl.BlockSpec((BLOCK,), lambda i: (i,))
    return pl.pallas_call(
        saxpy_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(n, BLOCK),),
        in_specs=[block, block],
        out_specs=block,
    )(x, y)
