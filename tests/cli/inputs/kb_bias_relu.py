# A KernelBench-style file: CUDA source in a string compiled by torch's load_inline. The host
# function takes and returns torch::Tensor: `x` is a buffer whose shape comes from its size(i) uses
# (TORCH_CHECK is ignored, so `bias` has only a `bias_numel`),
# the returned tensor is the param `return0` (role out), and locations are this file's lines.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void bias_relu_kernel(const float* x, const float* bias, float* out, int rows, int cols) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < rows * cols) {
        float v = x[idx] + bias[idx % cols];
        out[idx] = v > 0.0f ? v : 0.0f;
    }
}

torch::Tensor bias_relu_cuda(torch::Tensor x, torch::Tensor bias) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.dim() == 2 && bias.size(0) == x.size(1), "shapes");
    int rows = x.size(0);
    int cols = x.size(1);
    auto out = torch::empty({rows, cols}, x.options());
    const int block_size = 256;
    const int num_blocks = (x.numel() + block_size - 1) / block_size;
    bias_relu_kernel<<<num_blocks, block_size>>>(x.data_ptr<float>(), bias.data_ptr<float>(),
                                                 out.data_ptr<float>(), rows, cols);
    return out;
}
"""

relu_cpp_source = "torch::Tensor bias_relu_cuda(torch::Tensor x, torch::Tensor bias);"

bias_relu = load_inline(name="bias_relu", cpp_sources=relu_cpp_source, cuda_sources=relu_source,
                        functions=["bias_relu_cuda"], verbose=False)


class ModelNew(nn.Module):
    def forward(self, x, bias):
        return bias_relu.bias_relu_cuda(x, bias)
