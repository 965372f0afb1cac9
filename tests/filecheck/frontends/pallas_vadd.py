# RUN: lowercheck lower %s --emit access --no-loc | filecheck %s
# A Pallas vector add at n = 1000 (`lower` fixes untyped sizes at 1000): the BlockSpec window
# 256*i composed with the block's one lane; 1000 is no multiple of 256, so the last block is padded
# and every access is guarded by the array's extent. The store reads both loads.

import jax
from jax.experimental import pallas as pl


def vadd_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def vadd(x, y):
    spec = pl.BlockSpec((256,), lambda i: (i,))
    return pl.pallas_call(vadd_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(pl.cdiv(x.shape[0], 256),), in_specs=[spec, spec], out_specs=spec)(x, y)

# CHECK:      kernel.entry @vadd attributes {language = "pallas"
# CHECK:      kernel.param {name = "return0", kind = "buffer", role = "out", element_type = f32, shape = ["n"]}
# CHECK-NEXT: kernel.launch @vadd_kernel {grid = ["4", "1", "1"], block = [], args = ["x", "y", "return0"]}
# CHECK:      access.kernel @vadd_kernel attributes {grid = ["4", "1", "1"]}
# CHECK-NEXT: access.access {buffer = "x", kind = "read", space = "global", element_type = f32, indices = ["256*GRID0 + [[L:LANE[0-9]+]]"], domain = ["[[L]] < 256"], guard = ["256*GRID0 + [[L]] < 1000"], fastest = "[[L]]", id = "[[X:r[0-9]+]]", sources = []
# CHECK-NEXT: access.access {buffer = "y", kind = "read", {{.*}} indices = ["256*GRID0 + [[L]]"], domain = ["[[L]] < 256"], guard = ["256*GRID0 + [[L]] < 1000"], fastest = "[[L]]", id = "[[Y:r[0-9]+]]"
# CHECK-NEXT: access.access {buffer = "return0", kind = "write", {{.*}} indices = ["256*GRID0 + [[L]]"], domain = ["[[L]] < 256"], guard = ["256*GRID0 + [[L]] < 1000"], {{.*}} sources = ["[[X]]", "[[Y]]"]
