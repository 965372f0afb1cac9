// matmul with a seeded bug: the shared tiles are loaded only where the element exists (no 0.0f past
// the edges). When k % 16 != 0 the last K tile's as[ty][tx] (t + tx >= k) and bs[ty][tx] (t + ty >= k)
// are never stored: for k < 16 they are uninitialised, for k > 16 they still hold the previous K
// tile, whose products are added a second time.

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
        if (row < m && t + tx < k) as[ty][tx] = a[row * k + t + tx];
        if (t + ty < k && col < n) bs[ty][tx] = b[(t + ty) * n + col];
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
