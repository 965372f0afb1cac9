// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// `false && c` is false whatever c is (here a condition on loaded data): the branch under it is
// never taken, so its access is not recorded, even one whose index lowercheck could not express
// (a remainder by zero, as a kernel instance that passes `rotary_dim = 0` computes and never uses).
// The value the if yields is the other branch's.

builtin.module {
  kernel.entry @copy attributes {language = "cuda", file = "copy.cu"} {
    kernel.param {name = "flags", kind = "buffer", role = "in", element_type = i32, shape = ["n"]}
    kernel.param {name = "freq", kind = "buffer", role = "in", element_type = f32, shape = ["0"]}
    kernel.param {name = "out", kind = "buffer", role = "out", element_type = f32, shape = ["n"]}
    kernel.param {name = "n", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.launch @copy_kernel {grid = ["n", "1", "1"], block = ["1", "1", "1"], args = ["flags", "freq", "out"]}
  }
  func.func @copy_kernel(%flags: memref<?xi32>, %freq: memref<?xf32>, %out: memref<?xf32>) attributes {gpu.kernel} {
    %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
    %flag = memref.load %flags[%bid] : memref<?xi32>
    %zero = arith.constant 0 : i32
    %on = arith.cmpi ne, %flag, %zero : i32
    %null = arith.constant false
    %load = arith.andi %null, %on : i1
    %i = arith.index_cast %bid : index to i32
    %wrapped = arith.remsi %i, %zero : i32
    %at = arith.index_cast %wrapped : i32 to index
    %v = scf.if %load -> (f32) {
      %f = memref.load %freq[%at] : memref<?xf32>
      scf.yield %f : f32
    } else {
      %c = arith.constant 0.0 : f32
      scf.yield %c : f32
    }
    memref.store %v, %out[%bid] : memref<?xf32>
    func.return
  }
}

// CHECK:      access.kernel @copy_kernel
// CHECK-NEXT:   access.access {buffer = "flags", kind = "read"
// CHECK-NEXT:   access.access {buffer = "out", kind = "write", {{.*}} indices = ["GRID0"], {{.*}} sources = []}
// CHECK-NOT:    freq
// CHECK-NOT:    access.unmodelled
