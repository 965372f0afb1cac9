import torch
import triton
import triton.language as tl


@triton.jit
def bias_relu_kernel(x_ptr, b_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < rows * cols
    v = tl.load(x_ptr + offs, mask=mask) + tl.load(b_ptr + offs % cols, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(v, 0.0), mask=mask)


def bias_relu(x, bias):
    rows, cols = x.shape
    out = torch.empty_like(x)
    bias_relu_kernel[(triton.cdiv(rows * cols, 1024),)](x, bias, out, rows, cols, BLOCK=1024)
    return out
