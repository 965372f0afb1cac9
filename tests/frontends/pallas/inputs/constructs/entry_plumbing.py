"""What an entry does around its pallas_call: it flattens x (rows, cols) to (rows * cols / 128,
128) for the kernel and reshapes the result back, hands x back as a residual, and returns a value
it computes itself from the kernel's output."""

import jax
from jax.experimental import pallas as pl


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def double(x):
    flat = x.reshape(-1, 128)
    spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
    out = pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(flat.shape, flat.dtype),
                         grid=(flat.shape[0] // 8,), in_specs=[spec], out_specs=spec, interpret=True)(flat)
    return out.reshape(x.shape), x, out.sum()
