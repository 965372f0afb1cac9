// rmsnorm with 64-bit offsets: out[r][c] = x[r][c] * w[c] / sqrt(mean(x[r][:]^2) + 1e-6), the same
// geometry as rmsnorm.cu (one block of 128 threads per row, shared-memory tree), but the row's base
// offset is computed in size_t, so it stays exact when rows * cols >= 2^31.

__global__ void rmsnorm_kernel(const float* x, const float* w, float* out, int rows, int cols) {
    __shared__ float partial[128];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    size_t base = (size_t)row * cols;
    float s = 0.0f;
    for (int c = tid; c < cols; c += 128) {
        float v = x[base + c];
        s += v * v;
    }
    partial[tid] = s;
    __syncthreads();
    for (int stride = 64; stride > 0; stride >>= 1) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    float inv = 1.0f / sqrtf(partial[0] / cols + 1e-6f);
    for (int c = tid; c < cols; c += 128) out[base + c] = x[base + c] * inv * w[c];
}

void rmsnorm(const float* x, const float* w, float* out, int rows, int cols) {
    rmsnorm_kernel<<<rows, 128>>>(x, w, out, rows, cols);
}
