// A torch extension as KernelBench solutions write it: AT_DISPATCH_FLOATING_TYPES over the input's
// dtype, the kernel a template over scalar_t, launched inside the dispatch's lambda.
#include <torch/extension.h>
#include <cuda_runtime.h>

template <typename scalar_t>
__global__ void relu_kernel(const scalar_t* x, scalar_t* y, int64_t n) {
    int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > scalar_t(0) ? x[i] : scalar_t(0);
}

torch::Tensor relu(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    const int threads = 256;
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "relu", ([&] {
        relu_kernel<scalar_t><<<(n + threads - 1) / threads, threads>>>(
            x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n);
    }));
    return y;
}
