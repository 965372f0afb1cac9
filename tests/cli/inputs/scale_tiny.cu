// out[i] = 1e-7 * x[i]: every output is below torch.testing's float32 atol (1e-5), so a tolerance
// built on it accepts an output of zeros (LC501).
__global__ void scale_kernel(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 1e-7f * x[i];
}

void scale(const float* x, float* out, int n) {
    scale_kernel<<<(n + 255) / 256, 256>>>(x, out, n);
}
