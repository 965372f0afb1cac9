# A wrapper that branches on a tensor's value before it launches (as liger-kernel's backward passes
# skip a gradient of exactly 1.0): fake tensors hold no values, so the symbolic capture falls back to
# concrete sizes, and at concrete sizes it is captured on real tensors of ours (its scale is no 1.0).
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, scale_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, x * tl.load(scale_ptr), mask=offs < n)


def scale_in_place(x, scale):
    if torch.equal(scale, torch.tensor(1.0)):
        return x
    scale_kernel[(triton.cdiv(x.shape[0], 256),)](x, scale, x.shape[0], BLOCK=256)
    return x
