// cross_entropy reference: out[r] = logsumexp(x[r][:]) - x[r][target[r]] for logits x of rows x cols
// (row-major) and int64 class indices target of rows; out holds one loss per row. The target logit is
// selected by comparing each column with target[r] (a one-hot select, no indirect load): a target
// outside [0, cols) selects nothing and the loss is the row's logsumexp.
// Style: one block of one warp (32 threads) per row; lanes walk the row with stride 32; the row max,
// the sum of exp(x - max) and the selected logit are combined with __shfl_xor_sync butterflies;
// lane 0 writes the loss.

__global__ void cross_entropy_kernel(const float* x, const long long* target, float* out, int rows, int cols) {
    int row = blockIdx.x;
    int lane = threadIdx.x;
    long long t = target[row];
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

void cross_entropy(const float* x, const long long* target, float* out, int rows, int cols) {
    cross_entropy_kernel<<<rows, 32>>>(x, target, out, rows, cols);
}
