__global__ void madd_kernel(const float* a, const float* b, float* c, int m, int n) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < m && col < n) {
        c[row * n + col] = a[row * n + col] + b[row * n + col];
    }
}

void madd(const float* a, const float* b, float* c, int m, int n) {
    dim3 block(16, 16);
    dim3 grid((n + 15) / 16, (m + 15) / 16);
    madd_kernel<<<grid, block>>>(a, b, c, m, n);
}
