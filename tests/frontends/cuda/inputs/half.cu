// half and __nv_bfloat16 are f16/bf16: the conversion intrinsics are arith.extf/truncf, __hadd and
// __hmul compute in f16, and C's promotion of `half * float` to float shows as an extf.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void mixed(const half* a, const __nv_bfloat16* b, half* out, __nv_bfloat16* out_b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float fa = __half2float(a[i]);
  float fb = __bfloat162float(b[i]);
  half h = __hadd(a[i], __float2half(fb));
  h = __hmul(h, __float2half_rn(0.5f));
  out[i] = __float2half(fa * 2.0f + __half2float(h));
  out_b[i] = __float2bfloat16(fb + fa);
}
void run(const half* a, const __nv_bfloat16* b, half* out, __nv_bfloat16* out_b, int n) {
  mixed<<<(n + 255) / 256, 256>>>(a, b, out, out_b, n);
}

// CHECK:      kernel.param {name = "a", kind = "buffer", role = "in", element_type = f16, shape = []}
// CHECK-NEXT: kernel.param {name = "b", kind = "buffer", role = "in", element_type = bf16, shape = []}
// CHECK:      func.func @mixed(%a: memref<?xf16> {{.*}}, %b: memref<?xbf16> {{.*}}, %out: memref<?xf16> {{.*}}, %out_b: memref<?xbf16>
// CHECK:        %[[A:.*]] = memref.load %a[%{{.*}}] : memref<?xf16>
// CHECK-NEXT:   %[[FA:.*]] = arith.extf %[[A]] : f16 to f32 loc("half.cu":8:14)
// CHECK:        %[[B:.*]] = memref.load %b[%{{.*}}] : memref<?xbf16>
// CHECK-NEXT:   %[[FB:.*]] = arith.extf %[[B]] : bf16 to f32 loc("half.cu":9:14)
// CHECK:        %[[HB:.*]] = arith.truncf %[[FB]] : f32 to f16 loc("half.cu":10:25)
// CHECK-NEXT:   %[[H:.*]] = arith.addf %{{.*}}, %[[HB]] : f16 loc("half.cu":10:12)
// CHECK:        %[[HALF:.*]] = arith.truncf %{{.*}} : f32 to f16 loc("half.cu":11:17)
// CHECK-NEXT:   arith.mulf %[[H]], %[[HALF]] : f16 loc("half.cu":11:7)
// CHECK:        %[[SUM:.*]] = arith.addf %[[FB]], %[[FA]] : f32
// CHECK-NEXT:   %[[BF:.*]] = arith.truncf %[[SUM]] : f32 to bf16
// CHECK:        memref.store %[[BF]], %out_b
