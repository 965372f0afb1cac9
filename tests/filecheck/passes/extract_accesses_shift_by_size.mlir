// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// A shift by a size parameter (`hidden >> merge`, DeepSpeed's dequantize) is a division by a power of
// two of that size: an index expression, checked per swept size; a shift by a thread's value is not.

builtin.module {
  kernel.entry @groups attributes {language = "cuda", file = "groups.cu"} {
    kernel.param {name = "scale", kind = "buffer", role = "in", element_type = f32, shape = []}
    kernel.param {name = "out", kind = "buffer", role = "out", element_type = f32, shape = []}
    kernel.param {name = "hidden", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.param {name = "merge", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.launch @groups_kernel {grid = ["hidden", "1", "1"], block = ["1", "1", "1"], args = ["scale", "out", "hidden", "merge"]}
  }
  func.func @groups_kernel(%scale: memref<?xf32>, %out: memref<?xf32>, %hidden: i32, %merge: i32) attributes {gpu.kernel} {
    %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
    %i = arith.index_cast %bid : index to i32
    %group = arith.shrui %i, %merge : i32
    %g = arith.index_cast %group : i32 to index
    %s = memref.load %scale[%g] : memref<?xf32>
    %wide = arith.shli %i, %i : i32
    %w = arith.index_cast %wide : i32 to index
    memref.store %s, %out[%w] : memref<?xf32>
    func.return
  }
}

// CHECK:      access.kernel @groups_kernel
// CHECK-NEXT:   access.access {buffer = "scale", kind = "read", {{.*}} indices = ["floor(GRID0/(2**merge))"]
// CHECK-NEXT:   access.unmodelled {buffer = "out", reason = "arith.shli: shift by a variable is not an index operation"}
