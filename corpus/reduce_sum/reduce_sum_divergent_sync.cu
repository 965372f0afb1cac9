// reduce_sum with a seeded bug: a barrier in the shuffle tail under `if (tid < 16)`: only half of
// warp 0 reaches it, the other 240 threads of the block never do.


__global__ void reduce_sum_kernel(const float* x, float* out, int n) {
    __shared__ float s[256];
    int tid = threadIdx.x;
    int i = blockIdx.x * 256 + tid;
    s[tid] = (i < n) ? x[i] : 0.0f;
    __syncthreads();
    for (int stride = 128; stride > 32; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid < 32) {
        float v = s[tid] + s[tid + 32];
        if (tid < 16) __syncthreads();
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffff, v, off);
        if (tid == 0) out[blockIdx.x] = v;
    }
}

void reduce_sum(const float* x, float* out, int n) {
    const int block = 256;
    int grid = (n + block - 1) / block;
    reduce_sum_kernel<<<grid, block>>>(x, out, n);
}
