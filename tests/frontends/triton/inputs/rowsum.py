# A row reduction whose block size depends on a size (next_power_of_2): only concrete sizes lower.
import torch
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(x_ptr, out_ptr, N, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < N, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))


def rowsum(x):
    M, N = x.shape
    out = torch.empty((M,), device=x.device, dtype=x.dtype)
    rowsum_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK=triton.next_power_of_2(N))
    return out

# CHECK: kernel.entry @rowsum
# CHECK: kernel.launch @rowsum_kernel {grid = ["64", "1", "1"], block = [], args = ["x", "return0", "100", "100"]
# CHECK: function_type = (!tt.ptr<f32>, !tt.ptr<f32>, i32, i32) -> ()
# CHECK: "tt.reduce"
# CHECK: "tt.reduce.return"
