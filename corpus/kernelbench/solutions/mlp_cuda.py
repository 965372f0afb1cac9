import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

mlp_source = """
#include <torch/extension.h>
#include <vector>

__global__ void bias_act_kernel(float* y, const float* b, int rows, int cols, bool relu) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) {
        float v = y[i] + b[i % cols];
        y[i] = relu ? fmaxf(v, 0.f) : v;
    }
}

torch::Tensor mlp_forward(torch::Tensor x, torch::Tensor w1, torch::Tensor b1, torch::Tensor w2, torch::Tensor b2) {
    auto h = torch::mm(x, w1.t());
    int threads = 256;
    int n1 = h.numel();
    bias_act_kernel<<<(n1 + threads - 1) / threads, threads>>>(h.data_ptr<float>(), b1.data_ptr<float>(),
                                                               h.size(0), h.size(1), true);
    auto y = torch::mm(h, w2.t());
    int n2 = y.numel();
    bias_act_kernel<<<(n2 + threads - 1) / threads, threads>>>(y.data_ptr<float>(), b2.data_ptr<float>(),
                                                               y.size(0), y.size(1), false);
    return y;
}
"""

mlp = load_inline(name="mlp_ext",
                  cpp_sources="torch::Tensor mlp_forward(torch::Tensor x, torch::Tensor w1, torch::Tensor b1, torch::Tensor w2, torch::Tensor b2);",
                  cuda_sources=mlp_source, functions=["mlp_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.fc1 = nn.Linear(input_size, hidden_size)
        self.fc2 = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        return mlp.mlp_forward(x, self.fc1.weight, self.fc1.bias, self.fc2.weight, self.fc2.bias)
