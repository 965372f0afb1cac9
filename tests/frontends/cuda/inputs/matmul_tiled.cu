// Tiled matmul C = A * B (M x K times K x N), the tile size a template argument instantiated by the
// launch (`matmul<16>`): two 2-D shared tiles, a loop over the tiles, barriers around their use.
template <int TILE>
__global__ void matmul(const float* __restrict__ A, const float* __restrict__ B, float* C,
                       int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    int ka = t * TILE + threadIdx.x;
    int kb = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
void launch_matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  constexpr int T = 16;
  dim3 block(T, T);
  dim3 grid((N + T - 1) / T, (M + T - 1) / T);
  matmul<T><<<grid, block>>>(A, B, C, M, N, K);
}

// CHECK:      kernel.launch @matmul_16 {grid = ["floor((N + 15)/16)", "floor((M + 15)/16)", "1"], block = ["16", "16", "1"], args = ["A", "B", "C", "M", "N", "K"]}
// CHECK:      func.func @matmul_16(
// CHECK-NEXT:   %As = memref.alloca() : memref<16x16xf32, 3 : i64> loc("matmul_tiled.cu":6:20)
// CHECK-NEXT:   %Bs = memref.alloca() : memref<16x16xf32, 3 : i64> loc("matmul_tiled.cu":7:20)
// CHECK:        %[[TILES:.*]] = arith.divsi %{{.*}}, %{{.*}} : i32 loc("matmul_tiled.cu":11:23)
// CHECK:        %[[HI:.*]] = arith.index_cast %[[TILES]] : i32 to index
// CHECK:        %[[ACC:.*]] = scf.for %{{.*}} = %{{.*}} to %[[HI]] step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (f32) {
// CHECK:          memref.store %{{.*}}, %As[%{{.*}}, %{{.*}}] : memref<16x16xf32, 3 : i64> loc("matmul_tiled.cu":14:5)
// CHECK:          memref.store %{{.*}}, %Bs[%{{.*}}, %{{.*}}] : memref<16x16xf32, 3 : i64> loc("matmul_tiled.cu":15:5)
// CHECK-NEXT:     "gpu.barrier"() : () -> () loc("matmul_tiled.cu":16:5)
// CHECK:          scf.for
// CHECK:            memref.load %As[%{{.*}}, %{{.*}}] : memref<16x16xf32, 3 : i64> loc("matmul_tiled.cu":18:43)
// CHECK:            memref.load %Bs[%{{.*}}, %{{.*}}] : memref<16x16xf32, 3 : i64> loc("matmul_tiled.cu":18:64)
// CHECK:          "gpu.barrier"() : () -> () loc("matmul_tiled.cu":19:5)
// CHECK:        } loc("matmul_tiled.cu":11:3)
// CHECK:        memref.store %[[ACC]], %C
