// Vector add with a host launcher computing the grid in locals.
#include <cuda_runtime.h>

__global__ void vadd_kernel(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i] = a[i] + b[i];
  }
}

void vadd(const float* a, const float* b, float* c, int n) {
  int threads = 256;
  int blocks = (n + threads - 1) / threads;
  vadd_kernel<<<blocks, threads>>>(a, b, c, n);
}

// CHECK:      kernel.entry @vadd attributes {language = "cuda", file = "vadd.cu"} {
// CHECK-NEXT:   kernel.param {name = "a", kind = "buffer", role = "in", element_type = f32, shape = []} loc("vadd.cu":11:24)
// CHECK-NEXT:   kernel.param {name = "b", kind = "buffer", role = "in", element_type = f32, shape = []}
// CHECK-NEXT:   kernel.param {name = "c", kind = "buffer", role = "out", element_type = f32, shape = []}
// CHECK-NEXT:   kernel.param {name = "n", kind = "scalar", role = "size", element_type = i32, shape = []}
// CHECK-NEXT:   kernel.launch @vadd_kernel {grid = ["floor((n + 255)/256)", "1", "1"], block = ["256", "1", "1"], args = ["a", "b", "c", "n"]} loc("vadd.cu":14:3)
// CHECK:      func.func @vadd_kernel(%a: memref<?xf32> {{.*}}, %n: i32 loc("vadd.cu":4:75)) attributes {gpu.kernel} {
// CHECK:        %[[BID:.*]] = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index loc("vadd.cu":5:11)
// CHECK-NEXT:   %[[BID32:.*]] = arith.index_cast %[[BID]] : index to i32
// CHECK:        %[[TID:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index loc("vadd.cu":5:37)
// CHECK:        %[[I:.*]] = arith.addi {{.*}} : i32 loc("vadd.cu":5:11)
// CHECK-NEXT:   %[[GUARD:.*]] = arith.cmpi slt, %[[I]], %n : i32 loc("vadd.cu":6:7)
// CHECK-NEXT:   scf.if %[[GUARD]] {
// CHECK-NEXT:     %[[IA:.*]] = arith.index_cast %[[I]] : i32 to index loc("vadd.cu":7:12)
// CHECK-NEXT:     %[[A:.*]] = memref.load %a[%[[IA]]] : memref<?xf32> loc("vadd.cu":7:12)
// CHECK:          %[[B:.*]] = memref.load %b[{{.*}}] : memref<?xf32> loc("vadd.cu":7:19)
// CHECK-NEXT:     %[[SUM:.*]] = arith.addf %[[A]], %[[B]] : f32 loc("vadd.cu":7:12)
// CHECK:          memref.store %[[SUM]], %c[{{.*}}] : memref<?xf32> loc("vadd.cu":7:5)
// CHECK-NEXT:   } loc("vadd.cu":6:3)
// CHECK-NEXT:   func.return
