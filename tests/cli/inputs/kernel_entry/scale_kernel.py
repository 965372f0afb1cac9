# The same op as a Triton kernel alone, with no wrapper (as a library ships one that a dispatcher
# launches): the spec's `[launch] grid` launches it.
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, bias, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 2.0 * tl.load(x_ptr + offs, mask=mask) + bias, mask=mask)
