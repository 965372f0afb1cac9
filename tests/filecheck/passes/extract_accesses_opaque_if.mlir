// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// An `if` on a loaded value (c == t[i], t an index buffer) that only selects a value is modelled: the
// stored value depends on the condition's read (r0) as well as on the selected one (r1). A store that an
// `if` on a loaded value guards keeps its index and says what it happens under (`data_condition`):
// bounds are checked as if it always happened, coverage of `flags` is left to the runs.

builtin.module {
  kernel.entry @pick attributes {language = "cuda", file = "pick.cu"} {
    kernel.param {name = "t", kind = "buffer", role = "in", element_type = i32, shape = []}
    kernel.param {name = "x", kind = "buffer", role = "in", element_type = f32, shape = []}
    kernel.param {name = "out", kind = "buffer", role = "out", element_type = f32, shape = []}
    kernel.param {name = "flags", kind = "buffer", role = "out", element_type = f32, shape = []}
    kernel.param {name = "n", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.launch @pick_kernel {grid = ["n", "1", "1"], block = ["1", "1", "1"], args = ["t", "x", "out", "flags", "n"]}
  }
  func.func @pick_kernel(%t: memref<?xi32>, %x: memref<?xf32>, %out: memref<?xf32>, %flags: memref<?xf32>, %n: i32) attributes {gpu.kernel} {
    %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
    %i = arith.index_cast %bid : index to i32
    %ti = memref.load %t[%bid] : memref<?xi32>
    %xi = memref.load %x[%bid] : memref<?xf32>
    %zero = arith.constant 0.0 : f32
    %c3 = arith.constant 3 : i32
    %hit = arith.cmpi eq, %ti, %c3 : i32
    %v = scf.if %hit -> (f32) {
      scf.yield %xi : f32
    } else {
      scf.yield %zero : f32
    }
    memref.store %v, %out[%bid] : memref<?xf32>
    scf.if %hit {
      memref.store %xi, %flags[%bid] : memref<?xf32>
    }
    func.return
  }
}

// CHECK:      access.kernel @pick_kernel
// CHECK-NEXT:   access.access {buffer = "t", kind = "read", {{.*}} id = "r0"
// CHECK-NEXT:   access.access {buffer = "x", kind = "read", {{.*}} id = "r1"
// CHECK-NEXT:   access.access {buffer = "out", kind = "write", {{.*}} sources = ["r0", "r1"]
// CHECK-NEXT:   access.access {buffer = "flags", kind = "write", {{.*}} indices = ["GRID0"], {{.*}} data_condition = "a condition on loaded values (r0)"}
// CHECK-NOT:    access.unmodelled
