// transpose through shared memory without padding: a [32][32] tile. Correct (the same values and
// the same global accesses as transpose_tiled.cu); only slower, the column reads of the tile
// conflict on one bank.

__global__ void transpose_tiled_nopad_kernel(const float* x, float* out, int rows, int cols) {
    __shared__ float tile[32][32];
    int c = blockIdx.x * 32 + threadIdx.x;
    int r = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) {
        if (c < cols && r + j < rows) tile[threadIdx.y + j][threadIdx.x] = x[(r + j) * cols + c];
    }
    __syncthreads();
    int oc = blockIdx.y * 32 + threadIdx.x;  // a row of x: the column of out
    int orow = blockIdx.x * 32 + threadIdx.y;  // a column of x: the row of out
    for (int j = 0; j < 32; j += 8) {
        if (oc < rows && orow + j < cols) out[(orow + j) * rows + oc] = tile[threadIdx.x][threadIdx.y + j];
    }
}

void transpose(const float* x, float* out, int rows, int cols) {
    dim3 block(32, 8);
    dim3 grid((cols + 31) / 32, (rows + 31) / 32);
    transpose_tiled_nopad_kernel<<<grid, block>>>(x, out, rows, cols);
}
