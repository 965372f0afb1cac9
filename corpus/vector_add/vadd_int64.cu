// vector_add with 64-bit indices: out[i] = x[i] + y[i] for n up to 2^63. Same geometry as vadd.cu
// (256 threads per block, cdiv grid, `if (i < n)` guard), but n is a long long and the global index
// blockIdx.x * blockDim.x + threadIdx.x is computed in 64 bits, so it stays exact when n >= 2^31.

__global__ void vadd_kernel(const float* x, const float* y, float* out, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = x[i] + y[i];
    }
}

void vadd(const float* x, const float* y, float* out, long long n) {
    const int block = 256;
    const long long grid = (n + block - 1) / block;
    vadd_kernel<<<grid, block>>>(x, y, out, n);
}
