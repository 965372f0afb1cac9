import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

ln_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

template <int BLOCK>
__global__ void layernorm_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                 const float* __restrict__ beta, float* __restrict__ y, int N, float eps) {
    __shared__ float s_sum[BLOCK];
    __shared__ float s_sq[BLOCK];
    const int row = blockIdx.x;
    const float* xr = x + (size_t)row * N;
    float sum = 0.f, sq = 0.f;
    for (int i = threadIdx.x; i < N; i += BLOCK) {
        float v = xr[i];
        sum += v;
        sq += v * v;
    }
    s_sum[threadIdx.x] = sum;
    s_sq[threadIdx.x] = sq;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            s_sum[threadIdx.x] += s_sum[threadIdx.x + s];
            s_sq[threadIdx.x] += s_sq[threadIdx.x + s];
        }
        __syncthreads();
    }
    const float mean = s_sum[0] / N;
    const float var = s_sq[0] / N - mean * mean;
    const float rstd = rsqrtf(var + eps);
    for (int i = threadIdx.x; i < N; i += BLOCK) {
        y[(size_t)row * N + i] = (xr[i] - mean) * rstd * gamma[i] + beta[i];
    }
}

torch::Tensor layernorm_forward(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, double eps) {
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    const int rows = x.size(0);
    const int N = x.size(1);
    auto y = torch::empty_like(x);
    layernorm_kernel<256><<<rows, 256>>>(x.data_ptr<float>(), gamma.data_ptr<float>(), beta.data_ptr<float>(),
                                         y.data_ptr<float>(), N, static_cast<float>(eps));
    return y;
}
"""

ln_cpp = "torch::Tensor layernorm_forward(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, double eps);"

layernorm_ext = load_inline(name="layernorm_ext", cpp_sources=ln_cpp, cuda_sources=ln_source,
                            functions=["layernorm_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: int):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return layernorm_ext.layernorm_forward(x.contiguous(), self.ln.weight, self.ln.bias, self.ln.eps)
