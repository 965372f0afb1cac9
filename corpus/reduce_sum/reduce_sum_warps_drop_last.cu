// reduce_sum port with warp shuffles (seeded bug: the last warp is dropped): out[b] should be the sum of
// x[256 b .. 256 b + 255]. Each of the 8 warps sums its 32 values with a shuffle-xor
// butterfly, lane 0 of each warp leaves the warp's sum in shared memory, and warp 0 combines the 8
// sums with a shuffle-down chain, but takes only 7 of them: x[256 b + 224 ..] never reaches out[b].

__global__ void reduce_sum_kernel(const float* x, float* out, int n) {
    __shared__ float warp_sums[8];
    int tid = threadIdx.x;
    int lane = tid % 32;
    int warp = tid / 32;
    int i = blockIdx.x * 256 + tid;
    float v = (i < n) ? x[i] : 0.0f;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffff, v, off);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float w = (lane < 7) ? warp_sums[lane] : 0.0f;
        for (int off = 4; off > 0; off >>= 1) w += __shfl_down_sync(0xffffffff, w, off);
        if (lane == 0) out[blockIdx.x] = w;
    }
}

void reduce_sum(const float* x, float* out, int n) {
    int grid = (n + 255) / 256;
    reduce_sum_kernel<<<grid, 256>>>(x, out, n);
}
