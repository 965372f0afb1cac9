import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

sum_source = """
#include <torch/extension.h>

__global__ void sum_reduce_kernel(const float* input, float* output, int outer, int reduce, int inner) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= outer * inner) return;
    int o = idx / inner;
    int i = idx % inner;
    float acc = 0.0f;
    for (int r = 0; r < reduce; ++r) {
        acc += input[(o * reduce + r) * inner + i];
    }
    output[idx] = acc;
}

torch::Tensor sum_dim_cuda(torch::Tensor x, int64_t dim) {
    auto input = x.contiguous();
    auto sizes = input.sizes().vec();
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < dim; ++d) outer *= sizes[d];
    for (int64_t d = dim + 1; d < (int64_t)sizes.size(); ++d) inner *= sizes[d];
    int64_t reduce = sizes[dim];
    sizes[dim] = 1;
    auto output = torch::empty(sizes, input.options());
    const int threads = 256;
    const int blocks = (outer * inner + threads - 1) / threads;
    sum_reduce_kernel<<<blocks, threads>>>(input.data_ptr<float>(), output.data_ptr<float>(), outer, reduce, inner);
    return output;
}
"""

sum_cpp = "torch::Tensor sum_dim_cuda(torch::Tensor x, int64_t dim);"
sum_ext = load_inline(name="sum_dim_ext", cpp_sources=sum_cpp, cuda_sources=sum_source, functions=["sum_dim_cuda"],
                      verbose=False)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return sum_ext.sum_dim_cuda(x, self.dim)
