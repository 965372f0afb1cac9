// reduce_sum, another correct CUDA kernel: out[b] = sum of x[256 b .. 256 b + 255].
// Style: the textbook shared-memory tree all the way down, its stride halved from blockDim.x / 2
// to 1 (no warp shuffles), thread 0 storing s[0].

__global__ void reduce_sum_kernel(const float* x, float* out, int n) {
    __shared__ float s[256];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    s[tid] = (i < n) ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

void reduce_sum(const float* x, float* out, int n) {
    reduce_sum_kernel<<<(n + 255) / 256, 256>>>(x, out, n);
}
