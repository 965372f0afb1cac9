// prefix_scan reference: inclusive cumulative sum along each row, out[r][c] = x[r][0] + ... + x[r][c],
// x and out of rows x cols, row-major fp32.
// Style: one block of 128 threads per row; the row is walked in chunks of 128 columns, each chunk
// scanned in shared memory with Hillis-Steele steps (read the neighbour, barrier, add in place,
// barrier), and a running carry (the sum of the previous chunks) added to every result.

__global__ void prefix_scan_kernel(const float* x, float* out, int rows, int cols) {
    __shared__ float s[128];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    float carry = 0.0f;
    for (int c0 = 0; c0 < cols; c0 += 128) {
        int c = c0 + tid;
        s[tid] = (c < cols) ? x[row * cols + c] : 0.0f;
        __syncthreads();
        for (int off = 1; off < 128; off *= 2) {
            float left = (tid >= off) ? s[tid - off] : 0.0f;
            __syncthreads();
            s[tid] += left;
            __syncthreads();
        }
        if (c < cols) out[row * cols + c] = carry + s[tid];
        carry += s[127];
        __syncthreads();
    }
}

void prefix_scan(const float* x, float* out, int rows, int cols) {
    prefix_scan_kernel<<<rows, 128>>>(x, out, rows, cols);
}
