import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, y_ptr, C, L, eps, BLOCK_C: tl.constexpr, BLOCK_L: tl.constexpr):
    # x is (B, C, L); one program per (batch, block of positions); the norm runs over C
    b = tl.program_id(0)
    pl = tl.program_id(1)
    offs_l = pl * BLOCK_L + tl.arange(0, BLOCK_L)
    offs_c = tl.arange(0, BLOCK_C)
    mask = (offs_c[:, None] < C) & (offs_l[None, :] < L)
    ptrs = x_ptr + b * C * L + offs_c[:, None] * L + offs_l[None, :]
    x = tl.load(ptrs, mask=mask, other=0.0)
    ms = tl.sum(x * x, axis=0) / C
    rms = tl.sqrt(ms + eps)
    y = x / rms[None, :]
    tl.store(y_ptr + b * C * L + offs_c[:, None] * L + offs_l[None, :], y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        B, C, L = x.shape
        y = torch.empty_like(x)
        BLOCK_L = 32
        grid = (B, triton.cdiv(L, BLOCK_L))
        rms_norm_kernel[grid](x, y, C, L, self.eps, BLOCK_C=triton.next_power_of_2(C), BLOCK_L=BLOCK_L)
        return y
