// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// A while loop whose trips depend on loaded values (a Poisson draw: `while (p > limit) { k++;
// p *= u[k]; }`): a value the loop carries is opaque, computed from the reads its trips depend on,
// so an access it indexes is `access.indirect`; an access whose index the loop does not change
// (`count[row]`) keeps that index, under a `data_condition` (it happens on some trips, or none).

builtin.module {
  kernel.entry @draws attributes {language = "cuda", file = "draws.cu"} {
    kernel.param {name = "p0", kind = "buffer", role = "in", element_type = f32, shape = ["b"]}
    kernel.param {name = "u", kind = "buffer", role = "in", element_type = f32, shape = ["m"]}
    kernel.param {name = "count", kind = "buffer", role = "out", element_type = i32, shape = ["b"]}
    kernel.param {name = "m", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.param {name = "b", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.launch @draw_kernel {grid = ["b", "1", "1"], block = ["1", "1", "1"], args = ["p0", "u", "count", "m"]}
  }
  func.func @draw_kernel(%p0: memref<?xf32>, %u: memref<?xf32>, %count: memref<?xi32>, %m: i32) attributes {gpu.kernel} {
    %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
    %start = memref.load %p0[%bid] : memref<?xf32>
    %limit = arith.constant 0.5 : f32
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %p, %k = scf.while (%pa = %start, %ka = %zero) : (f32, i32) -> (f32, i32) {
      %go = arith.cmpf ogt, %pa, %limit : f32
      scf.condition(%go) %pa, %ka : f32, i32
    } do {
    ^bb0(%pb: f32, %kb: i32):
      %k1 = arith.addi %kb, %one : i32
      %at = arith.index_cast %k1 : i32 to index
      %draw = memref.load %u[%at] : memref<?xf32>
      %p1 = arith.mulf %pb, %draw : f32
      memref.store %k1, %count[%bid] : memref<?xi32>
      scf.yield %p1, %k1 : f32, i32
    }
    func.return
  }
}

// CHECK:      access.kernel @draw_kernel
// CHECK-NEXT:   access.access {buffer = "p0", kind = "read", {{.*}} id = "r0"
// CHECK-NEXT:   access.indirect {buffer = "u", kind = "read", space = "global", element_type = f32, sources = ["r0"], reason = "an index computed from loaded data (a value a while loop carries)", id = "r1"}
// CHECK-NEXT:   access.access {buffer = "count", kind = "write", {{.*}} indices = ["GRID0"], {{.*}} data_condition = "a while loop whose trips lowercheck does not enumerate"}
// CHECK-NOT:    access.unmodelled
