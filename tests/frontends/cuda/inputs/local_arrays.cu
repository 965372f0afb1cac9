// A per-thread local array (memref.alloca without a memory space, zero-filled from `= {0}`),
// `constexpr`, and `extern __shared__` sized by the launch's third <<<>>> argument: the kernel
// receives the byte count as its trailing `dynamic_shared_bytes` argument, and the launch passes it
// (and names it in `shared_bytes`).
__global__ void window_sum(const float* x, float* y, int n) {
  extern __shared__ float cache[];
  constexpr int W = 4;
  float acc[W] = {0.0f};
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cache[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int k = 0; k < W; ++k)
    acc[k] = threadIdx.x + k < blockDim.x ? cache[threadIdx.x + k] : 0.0f;
  float s = 0.0f;
  for (int k = 0; k < W; ++k) s += acc[k];
  if (i < n) y[i] = s;
}
void run(const float* x, float* y, int n, int block) {
  window_sum<<<(n + block - 1) / block, block, block * sizeof(float)>>>(x, y, n);
}

// CHECK:      kernel.launch @window_sum {grid = ["floor((block + n - 1)/block)", "1", "1"], block = ["block", "1", "1"], args = ["x", "y", "n", "4*block"], shared_bytes = "4*block"}
// CHECK:      func.func @window_sum(%x: memref<?xf32> {{.*}}, %y: memref<?xf32> {{.*}}, %n: i32 {{.*}}, %dynamic_shared_bytes: i64 {{.*}}) attributes {gpu.kernel} {
// CHECK-NEXT:   %[[FOUR:.*]] = arith.constant 4 : i64
// CHECK-NEXT:   %[[COUNT:.*]] = arith.divui %dynamic_shared_bytes, %[[FOUR]] : i64
// CHECK-NEXT:   %[[N:.*]] = arith.index_cast %[[COUNT]] : i64 to index
// CHECK-NEXT:   %cache = memref.alloca(%[[N]]) : memref<?xf32, 3 : i64> loc("local_arrays.cu":6:27)
// CHECK-NEXT:   %acc = memref.alloca() : memref<4xf32> loc("local_arrays.cu":8:9)
// CHECK:        memref.store %{{.*}}, %acc[%{{.*}}] : memref<4xf32> loc("local_arrays.cu":8:18)
// CHECK:        memref.store %{{.*}}, %acc[%{{.*}}] : memref<4xf32> loc("local_arrays.cu":8:18)
// CHECK:        memref.store %{{.*}}, %acc[%{{.*}}] : memref<4xf32> loc("local_arrays.cu":8:18)
// CHECK:        memref.store %{{.*}}, %acc[%{{.*}}] : memref<4xf32> loc("local_arrays.cu":8:18)
// CHECK:        memref.store %{{.*}}, %cache[%{{.*}}] : memref<?xf32, 3 : i64> loc("local_arrays.cu":10:3)
// CHECK-NEXT:   "gpu.barrier"()
// CHECK:        scf.for
// CHECK:          memref.load %cache
// CHECK:          memref.store %{{.*}}, %acc[%{{.*}}] : memref<4xf32> loc("local_arrays.cu":13:5)
// CHECK:        scf.for
// CHECK:          memref.load %acc
