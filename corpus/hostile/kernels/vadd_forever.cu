// Hostile CUDA kernel: out[i] = x[i] + y[i], then every thread loops forever.

__global__ void vadd_kernel(const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = x[i] + y[i];
    }
    for (int k = 0; k >= 0; k += 0) {
        out[i % n] += 0.0f;
    }
}

void vadd(const float* x, const float* y, float* out, int n) {
    const int block = 256;
    const int grid = (n + block - 1) / block;
    vadd_kernel<<<grid, block>>>(x, y, out, n);
}
