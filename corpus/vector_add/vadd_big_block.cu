// vector_add with a seeded bug: 2048 threads per block, past the 1024 a block may have on every CUDA
// GPU; the launch fails (cudaErrorInvalidConfiguration) and out is never written.

__global__ void vadd_kernel(const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = x[i] + y[i];
    }
}

void vadd(const float* x, const float* y, float* out, int n) {
    const int block = 2048;
    const int grid = (n + block - 1) / block;
    vadd_kernel<<<grid, block>>>(x, y, out, n);
}
