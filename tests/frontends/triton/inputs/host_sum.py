# A persistent column sum: each of 4 programs sums every 4th row into its row of `partials`, and
# the wrapper adds the partial rows up with torch. The first output is the wrapper's own result (no
# kernel writes it: written_by = "host"); the second is allocated and never written (no marker:
# that is the kernel's fault, LC202).
import torch
import triton
import triton.language as tl


@triton.jit
def partial_col_sums_kernel(x_ptr, partials_ptr, rows, cols, BLOCK: tl.constexpr):
    start = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for row in range(start, rows, tl.num_programs(0)):
        acc += tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=0.0)
    tl.store(partials_ptr + start * cols + offs, acc, mask=offs < cols)


def column_sums(x):
    rows, cols = x.shape
    partials = torch.empty((4, cols), dtype=torch.float32)
    partial_col_sums_kernel[(4,)](x, partials, rows, cols, BLOCK=128)
    never_written = torch.empty((cols,), dtype=torch.float32)
    return partials.sum(0).to(x.dtype), never_written


# CHECK: kernel.param {name = "return0", kind = "buffer", role = "out", element_type = f32, shape = ["cols"], written_by = "host"}
# CHECK-NEXT: kernel.param {name = "return1", kind = "buffer", role = "out", element_type = f32, shape = ["cols"], variable = "never_written"}
# CHECK-NEXT: kernel.param {name = "temp0", kind = "buffer", role = "temp", element_type = f32, shape = ["4", "cols"]}
