// rotary reference (rotary position embedding, half-split / GPT-NeoX layout): x and out of seq x dim
// with dim = 2 * half (row-major); cos_t and sin_t of seq x half. For 0 <= i < half, the pair
// (x[s][i], x[s][i + half]) is rotated by the angle whose cosine and sine are cos_t[s][i], sin_t[s][i]:
//   out[s][i]        = x[s][i] * cos_t[s][i] - x[s][i + half] * sin_t[s][i]
//   out[s][i + half] = x[s][i + half] * cos_t[s][i] + x[s][i] * sin_t[s][i]
// The launcher takes half (not dim), so every size is valid.
// Style: one thread per pair; 2-D grid, x over the pairs of a row in blocks of 64, y over positions.

__global__ void rotary_kernel(const float* x, const float* cos_t, const float* sin_t, float* out, int seq, int half) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int s = blockIdx.y;
    if (i < half) {
        int dim = 2 * half;
        float c = cos_t[s * half + i];
        float sn = sin_t[s * half + i];
        float a = x[s * dim + i];
        float b = x[s * dim + half + i];
        out[s * dim + i] = a * c - b * sn;
        out[s * dim + half + i] = b * c + a * sn;
    }
}

void rotary(const float* x, const float* cos_t, const float* sin_t, float* out, int seq, int half) {
    dim3 block(64);
    dim3 grid((half + 63) / 64, seq);
    rotary_kernel<<<grid, block>>>(x, cos_t, sin_t, out, seq, half);
}
