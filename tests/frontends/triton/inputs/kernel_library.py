# A kernel defined in one file and launched from another (imported_kernel.py): its ops keep the
# line numbers of this file, and so must their locations.
import triton
import triton.language as tl


@triton.jit
def negate_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, -x, mask=offs < n)
