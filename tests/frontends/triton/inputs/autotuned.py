# An autotuned kernel (lowered with its first config) and a heuristics-driven one.
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=2), triton.Config({"BLOCK": 256}, num_warps=8)],
                 key=["n"])
@triton.jit
def neg_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, -tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offs, tl.load(x_ptr + offs))
    else:
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def neg_copy(x):
    n = x.numel()
    tmp = torch.empty_like(x)
    out = torch.empty_like(x)
    neg_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, tmp, n)
    copy_kernel[(triton.cdiv(n, 64),)](tmp, out, n, BLOCK=64)
    return out

# With n = 4096 (EVEN depends on n: no symbolic lowering):
# CHECK: kernel.launch @neg_kernel {grid = ["32", "1", "1"], block = [], args = ["x", "temp0", "4096"], num_warps = #builtin.int<2>}
# CHECK-NEXT: kernel.launch @copy_kernel {grid = ["64", "1", "1"], block = [], args = ["temp0", "return0", "4096"], num_warps = #builtin.int<4>}
# CHECK: sym_name = "neg_kernel"
# CHECK: sym_name = "copy_kernel"
# CHECK-NOT: "tt.load"{{.*}}tensor<64xi1>
