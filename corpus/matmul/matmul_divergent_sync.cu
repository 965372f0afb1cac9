// matmul with a seeded bug: the whole K loop, barriers included, sits under the output guard
// `if (row < m && col < n)`. When m or n is not a multiple of 16 the edge blocks' threads outside the
// matrix skip both __syncthreads() (barrier divergence), and skip their stores to the shared tiles,
// which the threads inside then read (as[ty][tx] with col >= n, bs[ty][tx] with row >= m).

template <int TILE>
__global__ void matmul_kernel(const float* a, const float* b, float* out, int m, int n, int k) {
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    if (row < m && col < n) {
        float acc = 0.0f;
        for (int t = 0; t < k; t += TILE) {
            as[ty][tx] = (t + tx < k) ? a[row * k + t + tx] : 0.0f;
            bs[ty][tx] = (t + ty < k) ? b[(t + ty) * n + col] : 0.0f;
            __syncthreads();
            for (int i = 0; i < TILE; ++i) acc += as[ty][i] * bs[i][tx];
            __syncthreads();
        }
        out[row * n + col] = acc;
    }
}

void matmul(const float* a, const float* b, float* out, int m, int n, int k) {
    const int tile = 16;
    dim3 block(tile, tile);
    dim3 grid((n + tile - 1) / tile, (m + tile - 1) / tile);
    matmul_kernel<tile><<<grid, block>>>(a, b, out, m, n, k);
}
