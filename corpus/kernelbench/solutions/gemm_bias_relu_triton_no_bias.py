import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # the GEMM through cuBLAS, the activation fused in Triton
        h = torch.matmul(x, self.gemm.weight.t())
        y = torch.empty_like(h)
        n = h.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](h, y, n, BLOCK=1024)
        return y
