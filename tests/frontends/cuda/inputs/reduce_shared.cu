// Block sum: a shared-memory tree reduction with __syncthreads, then a warp-shuffle tail and one
// atomicAdd per block. The shared array is one allocation per block in address space 3.
#define BLOCK 256
__global__ void block_sum(const float* __restrict__ x, float* out, int n) {
  __shared__ float buf[BLOCK];
  unsigned tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[tid] = i < n ? __ldg(&x[i]) : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) buf[tid] += buf[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    float v = buf[tid] + buf[tid + 32];
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
    __syncwarp();
    if (tid == 0) atomicAdd(out, v);
  }
}
void sum(const float* x, float* out, int n) {
  block_sum<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, out, n);
}

// CHECK:      kernel.param {name = "out", kind = "buffer", role = "inout", element_type = f32, shape = []}
// CHECK:      func.func @block_sum(
// CHECK-NEXT:   %buf = memref.alloca() : memref<256xf32, 3 : i64> loc("reduce_shared.cu":5:20)
// CHECK:        memref.load %x[%{{.*}}] : memref<?xf32> loc("reduce_shared.cu":8:22)
// CHECK:        memref.store %{{.*}}, %buf[%{{.*}}] : memref<256xf32, 3 : i64> loc("reduce_shared.cu":8:3)
// CHECK-NEXT:   "gpu.barrier"() : () -> () loc("reduce_shared.cu":9:3)
// CHECK:        scf.while
// CHECK:          memref.load %buf
// CHECK:          "gpu.barrier"() : () -> () loc("reduce_shared.cu":12:5)
// CHECK:        } loc("reduce_shared.cu":10:3)
// CHECK:        scf.while
// CHECK:          %[[SH:.*]] = simt.shuffle {mode = "down"} %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32 loc("reduce_shared.cu":16:48)
// CHECK-NEXT:     arith.addf %{{.*}}, %[[SH]] : f32
// CHECK:        simt.syncwarp %{{.*}} loc("reduce_shared.cu":17:5)
// CHECK:        "memref.atomic_rmw"(%{{.*}}, %out, %{{.*}}) <{kind = 0 : i64}> : (f32, memref<?xf32>, index) -> f32 loc("reduce_shared.cu":18:19)
