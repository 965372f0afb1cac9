// The reference of the hostile ports (a copy of corpus/vector_add/vadd.cu): out[i] = x[i] + y[i].

__global__ void vadd_kernel(const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = x[i] + y[i];
    }
}

void vadd(const float* x, const float* y, float* out, int n) {
    const int block = 256;
    const int grid = (n + block - 1) / block;
    vadd_kernel<<<grid, block>>>(x, y, out, n);
}
