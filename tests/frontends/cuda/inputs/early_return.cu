// `if (i >= n) return;` puts the rest of the kernel under the negated condition (the else branch).
__global__ void relu(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  if (v < 0.0f) v = 0.0f;
  y[i] = v;
}
void launch(const float* x, float* y, int n) {
  relu<<<(n + 127) / 128, 128>>>(x, y, n);
}

// CHECK:      %[[OUT:.*]] = arith.cmpi sge, %{{.*}}, %n : i32 loc("early_return.cu":4:7)
// CHECK-NEXT: scf.if %[[OUT]] {
// CHECK-NEXT: } else {
// CHECK-NEXT:   arith.index_cast
// CHECK-NEXT:   %[[V:.*]] = memref.load %x
// CHECK:        %[[NEG:.*]] = arith.cmpf olt, %[[V]], %{{.*}} : f32
// CHECK-NEXT:   %[[R:.*]] = scf.if %[[NEG]] -> (f32) {
// CHECK-NEXT:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:     scf.yield %[[ZERO]] : f32
// CHECK-NEXT:   } else {
// CHECK-NEXT:     scf.yield %[[V]] : f32
// CHECK-NEXT:   }
// CHECK:        memref.store %[[R]], %y
// CHECK-NEXT: } loc("early_return.cu":4:3)
// CHECK-NEXT: func.return
