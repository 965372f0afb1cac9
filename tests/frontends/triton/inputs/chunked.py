# A wrapper that launches its kernel once per chunk of rows, on a view of each chunk (liger's fused
# linear cross entropy): each launch's argument is the view `x[offset:]` of the whole tensor.
import torch
import triton
import triton.language as tl


@triton.jit
def double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 2 * tl.load(x_ptr + offs, mask=mask), mask=mask)


def double(x):
    out = torch.empty_like(x)
    half = x.shape[0] // 2
    for start, end in ((0, half), (half, x.shape[0])):
        double_kernel[(triton.cdiv(end - start, 128),)](x[start:end], out[start:end], end - start, BLOCK=128)
    return out
