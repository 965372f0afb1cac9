# RUN: lowercheck lower %s --emit access --no-loc | filecheck %s
# A Pallas matmul at m = k = n = 1000 with a K loop inside the kernel: 16 x 16 output blocks, a
# (16, 1008) strip of `a` and a (1008, 16) strip of `b` (K rounded up to whole steps: 1008 is
# padding past 1000, masked), read 16 columns / rows per trip of the loop (SEQ0). The output's row
# lane is `a`'s row lane, its column lane is `b`'s column lane, and the K lanes are the loop's own:
# the store depends on a whole row of `a` and a whole column of `b`.

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plgpu


def matmul_kernel(a_ref, b_ref, o_ref, *, k, steps):
    def step(s, acc):
        cols = s * 16 + jax.lax.broadcasted_iota(jnp.int32, (16, 16), 1)
        a = plgpu.load(a_ref.at[:, pl.ds(s * 16, 16)], mask=cols < k, other=0.0)
        rows = s * 16 + jax.lax.broadcasted_iota(jnp.int32, (16, 16), 0)
        b = plgpu.load(b_ref.at[pl.ds(s * 16, 16), :], mask=rows < k, other=0.0)
        return acc + jnp.dot(a, b, preferred_element_type=jnp.float32)

    o_ref[...] = jax.lax.fori_loop(0, steps, step, jnp.zeros((16, 16), jnp.float32))


def matmul(a, b):
    m, k = a.shape
    n = b.shape[1]
    steps = pl.cdiv(k, 16)
    return pl.pallas_call(
        functools.partial(matmul_kernel, k=k, steps=steps),
        out_shape=jax.ShapeDtypeStruct((m, n), a.dtype),
        grid=(pl.cdiv(m, 16), pl.cdiv(n, 16)),
        in_specs=[pl.BlockSpec((16, steps * 16), lambda i, j: (i, 0)),
                  pl.BlockSpec((steps * 16, 16), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((16, 16), lambda i, j: (i, j)),
    )(a, b)

# CHECK:      kernel.launch @matmul_kernel {grid = ["63", "63", "1"], block = [], args = ["a", "b", "return0"]}
# CHECK:      access.kernel @matmul_kernel attributes {grid = ["63", "63", "1"]}
# CHECK-NEXT: access.access {buffer = "a", kind = "read", {{.*}} indices = ["16000*GRID0 + [[AK:LANE[0-9]+]] + 1000*[[ROW:LANE[0-9]+]] + 16*SEQ0"], domain = ["SEQ0 < 63", {{.*}}], guard = ["(16*GRID0 + [[ROW]] < 1000) & ([[AK]] + 16*SEQ0 < 1000)"], fastest = "[[AK]]", id = "[[A:r[0-9]+]]"
# CHECK-NEXT: access.access {buffer = "b", kind = "read", {{.*}} indices = ["16*GRID1 + 1000*[[BK:LANE[0-9]+]] + [[COL:LANE[0-9]+]] + 16000*SEQ0"], domain = ["SEQ0 < 63", {{.*}}], guard = ["(16*GRID1 + [[COL]] < 1000) & ([[BK]] + 16*SEQ0 < 1000)"], fastest = "[[COL]]", id = "[[B:r[0-9]+]]"
# CHECK-NEXT: access.access {buffer = "return0", kind = "write", {{.*}} indices = ["16000*GRID0 + 16*GRID1 + 1000*[[ROW]] + [[COL]]"], domain = ["[[ROW]] < 16", "[[COL]] < 16"], guard = ["(16*GRID0 + [[ROW]] < 1000) & (16*GRID1 + [[COL]] < 1000)"], fastest = "[[COL]]", id = "w0", sources = ["[[A]]{{(/LANE[0-9]+)?}}", "[[B]]{{(/LANE[0-9]+)?}}"]
