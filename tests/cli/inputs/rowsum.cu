__global__ void rowsum_kernel(const float* x, float* out, int m, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m) {
        float acc = 0.0f;
        for (int j = 0; j < n; ++j) {
            acc += x[row * n + j];
        }
        out[row] = acc;
    }
}

void rowsum(const float* x, float* out, int m, int n) {
    rowsum_kernel<<<(m + 127) / 128, 128>>>(x, out, m, n);
}
