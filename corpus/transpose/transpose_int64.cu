// transpose with 64-bit offsets: out[c][r] = x[r][c] for x of rows x cols (row-major), out of
// cols x rows. Same geometry as transpose.cu (naive, 16 x 16 blocks), but the flat offsets
// r * cols + c and c * rows + r are computed in size_t, so they stay exact when rows * cols >= 2^31.

__global__ void transpose_kernel(const float* x, float* out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (c < cols && r < rows) {
        out[(size_t)c * rows + r] = x[(size_t)r * cols + c];
    }
}

void transpose(const float* x, float* out, int rows, int cols) {
    dim3 block(16, 16);
    dim3 grid((cols + 15) / 16, (rows + 15) / 16);
    transpose_kernel<<<grid, block>>>(x, out, rows, cols);
}
