# A wrapper that reads on the host what its first kernel computed (as liger-kernel's MoE routing reads
# its tile count with `.item()`): the count of positive elements sizes the second launch's buffer
# and grid. Captured on real tensors with each launch run in Triton's interpreter, so that the
# second launch's grid is the count the first kernel gives for the capture's values.
import torch
import triton
import triton.language as tl


@triton.jit
def _count_kernel(x_ptr, count_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(count_ptr, tl.sum((x > 0).to(tl.int32), axis=0))


@triton.jit
def _fill_kernel(out_ptr, m, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs.to(tl.float32), mask=offs < m)


def positives(x):
    n = x.shape[0]
    count = torch.zeros(1, dtype=torch.int32, device=x.device)
    _count_kernel[(triton.cdiv(n, 64),)](x, count, n, BLOCK=64)
    m = int(count.sum().item())
    out = torch.empty(m, dtype=torch.float32, device=x.device)
    _fill_kernel[(triton.cdiv(m, 16),)](out, m, BLOCK=16)
    return out
