// 2-D indexing with dim3 locals in the launcher; `&&` of pure conditions is arith.andi.
__global__ void add2d(const float* a, float* out, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) {
    out[row * cols + col] = 2.0f * a[row * cols + col];
  }
}
void launch2d(const float* a, float* out, int rows, int cols) {
  dim3 block(16, 16);
  dim3 grid((cols + block.x - 1) / block.x, (rows + 15) / 16);
  add2d<<<grid, block>>>(a, out, rows, cols);
}

// CHECK:      kernel.launch @add2d {grid = ["floor((cols + 15)/16)", "floor((rows + 15)/16)", "1"], block = ["16", "16", "1"], args = ["a", "out", "rows", "cols"]}
// CHECK:      "gpu.block_id"() <{dimension = #gpu<dim x>}>
// CHECK:      "gpu.thread_id"() <{dimension = #gpu<dim x>}>
// CHECK:      %[[COL:.*]] = arith.addi
// CHECK:      "gpu.block_id"() <{dimension = #gpu<dim y>}>
// CHECK:      "gpu.block_dim"() <{dimension = #gpu<dim y>}>
// CHECK:      "gpu.thread_id"() <{dimension = #gpu<dim y>}>
// CHECK:      %[[ROW:.*]] = arith.addi
// CHECK-NEXT: %[[C1:.*]] = arith.cmpi slt, %[[ROW]], %rows : i32
// CHECK-NEXT: %[[C2:.*]] = arith.cmpi slt, %[[COL]], %cols : i32
// CHECK-NEXT: %[[BOTH:.*]] = arith.andi %[[C1]], %[[C2]] : i1
// CHECK-NEXT: scf.if %[[BOTH]] {
// CHECK:        %[[RC:.*]] = arith.muli %[[ROW]], %cols : i32
// CHECK-NEXT:   %[[IDX:.*]] = arith.addi %[[RC]], %[[COL]] : i32
// CHECK-NEXT:   %[[IX:.*]] = arith.index_cast %[[IDX]] : i32 to index
// CHECK-NEXT:   memref.load %a[%[[IX]]]
// CHECK:        memref.store {{.*}}, %out
