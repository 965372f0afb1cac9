// gelu reference, the exact (erf) form: out[i] = 0.5 * x * (1 + erf(x / sqrt(2))).
// Style: the math lives in a __device__ helper; `if (i < n)` guard, 512 threads per block.

__device__ float gelu_erf(float v) {
    const float inv_sqrt2 = 0.70710678118654752f;
    return 0.5f * v * (1.0f + erff(v * inv_sqrt2));
}

__global__ void gelu_kernel(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = gelu_erf(x[i]);
    }
}

void gelu(const float* x, float* out, int n) {
    const int block = 512;
    const int grid = (n + block - 1) / block;
    gelu_kernel<<<grid, block>>>(x, out, n);
}
