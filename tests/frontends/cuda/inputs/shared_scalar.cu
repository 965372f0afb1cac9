// A shared scalar (`__shared__ float mean;`, in the kernel or at file scope) is a one-element
// shared allocation: every read is a memref.load and every write a memref.store, so threads see
// each other's writes after a barrier; `&mean` is its address for atomics.
__shared__ float scale;
__global__ void center(const float* x, float* y, int n) {
  __shared__ float mean;
  if (threadIdx.x == 0) { mean = 0.0f; scale = 2.0f; }
  __syncthreads();
  if (threadIdx.x < n) atomicAdd(&mean, x[threadIdx.x]);
  __syncthreads();
  if (threadIdx.x < n) y[threadIdx.x] = (x[threadIdx.x] - mean / n) * scale;
}
void run(const float* x, float* y, int n) { center<<<1, 256>>>(x, y, n); }

// CHECK:      %mean = memref.alloca() : memref<1xf32, 3 : i64> loc("shared_scalar.cu":6:20)
// CHECK-NEXT: %scale = memref.alloca() : memref<1xf32, 3 : i64> loc("shared_scalar.cu":4:18)
// CHECK:      scf.if
// CHECK:        memref.store %{{.*}}, %mean[%{{.*}}] : memref<1xf32, 3 : i64> loc("shared_scalar.cu":7:27)
// CHECK:        memref.store %{{.*}}, %scale[%{{.*}}] : memref<1xf32, 3 : i64> loc("shared_scalar.cu":7:40)
// CHECK:      "gpu.barrier"
// CHECK:      "memref.atomic_rmw"(%{{.*}}, %mean, %{{.*}}) <{kind = 0 : i64}> : (f32, memref<1xf32, 3 : i64>, index) -> f32
// CHECK:      "gpu.barrier"
// CHECK:      memref.load %mean[%{{.*}}] : memref<1xf32, 3 : i64>
// CHECK:      memref.load %scale[%{{.*}}] : memref<1xf32, 3 : i64>
