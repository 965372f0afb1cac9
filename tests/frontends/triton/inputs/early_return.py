# Early returns: Triton writes `if cond: return` at a function's top level as branches between blocks
# (cf.cond_br, cf.br with the merged `scale`); the front end reads them as nested scf.if. The rows
# past `rows` return at once; a scaled row with no columns returns inside the first `if`, so the
# load and store after the merge are copied onto both paths, each with the `scale` of its path.
import torch
import triton
import triton.language as tl


@triton.jit
def scale_rows(x_ptr, out_ptr, rows, cols, first_scaled, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    if row >= rows:
        return
    scale = 1.0
    if row >= first_scaled:
        if cols == 0:
            return
        scale = 2.0
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask)
    tl.store(out_ptr + row * cols + offs, x * scale, mask=mask)


def scale(x, first_scaled):
    rows, cols = x.shape
    out = torch.empty_like(x)
    scale_rows[(rows + 1,)](x, out, rows, cols, first_scaled, BLOCK=1024)
    return out

# CHECK: kernel.launch @scale_rows {grid = ["rows + 1", "1", "1"]
# CHECK: [[TWO:%[0-9]+]] = arith.constant 2.000000e+00 : f32
# CHECK: [[ONE:%[0-9]+]] = arith.constant 1.000000e+00 : f32
# CHECK-NOT: "cf.
# CHECK: scf.if
# CHECK-NEXT: } else {
# CHECK: scf.if
# CHECK: scf.if
# CHECK-NEXT: } else {
# CHECK: "tt.splat"([[TWO]])
# CHECK: "tt.store"
# CHECK: } else {
# CHECK: "tt.splat"([[ONE]])
# CHECK: "tt.store"
# CHECK: "tt.return"() : () -> () loc("{{.*}}early_return.py":11:1)
# CHECK-NOT: ^bb
