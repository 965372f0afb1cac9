# Names Triton numbers, and a barrier: `x_1` and `x_2` name several TTIR values each (`%x_1`,
# `%x_1_3`, ...), which must print back as distinct names; tl.debug_barrier is `ttg.barrier`.
import torch
import triton
import triton.language as tl


@triton.jit
def swap_halves_kernel(x_ptr, out_ptr, half, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < half
    x_1 = tl.load(x_ptr + offs, mask=mask)
    x_2 = tl.load(x_ptr + half + offs, mask=mask)
    tl.debug_barrier()
    tl.store(out_ptr + offs, x_2, mask=mask)
    tl.store(out_ptr + half + offs, x_1, mask=mask)


def swap_halves(x):
    out = torch.empty_like(x)
    swap_halves_kernel[(1,)](x, out, x.shape[0] // 2, BLOCK=1024)
    return out

# CHECK: kernel.launch @swap_halves_kernel
# CHECK: "ttg.barrier"() <{addrSpace = 31 : i32}> : () -> () loc("{{.*}}swap_halves.py":14:5)
