// relu reference: out[i] = max(x[i], 0).
// Style: grid-stride loop with a capped grid: 64 threads per block, at most 16 blocks, so one sweep
// covers 1024 elements and larger inputs take several trips round the loop.

__global__ void relu_kernel(const float* x, float* out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        out[i] = fmaxf(x[i], 0.0f);
    }
}

void relu(const float* x, float* out, int n) {
    const int block = 64;
    int grid = (n + block - 1) / block;
    if (grid > 16) grid = 16;
    relu_kernel<<<grid, block>>>(x, out, n);
}
