// Math functions: the math dialect; fmaxf/fminf are arith.maxnumf/minnumf (NaN-ignoring); double f64.
__global__ void maths(const float* x, double* d, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = expf(v) + tanhf(v) + sqrtf(fabsf(v)) + logf(v) + powf(v, 2.0f) + fmaxf(v, 0.0f) + fminf(v, 1.0f);
    d[i] = exp(d[i]) + tanh((double)v);
  }
}
void launch(const float* x, double* d, float* y, int n) { maths<<<(n + 255) / 256, 256>>>(x, d, y, n); }

// CHECK:      kernel.param {name = "d", kind = "buffer", role = "inout", element_type = f64, shape = []}
// CHECK:      %[[V:.*]] = memref.load %x
// CHECK-NEXT: math.exp %[[V]] : f32 loc("math_functions.cu":6:12)
// CHECK-NEXT: math.tanh %[[V]] : f32
// CHECK:      %[[ABS:.*]] = math.absf %[[V]] : f32
// CHECK-NEXT: math.sqrt %[[ABS]] : f32
// CHECK:      math.log %[[V]] : f32
// CHECK:      math.powf %[[V]], %{{.*}} : f32
// CHECK:      arith.maxnumf %[[V]], %{{.*}} : f32
// CHECK:      arith.minnumf %[[V]], %{{.*}} : f32
// CHECK:      %[[D:.*]] = memref.load %d{{.*}} : memref<?xf64>
// CHECK-NEXT: math.exp %[[D]] : f64
// CHECK-NEXT: %[[VD:.*]] = arith.extf %[[V]] : f32 to f64
// CHECK-NEXT: math.tanh %[[VD]] : f64
