// matmul reference: out = a @ b, a of m x k, b of k x n, out of m x n, all row-major fp32.
// Style: the tile size is a template parameter (instantiated with 16 by the launcher); one 16 x 16
// block per output tile, both operand tiles staged through shared memory, a loop over the K tiles
// with zero padding past the edges, fp32 accumulation.

template <int TILE>
__global__ void matmul_kernel(const float* a, const float* b, float* out, int m, int n, int k) {
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < k; t += TILE) {
        as[ty][tx] = (row < m && t + tx < k) ? a[row * k + t + tx] : 0.0f;
        bs[ty][tx] = (t + ty < k && col < n) ? b[(t + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int i = 0; i < TILE; ++i) acc += as[ty][i] * bs[i][tx];
        __syncthreads();
    }
    if (row < m && col < n) out[row * n + col] = acc;
}

void matmul(const float* a, const float* b, float* out, int m, int n, int k) {
    const int tile = 16;
    dim3 block(tile, tile);
    dim3 grid((n + tile - 1) / tile, (m + tile - 1) / tile);
    matmul_kernel<tile><<<grid, block>>>(a, b, out, m, n, k);
}
