// saxpy reference: out[i] = a * x[i] + y[i].
// Style: one thread per element, early `if (i >= n) return;`, 128 threads per block.

__global__ void saxpy_kernel(float a, const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = a * x[i] + y[i];
}

void saxpy(float a, const float* x, const float* y, float* out, int n) {
    const int block = 128;
    const int grid = (n + block - 1) / block;
    saxpy_kernel<<<grid, block>>>(a, x, y, out, n);
}
