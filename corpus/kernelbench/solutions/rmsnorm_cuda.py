import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void rms_norm_kernel(const float* __restrict__ x, float* __restrict__ out,
                                int batch, int features, int length, float eps) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = batch * length;
    if (idx >= total) return;
    int b = idx / length;
    int l = idx % length;
    const float* base = x + (size_t)b * features * length + l;
    float sum_sq = 0.0f;
    for (int c = 0; c < features; ++c) {
        float v = base[(size_t)c * length];
        sum_sq += v * v;
    }
    float inv = rsqrtf(sum_sq / features + eps);
    float* obase = out + (size_t)b * features * length + l;
    for (int c = 0; c < features; ++c) {
        obase[(size_t)c * length] = base[(size_t)c * length] * inv;
    }
}

torch::Tensor rms_norm_cuda(torch::Tensor x, float eps) {
    auto out = torch::empty_like(x);
    int batch = x.size(0), features = x.size(1), length = x.size(2);
    int total = batch * length;
    int block = 256;
    int grid = (total + block - 1) / block;
    rms_norm_kernel<<<grid, block>>>(x.data_ptr<float>(), out.data_ptr<float>(), batch, features, length, eps);
    return out;
}
"""

cpp_source = "torch::Tensor rms_norm_cuda(torch::Tensor x, float eps);"

rms_norm = load_inline(name="rms_norm", cpp_sources=cpp_source, cuda_sources=cuda_source,
                       functions=["rms_norm_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return rms_norm.rms_norm_cuda(x.contiguous(), self.eps)
