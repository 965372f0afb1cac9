// rmsnorm with a seeded bug (CUDA side): no __syncthreads() between the store of the partial sums
// and the first tree step, so partial[tid + 64] is read by one warp while another may still be
// storing it. Otherwise as rmsnorm.cu: out[r][c] = x[r][c] * w[c] / sqrt(mean(x[r][:]^2) + 1e-6).

__global__ void rmsnorm_kernel(const float* x, const float* w, float* out, int rows, int cols) {
    __shared__ float partial[128];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    float s = 0.0f;
    for (int c = tid; c < cols; c += 128) {
        float v = x[row * cols + c];
        s += v * v;
    }
    partial[tid] = s;
    for (int stride = 64; stride > 0; stride >>= 1) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    float inv = 1.0f / sqrtf(partial[0] / cols + 1e-6f);
    for (int c = tid; c < cols; c += 128) out[row * cols + c] = x[row * cols + c] * inv * w[c];
}

void rmsnorm(const float* x, const float* w, float* out, int rows, int cols) {
    rmsnorm_kernel<<<rows, 128>>>(x, w, out, rows, cols);
}
