import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

src = """
#include <torch/extension.h>

__global__ void scan_rows(const float* x, float* y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float running = 0.0f;
    for (int c = 0; c < cols; ++c) {
        y[r * cols + c] = running;      // writes the sum of the elements before c
        running += x[r * cols + c];
    }
}

torch::Tensor cumsum_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int rows = x.size(0), cols = x.size(1);
    scan_rows<<<(rows + 63) / 64, 64>>>(x.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    return y;
}
"""
scan = load_inline(name="scan_ext", cpp_sources="torch::Tensor cumsum_cuda(torch::Tensor x);", cuda_sources=src,
                   functions=["cumsum_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return scan.cumsum_cuda(x.contiguous())
