import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>

// one block of 64 threads per row: a shared-memory tree for the sum of squares
__global__ void row_l2norm_kernel(const float* __restrict__ x, float* __restrict__ y, int dim) {
    __shared__ float partial[64];
    int row = blockIdx.x;
    int t = threadIdx.x;
    float v = t < dim ? x[(long)row * dim + t] : 0.0f;
    partial[t] = v * v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t < dim) y[(long)row * dim + t] = v / sqrtf(partial[0] + 1e-12f);
}

torch::Tensor row_l2norm(torch::Tensor x) {
    TORCH_CHECK(x.size(1) <= 64, "rows of at most 64");
    auto y = torch::empty_like(x);
    row_l2norm_kernel<<<x.size(0), 64>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.size(1));
    return y;
}
"""

ext = load_inline(name="row_l2norm", cpp_sources="torch::Tensor row_l2norm(torch::Tensor x);",
                  cuda_sources=cuda_src, functions=["row_l2norm"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.row_l2norm(x.contiguous())
