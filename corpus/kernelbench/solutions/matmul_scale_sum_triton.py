import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gemv_sum_kernel(x_ptr, wsum_ptr, out_ptr, K, scale, BLOCK_K: tl.constexpr):
    # sum_j (x @ W^T)_j = x . (sum_j W_j): one dot product per row with the column sums of W
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK_K,), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        offs = k + tl.arange(0, BLOCK_K)
        m = offs < K
        acc += tl.load(x_ptr + row * K + offs, mask=m, other=0.0) * tl.load(wsum_ptr + offs, mask=m, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0) * 0.5 * scale)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, scaling_factor):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(hidden_size, input_size))
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = x.contiguous()
        B, K = x.shape
        w_sum = self.weight.sum(dim=0).contiguous()
        out = torch.empty((B, 1), device=x.device, dtype=x.dtype)
        gemv_sum_kernel[(B,)](x, w_sum, out, K, self.scaling_factor, BLOCK_K=64)
        return out
