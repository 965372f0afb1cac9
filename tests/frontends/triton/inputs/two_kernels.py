# Two launches through a scratch tensor: the scratch is a temp, the result return0.
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


@triton.jit
def accumulate_kernel(x_ptr, acc_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.load(acc_ptr + offs, mask=mask)
    tl.store(acc_ptr + offs, acc + tl.load(x_ptr + offs, mask=mask), mask=mask)


def scale_twice(x, acc):
    n = x.numel()
    tmp = torch.empty_like(x)
    out = torch.empty_like(x)
    scale_kernel[(triton.cdiv(n, 128),)](x, tmp, n, BLOCK=128)
    scale_kernel[(triton.cdiv(n, 128),)](tmp, out, n, BLOCK=128)
    accumulate_kernel[(triton.cdiv(n, 64),)](out, acc, n, BLOCK=64)
    return out

# CHECK: kernel.entry @scale_twice
# CHECK-NEXT: kernel.param {name = "x", kind = "buffer", role = "in", element_type = f32, shape = ["n"]}
# CHECK-NEXT: kernel.param {name = "acc", kind = "buffer", role = "inout", element_type = f32, shape = ["n"]}
# CHECK-NEXT: kernel.param {name = "return0", kind = "buffer", role = "out", element_type = f32, shape = ["n"], variable = "out"}
# CHECK-NEXT: kernel.param {name = "temp0", kind = "buffer", role = "temp", element_type = f32, shape = ["n"]}
# CHECK-NEXT: kernel.launch @scale_kernel {grid = ["floor((n + 127)/128)", "1", "1"], block = [], args = ["x", "temp0", "n"]
# CHECK-NEXT: kernel.launch @scale_kernel {grid = ["floor((n + 127)/128)", "1", "1"], block = [], args = ["temp0", "return0", "n"]
# CHECK-NEXT: kernel.launch @accumulate_kernel {grid = ["floor((n + 63)/64)", "1", "1"], block = [], args = ["return0", "acc", "n"]
# CHECK: sym_name = "scale_kernel"
# CHECK: sym_name = "accumulate_kernel"
# CHECK-NOT: sym_name = "scale_kernel_1"
