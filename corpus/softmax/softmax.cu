// softmax reference: out[r][c] = exp(x[r][c] - max_r) / sum_c' exp(x[r][c'] - max_r), x and out of
// rows x cols, row-major.
// Style: one block of one warp (32 threads) per row; each lane walks the row with stride 32, the row
// max and the row sum are combined across the warp with __shfl_xor_sync butterflies.

__global__ void softmax_kernel(const float* x, float* out, int rows, int cols) {
    int row = blockIdx.x;
    int lane = threadIdx.x;
    float m = -3.402823466e+38f;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, x[row * cols + c]);
    for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, off));
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += expf(x[row * cols + c] - m);
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffff, s, off);
    for (int c = lane; c < cols; c += 32) out[row * cols + c] = expf(x[row * cols + c] - m) / s;
}

void softmax(const float* x, float* out, int rows, int cols) {
    softmax_kernel<<<rows, 32>>>(x, out, rows, cols);
}
