// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// A loop-carried index that moves by what it reads (`b = lengths[b] == 0 ? b + 1 : b`, paged
// attention's skip over empty sequences): no step describes it, so it is opaque, computed from the
// reads of its trips; the access it indexes is `access.indirect` naming those reads (the body's own
// read of `lengths`, not a marker), and an access it does not index stays fully modelled.

builtin.module {
  kernel.entry @skip attributes {language = "cuda", file = "skip.cu"} {
    kernel.param {name = "lengths", kind = "buffer", role = "in", element_type = i32, shape = ["b"]}
    kernel.param {name = "out", kind = "buffer", role = "out", element_type = i32, shape = ["g"]}
    kernel.param {name = "b", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.param {name = "g", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.launch @skip_kernel {grid = ["g", "1", "1"], block = ["1", "1", "1"], args = ["lengths", "out", "b"]}
  }
  func.func @skip_kernel(%lengths: memref<?xi32>, %out: memref<?xi32>, %b: i32) attributes {gpu.kernel} {
    %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %four = arith.constant 4 : index
    %z32 = arith.constant 0 : i32
    %o32 = arith.constant 1 : i32
    %start = arith.index_cast %bid : index to i32
    %last = scf.for %t = %zero to %four step %one iter_args(%cur = %start) -> (i32) {
      %at = arith.index_cast %cur : i32 to index
      %len = memref.load %lengths[%at] : memref<?xi32>
      %empty = arith.cmpi eq, %len, %z32 : i32
      %next = arith.addi %cur, %o32 : i32
      %moved = arith.select %empty, %next, %cur : i32
      memref.store %z32, %out[%bid] : memref<?xi32>
      scf.yield %moved : i32
    }
    func.return
  }
}

// CHECK:      access.kernel @skip_kernel
// CHECK-NEXT:   access.indirect {buffer = "lengths", kind = "read", space = "global", element_type = i32, sources = ["[[READ:r[0-9]+]]"], {{.*}} id = "[[READ]]"}
// CHECK-NEXT:   access.access {buffer = "out", kind = "write", {{.*}} indices = ["GRID0"]
// CHECK-NOT:    access.unmodelled
// CHECK-NOT:    carried
