# An early return in a helper Triton does not inline: the helper returns a value from two places,
# so its scf.if yields the value each path returns, and the helper returns the scf.if's result.
import torch
import triton
import triton.language as tl


@triton.jit(noinline=True)
def clipped_scale(row, limit):
    if row >= limit:
        return 0.0
    return 2.0


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, limit, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = row * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, x * clipped_scale(row, limit), mask=offs < n)


def scale(x, limit):
    out = torch.empty_like(x)
    scale_kernel[(triton.cdiv(x.shape[0], 256),)](x, out, x.shape[0], limit, BLOCK=256)
    return out

# CHECK: "tt.call"(%row, %limit) <{callee = @{{.*}}clipped_scale{{.*}}}> : (i32, i32) -> f32
# CHECK: "tt.func"() <{function_type = (i32, i32) -> f32, sym_name = "{{.*}}clipped_scale{{.*}}"
# CHECK-NOT: "cf.
# CHECK: [[PICKED:%[0-9]+]] = scf.if %{{[0-9]+}} -> (f32) {
# CHECK: "tt.return"([[PICKED]]) : (f32) -> ()
