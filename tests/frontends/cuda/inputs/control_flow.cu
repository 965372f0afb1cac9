// `continue` takes the rest of the loop body into the else branch; `&&` and `?:` whose right side
// reads memory stay short-circuit (scf.if), so no load runs unguarded; do-while is scf.while with
// the body in the before region; a pointer local is an offset into its buffer.
__global__ void rows(const float* x, float* y, int n, int width) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  const float* row = x + r * width;
  float acc = 0.0f;
  for (int k = 0; k < width; ++k) {
    if (row[k] < 0.0f) continue;
    acc += row[k];
  }
  bool more = r + 1 < n && x[r + 1] > 0.0f;
  float next = more ? x[r + 1] : 0.0f;
  int j = 0;
  do { j += 3; } while (j < width);
  y[r] = acc + next + (float)j;
}
void launch(const float* x, float* y, int n, int width) {
  rows<<<(n + 255) / 256, 256>>>(x, y, n, width);
}

// CHECK:      func.func @rows
// CHECK:      scf.if %{{.*}} {
// CHECK-NEXT: } else {
// CHECK:        %[[ROW:.*]] = arith.muli %{{.*}}, %width : i32 loc("control_flow.cu":7:26)
// CHECK-NEXT:   %[[ROWX:.*]] = arith.index_cast %[[ROW]] : i32 to index
// CHECK:        %[[ACC:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:     %[[K32:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK-NEXT:     %[[KX:.*]] = arith.index_cast %[[K32]] : i32 to index
// CHECK-NEXT:     %[[AT:.*]] = arith.addi %[[ROWX]], %[[KX]] : index
// CHECK-NEXT:     %[[V:.*]] = memref.load %x[%[[AT]]] : memref<?xf32> loc("control_flow.cu":10:9)
// CHECK:          %[[SKIP:.*]] = arith.cmpf olt, %[[V]], %{{.*}} : f32
// CHECK-NEXT:     %[[NEW:.*]] = scf.if %[[SKIP]] -> (f32) {
// CHECK-NEXT:       scf.yield %[[A]] : f32
// CHECK-NEXT:     } else {
// CHECK:            memref.load %x
// CHECK-NEXT:       %[[SUM:.*]] = arith.addf %[[A]], %{{.*}} : f32
// CHECK-NEXT:       scf.yield %[[SUM]] : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     scf.yield %[[NEW]] : f32
// CHECK-NEXT:   } loc("control_flow.cu":9:3)
// CHECK:        %[[INB:.*]] = arith.cmpi slt, %{{.*}}, %n : i32
// CHECK-NEXT:   %[[MORE:.*]] = scf.if %[[INB]] -> (i1) {
// CHECK:          memref.load %x
// CHECK:          scf.yield %{{.*}} : i1
// CHECK-NEXT:   } else {
// CHECK-NEXT:     %[[F:.*]] = arith.constant false
// CHECK-NEXT:     scf.yield %[[F]] : i1
// CHECK-NEXT:   }
// CHECK-NEXT:   %[[NEXT:.*]] = scf.if %[[MORE]] -> (f32) {
// CHECK:          memref.load %x
// CHECK:        %[[J:.*]] = scf.while (%[[J0:.*]] = %{{.*}}) : (i32) -> i32{{.*}}{
// CHECK-NEXT:     %[[THREE:.*]] = arith.constant 3 : i32
// CHECK-NEXT:     %[[J1:.*]] = arith.addi %[[J0]], %[[THREE]] : i32
// CHECK-NEXT:     %[[AGAIN:.*]] = arith.cmpi slt, %[[J1]], %width : i32
// CHECK-NEXT:     scf.condition(%[[AGAIN]]) %[[J1]] : i32
// CHECK-NEXT:   } do {
// CHECK:        arith.sitofp %[[J]] : i32 to f32
// CHECK:        memref.store {{.*}}, %y
