// C = A @ B (row-major float32: A [M, K], B [K, N], C [M, N]) with 32 x 32 shared-memory tiles.
// The two blocks of a thread block cluster compute neighbouring column tiles of the same row tile:
// each loads half of the A tile and reads the other half from its partner's shared memory
// (distributed shared memory). Clusters exist from compute capability 9.0 on.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int TILE = 32;
constexpr int HALF = TILE / 2;

__global__ void __cluster_dims__(2, 1, 1)
matmul_cluster(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float a_half[HALF][TILE];
    __shared__ float b_tile[TILE][TILE];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned int rank = cluster.block_rank();
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float (*a_rows)[TILE] = cluster.map_shared_rank(&a_half[0], threadIdx.y / HALF);
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        if (threadIdx.y < HALF) {
            int r = blockIdx.y * TILE + rank * HALF + threadIdx.y;
            int k = k0 + threadIdx.x;
            a_half[threadIdx.y][threadIdx.x] = (r < M && k < K) ? A[(size_t)r * K + k] : 0.0f;
        }
        int k = k0 + threadIdx.y;
        b_tile[threadIdx.y][threadIdx.x] = (k < K && col < N) ? B[(size_t)k * N + col] : 0.0f;
        cluster.sync();  // both halves of the A tile are in place
        for (int kk = 0; kk < TILE; ++kk) {
            acc += a_rows[threadIdx.y % HALF][kk] * b_tile[kk][threadIdx.x];
        }
        cluster.sync();  // the partner is done reading this block's half before it is overwritten
    }
    if (row < M && col < N) {
        C[(size_t)row * N + col] = acc;
    }
}

// The grid's x extent is rounded up to a whole number of clusters.
void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(TILE, TILE);
    dim3 grid(((N + TILE - 1) / TILE + 1) / 2 * 2, (M + TILE - 1) / TILE);
    matmul_cluster<<<grid, block>>>(A, B, C, M, N, K);
}
