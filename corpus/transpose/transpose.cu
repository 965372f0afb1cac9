// transpose reference: out[c][r] = x[r][c] for x of rows x cols (row-major), out of cols x rows.
// Style: naive, one thread per element on a 2-D grid of 16 x 16 blocks; reads coalesced, writes
// strided by rows.

__global__ void transpose_kernel(const float* x, float* out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (c < cols && r < rows) {
        out[c * rows + r] = x[r * cols + c];
    }
}

void transpose(const float* x, float* out, int rows, int cols) {
    dim3 block(16, 16);
    dim3 grid((cols + 15) / 16, (rows + 15) / 16);
    transpose_kernel<<<grid, block>>>(x, out, rows, cols);
}
