// Pure `?:` is arith.select; unary operators; casts; `x[j++] += v` evaluates `j++` once.
__global__ void ops(float* x, int* k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    float c = v > 0.0f ? v : -v;
    int j = i;
    x[j++] += c;
    k[j] = ~j + !i + (int)c;
  }
}
void launch(float* x, int* k, int n) { ops<<<(n + 255) / 256, 256>>>(x, k, n); }

// CHECK:      %[[V:.*]] = memref.load %x
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[POS:.*]] = arith.cmpf ogt, %[[V]], %[[ZERO]] : f32
// CHECK-NEXT: %[[NEG:.*]] = arith.negf %[[V]] : f32
// CHECK-NEXT: %[[C:.*]] = arith.select %[[POS]], %[[V]], %[[NEG]] : f32 loc("operators.cu":6:15)
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[J1:.*]] = arith.addi %[[I:.*]], %[[ONE]] : i32
// CHECK-NEXT: %[[AT:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK-NEXT: %[[OLD:.*]] = memref.load %x[%[[AT]]]
// CHECK-NEXT: %[[NEW:.*]] = arith.addf %[[OLD]], %[[C]] : f32
// CHECK-NEXT: memref.store %[[NEW]], %x[%[[AT]]]
// CHECK-NEXT: %[[ALL:.*]] = arith.constant -1 : i32
// CHECK-NEXT: %[[NOTJ:.*]] = arith.xori %[[J1]], %[[ALL]] : i32
// CHECK-NEXT: %[[IZ:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[IB:.*]] = arith.cmpi ne, %[[I]], %[[IZ]] : i32
// CHECK-NEXT: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: %[[NOTI:.*]] = arith.xori %[[IB]], %[[TRUE]] : i1
// CHECK-NEXT: %[[NOTI32:.*]] = arith.extui %[[NOTI]] : i1 to i32
// CHECK-NEXT: arith.addi %[[NOTJ]], %[[NOTI32]] : i32
// CHECK-NEXT: arith.fptosi %[[C]] : f32 to i32
