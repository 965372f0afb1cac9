import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def pos_mean_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=m, other=0.0)
    pos = x > 0
    s = tl.sum(tl.where(pos, x, 0.0), axis=0)
    c = tl.sum(pos.to(tl.float32), axis=0)
    tl.store(out_ptr + row, tl.where(c > 0, s / tl.maximum(c, 1.0), 0.0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        pos_mean_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        return out
