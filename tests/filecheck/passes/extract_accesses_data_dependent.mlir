// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// Accesses modelled in part ("partly proved"):
// - `table[ids[i] * d + j]`, an embedding lookup: the index comes from the read of `ids` (r0), so the
//   access is `access.indirect` with that source; the runs bounds-check it. `ids[i]` and `out[...]`
//   stay ordinary accesses.
// - a `bool` kernel parameter in a condition (`if (scale && i < n)`) is a condition on the parameter,
//   not an unknown value: the guard says `Ne(scale, 0)`.

builtin.module {
  kernel.entry @embed attributes {language = "cuda", file = "embed.cu"} {
    kernel.param {name = "ids", kind = "buffer", role = "in", element_type = i32, shape = ["n"]}
    kernel.param {name = "table", kind = "buffer", role = "in", element_type = f32, shape = ["v", "d"]}
    kernel.param {name = "out", kind = "buffer", role = "out", element_type = f32, shape = ["n", "d"]}
    kernel.param {name = "scale", kind = "scalar", role = "size", element_type = i1, shape = []}
    kernel.param {name = "n", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.param {name = "d", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.param {name = "v", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.launch @embed_kernel {grid = ["n", "1", "1"], block = ["d", "1", "1"], args = ["ids", "table", "out", "scale", "n", "d"]}
  }
  func.func @embed_kernel(%ids: memref<?xi32>, %table: memref<?xf32>, %out: memref<?xf32>, %scale: i1, %n: i32, %d: i32) attributes {gpu.kernel} {
    %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
    %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %i = arith.index_cast %bid : index to i32
    %j = arith.index_cast %tid : index to i32
    %row = memref.load %ids[%bid] : memref<?xi32>
    %base = arith.muli %row, %d : i32
    %at = arith.addi %base, %j : i32
    %at_index = arith.index_cast %at : i32 to index
    %x = memref.load %table[%at_index] : memref<?xf32>
    %obase = arith.muli %i, %d : i32
    %o = arith.addi %obase, %j : i32
    %o_index = arith.index_cast %o : i32 to index
    %inside = arith.cmpi slt, %i, %n : i32
    %enabled = arith.andi %scale, %inside : i1
    scf.if %enabled {
      memref.store %x, %out[%o_index] : memref<?xf32>
    }
    func.return
  }
}

// CHECK:      access.kernel @embed_kernel
// CHECK-NEXT:   access.access {buffer = "ids", kind = "read", {{.*}} indices = ["GRID0"], {{.*}} id = "r0"
// CHECK-NEXT:   access.indirect {buffer = "table", kind = "read", space = "global", element_type = f32, sources = ["r0"], reason = "an index computed from loaded data (a loaded value)", id = "r1"}
// CHECK-NEXT:   access.access {buffer = "out", kind = "write", {{.*}} indices = ["GRID0*d + LANE0"], {{.*}} guard = ["(GRID0 < n) & Ne(scale, 0)"]
// CHECK-NOT:    access.unmodelled
