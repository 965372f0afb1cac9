__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
void launch(const float* x, float* y, int n) {
    k<<<(n + 2047) / 2048, 2048>>>(x, y, n);
}
