# saxpy: a float scalar reaches the kernel as an f32 argument named after the wrapper's parameter.
import torch
import triton
import triton.language as tl


@triton.jit
def saxpy_kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * x + y, mask=mask)


def saxpy(a, x, y, out, n):
    saxpy_kernel[(triton.cdiv(n, 256),)](x, y, out, a, n, BLOCK=256)

# CHECK: kernel.entry @saxpy
# CHECK-NEXT: kernel.param {name = "a", kind = "scalar", role = "scalar", element_type = f32, shape = []}
# CHECK-NEXT: kernel.param {name = "x", kind = "buffer", role = "in", element_type = f32, shape = ["n"]}
# CHECK-NEXT: kernel.param {name = "y", kind = "buffer", role = "in", element_type = f32, shape = ["n"]}
# CHECK-NEXT: kernel.param {name = "out", kind = "buffer", role = "out", element_type = f32, shape = ["n"]}
# CHECK-NEXT: kernel.param {name = "n", kind = "scalar", role = "size", element_type = i32, shape = []}
# CHECK-NEXT: kernel.launch @saxpy_kernel {grid = ["floor((n + 255)/256)", "1", "1"], block = [], args = ["x", "y", "out", "a", "n"]
# CHECK: function_type = (!tt.ptr<f32>, !tt.ptr<f32>, !tt.ptr<f32>, f32, i32) -> ()
# CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<256xf32> loc("{{.*}}saxpy.py":13:30)
