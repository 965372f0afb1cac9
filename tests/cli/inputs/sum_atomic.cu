// out[0] = sum of x, one float atomicAdd per thread: the order of the additions is the order the
// threads reach the atomic, so the float result changes from run to run (LC304).
__global__ void sum_kernel(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, x[i]);
}

void total(const float* x, float* out, int n) {
    sum_kernel<<<(n + 255) / 256, 256>>>(x, out, n);
}
