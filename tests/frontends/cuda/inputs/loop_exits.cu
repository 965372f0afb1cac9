// `break`, `continue` and `return` inside loops: scf.while with an i1 flag per exit kind carried
// beside the variables; the condition is `!flag && cond`, the rest of the body and the increment
// run under `scf.if flag {} else {...}`, and a `return` in a loop guards what follows the loop.
__device__ int first_index(const int* keys, int n, int key) {
  for (int j = 0; j < n; ++j)
    if (keys[j] == key) return j;
  return -1;
}
__global__ void search(const int* keys, int* pos, int* steps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = 0;
  while (j < n) {
    if (keys[j] < 0) break;
    if (keys[j] == 0) { j += 2; continue; }
    ++j;
  }
  steps[i] = j;
  pos[i] = first_index(keys, n, i);
  for (int t = 0; t < n; t++) {
    if (keys[t] == -i) return;
  }
  steps[i] += 1;
}
void run(const int* keys, int* pos, int* steps, int n) {
  search<<<(n + 255) / 256, 256>>>(keys, pos, steps, n);
}

// CHECK:      %[[J:.*]], %[[BRK:.*]] = scf.while (%[[JA:.*]] = %{{.*}}, %[[BA:.*]] = %{{.*}}) : (i32, i1) -> (i32, i1) {
// CHECK-NEXT:   %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:   %[[GO:.*]] = arith.xori %[[BA]], %[[TRUE]] : i1
// CHECK-NEXT:   %[[C:.*]] = arith.cmpi slt, %[[JA]], %n : i32
// CHECK-NEXT:   %[[BOTH:.*]] = arith.andi %[[GO]], %[[C]] : i1
// CHECK-NEXT:   scf.condition(%[[BOTH]]) %[[JA]], %[[BA]] : i32, i1
// CHECK:        %[[NEG:.*]] = arith.cmpi slt
// CHECK-NEXT:   %{{.*}}, %{{.*}} = scf.if %[[NEG]] -> (i32, i1) {
// CHECK-NEXT:     %[[SET:.*]] = arith.constant true
// CHECK-NEXT:     scf.yield %{{.*}}, %[[SET]] : i32, i1
// CHECK:      } loc("loop_exits.cu":12:3)
// CHECK:      memref.store %[[J]], %steps
// The helper's loop carries its return value and the `returned` flag; after it, -1 only if none.
// CHECK:      %[[RV:.*]], %{{.*}}, %[[RET:.*]] = scf.while ({{.*}}) : (i32, i32, i1) -> (i32, i32, i1) {
// CHECK:      %[[POS:.*]] = scf.if %[[RET]] -> (i32) {
// CHECK-NEXT:   scf.yield %[[RV]] : i32
// CHECK-NEXT: } else {
// CHECK:        arith.subi
// CHECK:      memref.store %[[POS]], %pos
// CHECK:      %{{.*}}, %[[KRET:.*]] = scf.while
// CHECK:      scf.if %[[KRET]] {
// CHECK-NEXT: } else {
// CHECK:        memref.store %{{.*}}, %steps
// CHECK-NEXT: } loc("loop_exits.cu":19:3)
// CHECK-NEXT: func.return
