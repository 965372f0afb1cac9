// cross_entropy with int32 class indices: out[r] = logsumexp(x[r][:]) - x[r][target[r]], the same
// kernel as cross_entropy.cu (one warp per row, shuffles, one-hot select of the target logit) with
// `const int* target`. A different correct CUDA source: the ports read the targets in whatever integer
// type they are given, so they match it too.

__global__ void cross_entropy_kernel(const float* x, const int* target, float* out, int rows, int cols) {
    int row = blockIdx.x;
    int lane = threadIdx.x;
    int t = target[row];
    float m = -3.402823466e+38f;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, x[row * cols + c]);
    for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, off));
    float s = 0.0f;
    float picked = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float v = x[row * cols + c];
        s += expf(v - m);
        if (c == t) picked = v;
    }
    for (int off = 16; off > 0; off >>= 1) {
        s += __shfl_xor_sync(0xffffffff, s, off);
        picked += __shfl_xor_sync(0xffffffff, picked, off);
    }
    if (lane == 0) out[row] = m + logf(s) - picked;
}

void cross_entropy(const float* x, const int* target, float* out, int rows, int cols) {
    cross_entropy_kernel<<<rows, 32>>>(x, target, out, rows, cols);
}
