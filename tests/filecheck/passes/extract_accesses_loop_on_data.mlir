// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// A loop whose bound is loaded (`for (j = 0; j < lens[row]; j++)`, a ragged batch): an access
// indexed by its induction variable is `access.indirect` (the runs bounds-check it), and one that
// is not (`total[row]`) stays modelled, under a condition on the loaded bound (it may not run).

builtin.module {
  kernel.entry @ragged attributes {language = "cuda", file = "ragged.cu"} {
    kernel.param {name = "lens", kind = "buffer", role = "in", element_type = i32, shape = ["b"]}
    kernel.param {name = "x", kind = "buffer", role = "in", element_type = f32, shape = ["b", "m"]}
    kernel.param {name = "total", kind = "buffer", role = "out", element_type = f32, shape = ["b"]}
    kernel.param {name = "m", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.param {name = "b", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.launch @ragged_kernel {grid = ["b", "1", "1"], block = ["1", "1", "1"], args = ["lens", "x", "total", "m"]}
  }
  func.func @ragged_kernel(%lens: memref<?xi32>, %x: memref<?xf32>, %total: memref<?xf32>, %m: i32) attributes {gpu.kernel} {
    %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
    %row = arith.index_cast %bid : index to i32
    %len = memref.load %lens[%bid] : memref<?xi32>
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %ub = arith.index_cast %len : i32 to index
    %base = arith.muli %row, %m : i32
    %init = arith.constant 0.0 : f32
    %sum = scf.for %j = %zero to %ub step %one iter_args(%acc = %init) -> (f32) {
      %j32 = arith.index_cast %j : index to i32
      %at = arith.addi %base, %j32 : i32
      %at_index = arith.index_cast %at : i32 to index
      %v = memref.load %x[%at_index] : memref<?xf32>
      %next = arith.addf %acc, %v : f32
      memref.store %next, %total[%bid] : memref<?xf32>
      scf.yield %next : f32
    }
    func.return
  }
}

// CHECK:      access.kernel @ragged_kernel
// CHECK-NEXT:   access.access {buffer = "lens", kind = "read", {{.*}} id = "r0"
// CHECK-NEXT:   access.indirect {buffer = "x", kind = "read", space = "global", element_type = f32, sources = ["r0"], reason = "an index computed from loaded data (a loop index whose bounds come from loaded data)", id = "r1"}
// CHECK-NEXT:   access.access {buffer = "total", kind = "write", {{.*}} indices = ["GRID0"], {{.*}} data_condition = "a loop whose trips come from loaded values (r0)"}
