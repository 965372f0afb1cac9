# A KernelBench-style solution: CUDA source compiled by torch's load_inline, which needs torch's headers.
import torch
from torch.utils.cpp_extension import load_inline

cuda_src = """
#include <torch/extension.h>

__global__ void twice_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}

torch::Tensor twice(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    twice_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

ext = load_inline(name="twice", cpp_sources="torch::Tensor twice(torch::Tensor x);", cuda_sources=cuda_src,
                  functions=["twice"])


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.twice(x)
