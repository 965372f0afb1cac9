// rowsum3d reference: out[b][t] = sum over c of inp[b][t][c], inp of B x T x C and out of B x T
// (row-major). Style (llm.c): the B*T rows are one flat row index, one thread per row, so inp is
// indexed inp[idx * C + c] with idx = b * T + t < B * T: two dimensions merged into one index.

__global__ void rowsum3d_kernel(const float* inp, float* out, int B, int T, int C) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * T) {
        float s = 0.0f;
        for (int c = 0; c < C; c++) {
            s += inp[idx * C + c];
        }
        out[idx] = s;
    }
}

void rowsum3d(const float* inp, float* out, int B, int T, int C) {
    int n = B * T;
    rowsum3d_kernel<<<(n + 127) / 128, 128>>>(inp, out, B, T, C);
}
