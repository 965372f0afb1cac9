"""Legal (8, 128) blocks, but the kernel loads with Pallas-on-Triton's masked `plgpu.load`, which
the TPU lowering (Mosaic) has no rule for."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plgpu


def masked_kernel(x_ref, out_ref):
    keep = jax.lax.broadcasted_iota(jnp.int32, x_ref.shape, 1) < 100
    out_ref[...] = plgpu.load(x_ref, mask=keep, other=0.0)


def masked(x):
    block = pl.BlockSpec((8, 128), lambda i: (i, 0))
    return pl.pallas_call(
        masked_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(x.shape[0], 8),),
        in_specs=[block],
        out_specs=block,
    )(x)
