// Per row of x [m, n]: its sum into total[row], its largest element into biggest[row].
__global__ void row_stats_kernel(const float* x, float* total, float* biggest, int m, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m) {
        float sum = 0.0f;
        float most = x[row * n];
        for (int j = 0; j < n; ++j) {
            sum += x[row * n + j];
            most = fmaxf(most, x[row * n + j]);
        }
        total[row] = sum;
        biggest[row] = most;
    }
}

void row_stats(const float* x, float* total, float* biggest, int m, int n) {
    row_stats_kernel<<<(m + 127) / 128, 128>>>(x, total, biggest, m, n);
}
