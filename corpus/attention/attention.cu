// attention reference: single-head forward, out = softmax(q k^T * scale) v with scale = 1 / sqrt(d),
// q, k, v and out of seq x d, row-major fp32 (d <= 64 in use; any d works).
// Style: straightforward. One block of 64 threads per query row; every thread computes the row's
// scores itself (a dot product over d per key), first the row maximum, then, for its output column,
// the softmax-weighted sum of v with the max subtracted before expf, divided by the sum of weights.

__global__ void attention_kernel(const float* q, const float* k, const float* v, float* out, int seq, int d) {
    int row = blockIdx.x;
    int t = threadIdx.x;
    float scale = 1.0f / sqrtf((float)d);
    float m = -3.402823466e+38f;
    for (int j = 0; j < seq; ++j) {
        float s = 0.0f;
        for (int c = 0; c < d; ++c) s += q[row * d + c] * k[j * d + c];
        m = fmaxf(m, s * scale);
    }
    for (int c0 = 0; c0 < d; c0 += 64) {
        int col = c0 + t;
        float l = 0.0f;
        float acc = 0.0f;
        for (int j = 0; j < seq; ++j) {
            float s = 0.0f;
            for (int c = 0; c < d; ++c) s += q[row * d + c] * k[j * d + c];
            float p = expf(s * scale - m);
            l += p;
            if (col < d) acc += p * v[j * d + col];
        }
        if (col < d) out[row * d + col] = acc / l;
    }
}

void attention(const float* q, const float* k, const float* v, float* out, int seq, int d) {
    attention_kernel<<<seq, 64>>>(q, k, v, out, seq, d);
}
