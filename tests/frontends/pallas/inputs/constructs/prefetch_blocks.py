"""Scalar prefetch (`PrefetchScalarGridSpec`): the index_map of x reads which row block each
program copies from the prefetched `order`, and the body scales by the prefetched `scale[i]`."""

import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def permute_kernel(order_ref, scale_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * scale_ref[pl.program_id(0)]


def permute_rows(order, scale, x):
    return pl.pallas_call(
        permute_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=2,
            grid=(x.shape[0] // 8,),
            in_specs=[pl.BlockSpec((8, 128), lambda i, order, scale: (order[i], 0))],
            out_specs=pl.BlockSpec((8, 128), lambda i, order, scale: (i, 0)),
        ),
        interpret=True,
    )(order, scale, x)
