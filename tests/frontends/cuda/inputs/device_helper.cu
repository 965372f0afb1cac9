// __device__ helpers are inlined; a helper's early returns become scf.if yielding its result.
__device__ float gelu(float v) {
  return 0.5f * v * (1.0f + erff(v * 0.70710678f));
}
__device__ float clamp01(float v) {
  if (v < 0.0f) return 0.0f;
  if (v > 1.0f) return 1.0f;
  return v;
}
__global__ void act(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = clamp01(gelu(x[i]));
}
void launch(const float* x, float* y, int n) { act<<<(n + 255) / 256, 256>>>(x, y, n); }

// CHECK-NOT:  func.call
// CHECK:      func.func @act
// CHECK:        %[[X:.*]] = memref.load %x
// CHECK:        math.erf {{.*}} : f32 loc("device_helper.cu":3:29)
// CHECK:        %[[G:.*]] = arith.mulf {{.*}} : f32 loc("device_helper.cu":3:10)
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:   %[[LT:.*]] = arith.cmpf olt, %[[G]], %[[ZERO]] : f32 loc("device_helper.cu":6:7)
// CHECK-NEXT:   %[[R:.*]] = scf.if %[[LT]] -> (f32) {
// CHECK:        } else {
// CHECK:          arith.cmpf ogt, %[[G]]
// CHECK:          %[[R2:.*]] = scf.if {{.*}} -> (f32) {
// CHECK:          } else {
// CHECK-NEXT:       scf.yield %[[G]] : f32
// CHECK:          scf.yield %[[R2]] : f32
// CHECK:        memref.store %[[R]], %y
// CHECK-NOT:  func.func @gelu
