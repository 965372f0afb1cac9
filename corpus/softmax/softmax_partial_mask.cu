// softmax with a seeded bug: the butterflies use the mask 0xffff (lanes 0-15), carried over from a
// 16-lane version, while all 32 lanes of the warp execute __shfl_xor_sync; lanes 16-31 run the op
// outside the mask, and at off = 16 lanes 0-15 read lanes 16-31, which the mask leaves out.

__global__ void softmax_kernel(const float* x, float* out, int rows, int cols) {
    int row = blockIdx.x;
    int lane = threadIdx.x;
    float m = -3.402823466e+38f;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, x[row * cols + c]);
    for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffff, m, off));
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += expf(x[row * cols + c] - m);
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffff, s, off);
    for (int c = lane; c < cols; c += 32) out[row * cols + c] = expf(x[row * cols + c] - m) / s;
}

void softmax(const float* x, float* out, int rows, int cols) {
    softmax_kernel<<<rows, 32>>>(x, out, rows, cols);
}
