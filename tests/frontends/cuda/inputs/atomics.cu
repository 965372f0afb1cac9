// Atomics on global and shared memory: memref.atomic_rmw with MLIR's AtomicRMWKind numbers (addf 0,
// addi 1, assign 2, maximumf 3, maxs 4, maxu 5, mins 7, ori 11, andi 12), atomicCAS as
// simt.atomic_cas; each returns the old value. A buffer only updated atomically is "inout".
__global__ void histogram(const int* keys, int* counts, float* total, unsigned* bits, int* last,
                          int n, int bins) {
  __shared__ int local[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 64) local[threadIdx.x] = 0;
  __syncthreads();
  if (i < n) {
    int k = keys[i] % bins;
    int before = atomicAdd(&local[k], 1);
    atomicAdd(total, 1.0f);
    atomicMax(&counts[0], before);
    atomicMin(counts + 1, k);
    atomicMax(&bits[0], 7u);
    atomicOr(&bits[1], 1u << (k % 32));
    atomicAnd(&bits[2], ~0u);
    atomicExch(&last[0], i);
    atomicCAS(&last[1], -1, i);
  }
  __syncthreads();
  if (threadIdx.x < 64) atomicAdd(&counts[2 + threadIdx.x], local[threadIdx.x]);
}
void run(const int* keys, int* counts, float* total, unsigned* bits, int* last, int n, int bins) {
  histogram<<<(n + 255) / 256, 256>>>(keys, counts, total, bits, last, n, bins);
}

// CHECK:      kernel.param {name = "counts", kind = "buffer", role = "inout", element_type = i32, shape = []}
// CHECK-NEXT: kernel.param {name = "total", kind = "buffer", role = "inout", element_type = f32, shape = []}
// CHECK-NEXT: kernel.param {name = "bits", kind = "buffer", role = "inout", element_type = i32, shape = []}
// CHECK-NEXT: kernel.param {name = "last", kind = "buffer", role = "inout", element_type = i32, shape = []}
// CHECK:      %local = memref.alloca() : memref<64xi32, 3 : i64>
// CHECK:      %[[OLD:.*]] = "memref.atomic_rmw"(%{{.*}}, %local, %{{.*}}) <{kind = 1 : i64}> : (i32, memref<64xi32, 3 : i64>, index) -> i32 loc("atomics.cu":12:18)
// CHECK:      "memref.atomic_rmw"(%{{.*}}, %total, %{{.*}}) <{kind = 0 : i64}> : (f32, memref<?xf32>, index) -> f32
// CHECK:      "memref.atomic_rmw"(%[[OLD]], %counts, %{{.*}}) <{kind = 4 : i64}>
// CHECK:      "memref.atomic_rmw"(%{{.*}}, %counts, %{{.*}}) <{kind = 7 : i64}>
// CHECK:      "memref.atomic_rmw"(%{{.*}}, %bits, %{{.*}}) <{kind = 5 : i64}>
// CHECK:      "memref.atomic_rmw"(%{{.*}}, %bits, %{{.*}}) <{kind = 11 : i64}>
// CHECK:      "memref.atomic_rmw"(%{{.*}}, %bits, %{{.*}}) <{kind = 12 : i64}>
// CHECK:      "memref.atomic_rmw"(%{{.*}}, %last, %{{.*}}) <{kind = 2 : i64}>
// CHECK:      simt.atomic_cas %last[%{{.*}}], %{{.*}}, %{{.*}} : memref<?xi32>, i32 loc("atomics.cu":20:5)
// CHECK:      "memref.atomic_rmw"(%{{.*}}, %counts, %{{.*}}) <{kind = 1 : i64}>
