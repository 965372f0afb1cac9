import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>

__global__ void rms_norm_kernel(const float* x, const float* w, float* y, int cols, float eps) {
    __shared__ float partial[256];
    int row = blockIdx.x;
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = x[row * cols + c];
        s += v * v;
    }
    partial[threadIdx.x] = s;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    float inv = rsqrtf(partial[0] / cols + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        y[row * cols + c] = x[row * cols + c] * inv * w[c];
    }
}

torch::Tensor rms_norm(torch::Tensor x, torch::Tensor w, double eps) {
    auto y = torch::empty_like(x);
    rms_norm_kernel<<<x.size(0), 256>>>(x.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>(), x.size(1),
                                        (float)eps);
    return y;
}
"""

ext = load_inline(name="rms_norm_h", cpp_sources="torch::Tensor rms_norm(torch::Tensor x, torch::Tensor w, double eps);",
                  cuda_sources=source, functions=["rms_norm"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(dim) + 0.5)
        self.eps = eps

    def forward(self, x):
        return ext.rms_norm(x.contiguous(), self.weight, self.eps)
