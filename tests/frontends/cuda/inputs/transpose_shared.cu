// Shared-memory transpose with a padded tile `[32][33]` (no bank conflicts), 32x8 threads each
// moving four elements: the padding shows in the allocation's shape.
#define TILE_DIM 32
#define BLOCK_ROWS 8
__global__ void transpose(float* out, const float* src, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = src[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
void run(float* out, const float* src, int width, int height) {
  dim3 grid((width + TILE_DIM - 1) / TILE_DIM, (height + TILE_DIM - 1) / TILE_DIM);
  transpose<<<grid, dim3(TILE_DIM, BLOCK_ROWS)>>>(out, src, width, height);
}

// CHECK:      kernel.launch @transpose {grid = ["floor((width + 31)/32)", "floor((height + 31)/32)", "1"], block = ["32", "8", "1"], args = ["out", "src", "width", "height"]}
// CHECK:      %tile = memref.alloca() : memref<32x33xf32, 3 : i64> loc("transpose_shared.cu":6:20)
// CHECK:      scf.for
// CHECK:        %[[V:.*]] = memref.load %src[%{{.*}}] : memref<?xf32>
// CHECK:        memref.store %[[V]], %tile[%{{.*}}, %{{.*}}] : memref<32x33xf32, 3 : i64> loc("transpose_shared.cu":10:38)
// CHECK:      "gpu.barrier"() : () -> () loc("transpose_shared.cu":11:3)
// CHECK:      scf.for
// CHECK:        %[[T:.*]] = memref.load %tile[%{{.*}}, %{{.*}}] : memref<32x33xf32, 3 : i64> loc("transpose_shared.cu":15:66)
// CHECK-NEXT:   arith.addi
// CHECK:        memref.store %[[T]], %out[%{{.*}}] : memref<?xf32> loc("transpose_shared.cu":15:38)
