// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// A launch argument `x[n:]` (a launcher passing `x + n`) is the buffer x from element n on: the
// kernel's accesses are x's own, shifted by n; the same kernel launched on all of x is not.

builtin.module {
  kernel.entry @halves attributes {language = "cuda", file = "halves.cu"} {
    kernel.param {name = "x", kind = "buffer", role = "inout", element_type = f32, shape = []}
    kernel.param {name = "n", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.launch @twice {grid = ["n", "1", "1"], block = ["1", "1", "1"], args = ["x"]}
    kernel.launch @twice {grid = ["n", "1", "1"], block = ["1", "1", "1"], args = ["x[n:]"]}
  }
  func.func @twice(%x: memref<?xf32>) attributes {gpu.kernel} {
    %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
    %v = memref.load %x[%bid] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %x[%bid] : memref<?xf32>
    func.return
  }
}

// CHECK:      access.kernel @twice
// CHECK-NEXT:   access.access {buffer = "x", kind = "read", {{.*}} indices = ["GRID0"]
// CHECK-NEXT:   access.access {buffer = "x", kind = "write", {{.*}} indices = ["GRID0"]
// CHECK:      access.kernel @twice
// CHECK-NEXT:   access.access {buffer = "x", kind = "read", {{.*}} indices = ["GRID0 + n"]
// CHECK-NEXT:   access.access {buffer = "x", kind = "write", {{.*}} indices = ["GRID0 + n"]
