// row_cumsum reference: out[r][c] = x[r][0] + ... + x[r][c] (inclusive), x and out of rows x cols,
// row-major fp32. Style: a block scan as CUDA samples write it with warp shuffles: one block of 128
// threads per row, the row in chunks of 128 columns; each warp scans its 32 values with
// __shfl_up_sync, the warps' totals go through shared memory and the first warp scans them (another
// shuffle-up scan), and a carry in shared memory crosses the chunks.
__global__ void row_cumsum_kernel(const float* x, float* out, int rows, int cols) {
    __shared__ float warp_sums[4];
    __shared__ float carry;
    int row = blockIdx.x;
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) carry = 0.0f;
    __syncthreads();
    for (int base = 0; base < cols; base += 128) {
        int c = base + threadIdx.x;
        float v = c < cols ? x[row * cols + c] : 0.0f;
        for (int off = 1; off < 32; off <<= 1) {
            float up = __shfl_up_sync(0xffffffff, v, off);
            if (lane >= off) v += up;
        }
        if (lane == 31) warp_sums[warp] = v;
        __syncthreads();
        if (warp == 0) {
            float s = lane < 4 ? warp_sums[lane] : 0.0f;
            for (int off = 1; off < 4; off <<= 1) {
                float up = __shfl_up_sync(0xffffffff, s, off);
                if (lane >= off) s += up;
            }
            if (lane < 4) warp_sums[lane] = s;
        }
        __syncthreads();
        float total = v + carry + (warp > 0 ? warp_sums[warp - 1] : 0.0f);
        if (c < cols) out[row * cols + c] = total;
        __syncthreads();
        if (threadIdx.x == 127) carry = total;
        __syncthreads();
    }
}

void row_cumsum(const float* x, float* out, int rows, int cols) {
    row_cumsum_kernel<<<rows, 128>>>(x, out, rows, cols);
}
