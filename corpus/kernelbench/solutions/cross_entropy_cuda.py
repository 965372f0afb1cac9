import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>
#include <cfloat>

__global__ void cross_entropy_kernel(const float* logits, const int64_t* targets, float* losses, int C) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    const float* x = logits + (size_t)row * C;
    float m = -FLT_MAX;
    for (int c = 0; c < C; ++c) m = fmaxf(m, x[c]);
    float s = 0.f;
    for (int c = 0; c < C; ++c) s += expf(x[c] - m);
    losses[row] = logf(s) + m - x[targets[row]];
}

torch::Tensor cross_entropy_cuda(torch::Tensor logits, torch::Tensor targets) {
    int B = logits.size(0);
    int C = logits.size(1);
    auto losses = torch::empty({B}, logits.options());
    int threads = 128;
    int blocks = (B + threads - 1) / threads;
    cross_entropy_kernel<<<blocks, threads>>>(logits.data_ptr<float>(), targets.data_ptr<int64_t>(),
                                              losses.data_ptr<float>(), C);
    return losses.mean();
}
"""

ce = load_inline(name="ce_ext", cpp_sources="torch::Tensor cross_entropy_cuda(torch::Tensor logits, torch::Tensor targets);",
                 cuda_sources=source, functions=["cross_entropy_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        return ce.cross_entropy_cuda(predictions.contiguous(), targets.contiguous())
