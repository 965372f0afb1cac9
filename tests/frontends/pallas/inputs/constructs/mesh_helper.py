"""An entry whose pallas_call output goes through a helper that launches a TPU mesh kernel
(`pl.kernel` with `pltpu.sync_copy`): the launch is found in the trace."""

import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def copy_on_mesh(x):
    mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)

    @pl.kernel(out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), mesh=mesh)
    def kernel(x_ref, o_ref):
        pltpu.sync_copy(x_ref, o_ref)

    return kernel(x)


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def double_then_copy(x):
    doubled = pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
    return copy_on_mesh(doubled)
