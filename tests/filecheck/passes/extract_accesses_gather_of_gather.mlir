// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// A gather through a gather (`x[ids[rows[b]]]`, a MoE token's row through its tile's expert): the
// inner read is `access.indirect` (indexed by `rows`) with an id of its own, and what it loads is
// computed from `rows` and from it, so the outer read is `access.indirect` with both as sources,
// never `access.unmodelled`.

builtin.module {
  kernel.entry @gather2 attributes {language = "cuda", file = "gather2.cu"} {
    kernel.param {name = "rows", kind = "buffer", role = "in", element_type = i32, shape = ["b"]}
    kernel.param {name = "ids", kind = "buffer", role = "in", element_type = i32, shape = ["m"]}
    kernel.param {name = "x", kind = "buffer", role = "in", element_type = f32, shape = ["k"]}
    kernel.param {name = "out", kind = "buffer", role = "out", element_type = f32, shape = ["b"]}
    kernel.param {name = "b", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.param {name = "m", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.param {name = "k", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.launch @gather2_kernel {grid = ["b", "1", "1"], block = ["1", "1", "1"], args = ["rows", "ids", "x", "out"]}
  }
  func.func @gather2_kernel(%rows: memref<?xi32>, %ids: memref<?xi32>, %x: memref<?xf32>, %out: memref<?xf32>) attributes {gpu.kernel} {
    %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
    %row = memref.load %rows[%bid] : memref<?xi32>
    %row_index = arith.index_cast %row : i32 to index
    %id = memref.load %ids[%row_index] : memref<?xi32>
    %id_index = arith.index_cast %id : i32 to index
    %v = memref.load %x[%id_index] : memref<?xf32>
    memref.store %v, %out[%bid] : memref<?xf32>
    func.return
  }
}

// CHECK:      access.kernel @gather2_kernel
// CHECK-NEXT:   access.access {buffer = "rows", kind = "read", {{.*}} id = "r0"
// CHECK-NEXT:   access.indirect {buffer = "ids", kind = "read", space = "global", element_type = i32, sources = ["r0"], {{.*}} id = "r1"}
// CHECK-NEXT:   access.indirect {buffer = "x", kind = "read", space = "global", element_type = f32, sources = ["r0", "r1"], {{.*}} id = "r2"}
// CHECK-NEXT:   access.access {buffer = "out", kind = "write", {{.*}} indices = ["GRID0"], {{.*}} sources = ["r0", "r1", "r2"]
// CHECK-NOT:    access.unmodelled
