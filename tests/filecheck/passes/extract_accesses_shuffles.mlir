// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// Warp shuffles with constant offsets (the IR of a CUDA kernel, 64 threads per block): each source
// gets the lane step that says which lanes of the warp the value comes from, and `v + shfl(v, o)`
// folds into one span step, so a whole warp reduction is one source (lowercheck/dialects/sources.py):
// a butterfly over 16..1 reads every lane of the warp (X31), a shuffle-down chain the lanes from l to
// the end of the warp (D31), a butterfly over 16 and 8 only the lanes that agree with l on the low
// three bits (X24), a broadcast lane 0's value (i0), a shuffle-up scan the lanes up to l (U31).

builtin.module {
  kernel.entry @shuffles attributes {language = "cuda", file = "shuffles.cu"} {
    kernel.param {name = "x", kind = "buffer", role = "in", element_type = f32, shape = []}
    kernel.param {name = "butterfly", kind = "buffer", role = "out", element_type = f32, shape = []}
    kernel.param {name = "chain", kind = "buffer", role = "out", element_type = f32, shape = []}
    kernel.param {name = "half", kind = "buffer", role = "out", element_type = f32, shape = []}
    kernel.param {name = "bcast", kind = "buffer", role = "out", element_type = f32, shape = []}
    kernel.param {name = "scan", kind = "buffer", role = "out", element_type = f32, shape = []}
    kernel.param {name = "n", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.launch @shuffles_kernel {grid = ["floor(n/64)", "1", "1"], block = ["64", "1", "1"], args = ["x", "butterfly", "chain", "half", "bcast", "scan", "n"]}
  }
  func.func @shuffles_kernel(%x: memref<?xf32>, %butterfly: memref<?xf32>, %chain: memref<?xf32>, %half: memref<?xf32>, %bcast: memref<?xf32>, %scan: memref<?xf32>, %n: i32) attributes {gpu.kernel} {
    %0 = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
    %1 = arith.index_cast %0 : index to i32
    %2 = arith.constant 64 : i32
    %3 = arith.muli %1, %2 : i32
    %4 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %5 = arith.index_cast %4 : index to i32
    %6 = arith.addi %3, %5 : i32
    %7 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %8 = arith.index_cast %7 : index to i32
    %9 = arith.constant 32 : i32
    %10 = arith.remui %8, %9 : i32
    %11 = arith.index_cast %6 : i32 to index
    %12 = memref.load %x[%11] : memref<?xf32>
    %13 = arith.constant 16 : i32
    %14, %15 = scf.while (%16 = %12, %17 = %13) : (f32, i32) -> (f32, i32) {
      %18 = arith.constant 0 : i32
      %19 = arith.cmpi sgt, %17, %18 : i32
      scf.condition(%19) %16, %17 : f32, i32
    } do {
    ^bb0(%20: f32, %21: i32):
      %22 = arith.constant -1 : i32
      %23 = arith.constant 32 : i32
      %24 = simt.shuffle {mode = "xor"} %20, %21, %22, %23 : f32
      %25 = arith.addf %20, %24 : f32
      %26 = arith.constant 1 : i32
      %27 = arith.shrsi %21, %26 : i32
      scf.yield %25, %27 : f32, i32
    }
    %28 = arith.index_cast %6 : i32 to index
    memref.store %14, %butterfly[%28] : memref<?xf32>
    %29 = arith.constant 16 : i32
    %30, %31 = scf.while (%32 = %12, %33 = %29) : (f32, i32) -> (f32, i32) {
      %34 = arith.constant 0 : i32
      %35 = arith.cmpi sgt, %33, %34 : i32
      scf.condition(%35) %32, %33 : f32, i32
    } do {
    ^bb0(%36: f32, %37: i32):
      %38 = arith.constant -1 : i32
      %39 = arith.constant 32 : i32
      %40 = simt.shuffle {mode = "down"} %36, %37, %38, %39 : f32
      %41 = arith.maxnumf %36, %40 : f32
      %42 = arith.constant 2 : i32
      %43 = arith.divsi %37, %42 : i32
      scf.yield %41, %43 : f32, i32
    }
    %44 = arith.constant 0 : i32
    %45 = arith.cmpi eq, %10, %44 : i32
    scf.if %45 {
      %46 = arith.constant 32 : i32
      %47 = arith.divsi %6, %46 : i32
      %48 = arith.index_cast %47 : i32 to index
      memref.store %30, %chain[%48] : memref<?xf32>
    }
    %49 = arith.constant 16 : i32
    %50, %51 = scf.while (%52 = %12, %53 = %49) : (f32, i32) -> (f32, i32) {
      %54 = arith.constant 4 : i32
      %55 = arith.cmpi sgt, %53, %54 : i32
      scf.condition(%55) %52, %53 : f32, i32
    } do {
    ^bb0(%56: f32, %57: i32):
      %58 = arith.constant -1 : i32
      %59 = arith.constant 32 : i32
      %60 = simt.shuffle {mode = "xor"} %56, %57, %58, %59 : f32
      %61 = arith.addf %56, %60 : f32
      %62 = arith.constant 1 : i32
      %63 = arith.shrsi %57, %62 : i32
      scf.yield %61, %63 : f32, i32
    }
    %64 = arith.index_cast %6 : i32 to index
    memref.store %50, %half[%64] : memref<?xf32>
    %65 = arith.constant -1 : i32
    %66 = arith.constant 0 : i32
    %67 = arith.constant 32 : i32
    %68 = simt.shuffle {mode = "idx"} %30, %66, %65, %67 : f32
    %69 = arith.index_cast %6 : i32 to index
    memref.store %68, %bcast[%69] : memref<?xf32>
    %70 = arith.constant 1 : i32
    %71, %72 = scf.while (%73 = %12, %74 = %70) : (f32, i32) -> (f32, i32) {
      %75 = arith.constant 32 : i32
      %76 = arith.cmpi slt, %74, %75 : i32
      scf.condition(%76) %73, %74 : f32, i32
    } do {
    ^bb0(%77: f32, %78: i32):
      %79 = arith.constant -1 : i32
      %80 = arith.constant 32 : i32
      %81 = simt.shuffle {mode = "up"} %77, %78, %79, %80 : f32
      %82 = arith.cmpi sge, %10, %78 : i32
      %83 = scf.if %82 -> (f32) {
        %84 = arith.addf %77, %81 : f32
        scf.yield %84 : f32
      } else {
        scf.yield %77 : f32
      }
      %85 = arith.constant 1 : i32
      %86 = arith.shli %78, %85 : i32
      scf.yield %83, %86 : f32, i32
    }
    %87 = arith.index_cast %6 : i32 to index
    memref.store %71, %scan[%87] : memref<?xf32>
    func.return
  }
}

// CHECK:      access.kernel @shuffles_kernel
// CHECK:        access.access {buffer = "x", kind = "read", {{.*}} id = "r0"
// CHECK-NEXT:   access.access {buffer = "butterfly", kind = "write", {{.*}} sources = ["r0~LANE0X31w32"]
// CHECK-NEXT:   access.access {buffer = "chain", kind = "write", {{.*}} guard = ["Eq(Mod(LANE0, 32), 0)"], {{.*}} sources = ["r0~LANE0D31w32"]
// CHECK-NEXT:   access.access {buffer = "half", kind = "write", {{.*}} sources = ["r0~LANE0X24w32"]
// CHECK-NEXT:   access.access {buffer = "bcast", kind = "write", {{.*}} sources = ["r0~LANE0D31w32~LANE0i0w32"]
// CHECK-NEXT:   access.access {buffer = "scan", kind = "write", {{.*}} sources = ["r0~LANE0U31w32"]
// CHECK-NOT:    *moved*
