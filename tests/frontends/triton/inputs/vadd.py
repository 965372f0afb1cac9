# Elementwise add: one masked load per input, one masked store, a 1-D grid over n.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    grid = (triton.cdiv(n, 1024),)
    add_kernel[grid](x, y, out, n, BLOCK=1024)
    return out

# CHECK: kernel.entry @add attributes {language = "triton", file = "{{.*}}vadd.py"}
# CHECK-NEXT: kernel.param {name = "x", kind = "buffer", role = "in", element_type = f32, shape = ["n"]}
# CHECK-NEXT: kernel.param {name = "y", kind = "buffer", role = "in", element_type = f32, shape = ["n"]}
# CHECK-NEXT: kernel.param {name = "return0", kind = "buffer", role = "out", element_type = f32, shape = ["n"], variable = "out"}
# CHECK-NEXT: kernel.launch @add_kernel {grid = ["floor((n + 1023)/1024)", "1", "1"], block = [], args = ["x", "y", "return0", "n"], num_warps = #builtin.int<4>} loc("{{.*}}vadd.py":21:0)
# CHECK: "tt.func"() <{{.*}}function_type = (!tt.ptr<f32>, !tt.ptr<f32>, !tt.ptr<f32>, i32) -> (), sym_name = "add_kernel"
# CHECK: "tt.get_program_id"() <{axis = 0 : i32}> : () -> i32 loc("{{.*}}vadd.py":9:11)
# CHECK: "tt.make_range"() <{end = 1024 : i32, start = 0 : i32}>
# CHECK: arith.cmpi(%{{.*}}, %{{.*}}) <{predicate = 2 : i64}> : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi1> loc("{{.*}}vadd.py":11:12)
# CHECK: "tt.load"(%{{.*}}, %{{.*}}) <{{.*}}> : (tensor<1024x!tt.ptr<f32>>, tensor<1024xi1>) -> tensor<1024xf32> loc("{{.*}}vadd.py":12:9)
# CHECK: "tt.store"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1024x!tt.ptr<f32>>, tensor<1024xf32>, tensor<1024xi1>) -> () loc("{{.*}}vadd.py":14:5)
# CHECK: "tt.return"
