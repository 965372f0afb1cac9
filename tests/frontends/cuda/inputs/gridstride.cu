// A grid-stride loop is scf.for over index; the accumulator is an iter_arg. A loop that is not
// counted (`s *= 2`) is scf.while.
__global__ void scale(float* x, float s, size_t n, float* total) {
  float acc = 0.0f;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    x[i] = x[i] * s;
    acc += x[i];
  }
  for (int k = 1; k < 64; k *= 2) acc = acc * 0.5f;
  total[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
void launch(float* x, float s, size_t n, float* total) {
  scale<<<128, 256>>>(x, s, n, total);
}

// CHECK:      kernel.param {name = "x", kind = "buffer", role = "inout", element_type = f32, shape = []}
// CHECK:      kernel.param {name = "n", kind = "scalar", role = "size", element_type = i64, shape = []}
// CHECK:      kernel.launch @scale {grid = ["128", "1", "1"], block = ["256", "1", "1"], args = ["x", "s", "n", "total"]}
// CHECK:      %[[ACC0:.*]] = arith.constant 0.000000e+00 : f32 loc("gridstride.cu":4:15)
// CHECK:      %[[START:.*]] = arith.addi {{.*}} : i32 loc("gridstride.cu":5:19)
// CHECK-NEXT: %[[START64:.*]] = arith.extui %[[START]] : i32 to i64
// CHECK-NEXT: %[[LB:.*]] = arith.index_cast %[[START64]] : i64 to index
// CHECK-NEXT: %[[UB:.*]] = arith.index_cast %n : i64 to index
// CHECK:      %[[STRIDE:.*]] = arith.muli {{.*}} : i32 loc("gridstride.cu":5:70)
// CHECK-NEXT: %[[STRIDE64:.*]] = arith.extui %[[STRIDE]] : i32 to i64
// CHECK-NEXT: %[[STEP:.*]] = arith.index_cast %[[STRIDE64]] : i64 to index
// CHECK-NEXT: %[[ACC:.*]] = scf.for %[[IV:.*]] = %[[LB]] to %[[UB]] step %[[STEP]] iter_args(%[[A:.*]] = %[[ACC0]]) -> (f32) {
// CHECK-NEXT:   %[[I:.*]] = arith.index_cast %[[IV]] : index to i64
// CHECK:        memref.store {{.*}}, %x
// CHECK:        %[[NEXT:.*]] = arith.addf %[[A]], {{.*}} : f32
// CHECK-NEXT:   scf.yield %[[NEXT]] : f32
// CHECK-NEXT: } loc("gridstride.cu":5:3)
// CHECK:      scf.while ({{.*}}) : (f32, i32) -> (f32, i32){{.*}}{
// CHECK:        arith.cmpi slt
// CHECK:        scf.condition
// CHECK:      } do {
// CHECK:        arith.muli
// CHECK:        scf.yield
