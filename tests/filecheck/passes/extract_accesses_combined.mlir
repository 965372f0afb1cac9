// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// The operators by which a stored value combined the values of several trips, lanes or work items
// (`combined`, compared by LC204): a loop accumulator's (`a += v` sum, `fmaxf(m, v)` and
// `v > q ? v : q` max, an `if` choosing "?"), a shared-memory tree's (`s[t] += s[t + 32]` joins two
// reads of one shared buffer), a shuffle butterfly's (`fmaxf(w, shfl_xor(w, 16))`; the `w - x` after
// it uses the maximum but combines nothing), an atomic's (atomicMax). From the IR of:
//
//   for (c = 0; c < n; ++c) { v = x[r*n + c]; a += v; m = fmaxf(m, v); q = v > q ? v : q; if (v > b) b = v; }
//   sum[..] = a; mx[..] = m; sel[..] = q; branchy[..] = b;
//   s[t] = x[..]; sync; if (t < 32) s[t] += s[t + 32]; sync; if (t == 0) tree[r] = s[0] + s[1];
//   w = x[..]; w = fmaxf(w, __shfl_xor_sync(~0, w, 16)); warp[..] = w - x[..];
//   atomicMax(&amax[r], (int)x[..]);

builtin.module {
  kernel.entry @combine attributes {language = "cuda", file = "comb.cu"} {
    kernel.param {name = "x", kind = "buffer", role = "in", element_type = f32, shape = []}
    kernel.param {name = "sum", kind = "buffer", role = "out", element_type = f32, shape = []}
    kernel.param {name = "mx", kind = "buffer", role = "out", element_type = f32, shape = []}
    kernel.param {name = "sel", kind = "buffer", role = "out", element_type = f32, shape = []}
    kernel.param {name = "branchy", kind = "buffer", role = "out", element_type = f32, shape = []}
    kernel.param {name = "tree", kind = "buffer", role = "out", element_type = f32, shape = []}
    kernel.param {name = "warp", kind = "buffer", role = "out", element_type = f32, shape = []}
    kernel.param {name = "amax", kind = "buffer", role = "inout", element_type = i32, shape = []}
    kernel.param {name = "n", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.launch @combine_kernel {grid = ["n", "1", "1"], block = ["64", "1", "1"], args = ["x", "sum", "mx", "sel", "branchy", "tree", "warp", "amax", "n"]}
  }
  func.func @combine_kernel(%x: memref<?xf32>, %sum: memref<?xf32>, %mx: memref<?xf32>, %sel: memref<?xf32>, %branchy: memref<?xf32>, %tree: memref<?xf32>, %warp: memref<?xf32>, %amax: memref<?xi32>, %n: i32) attributes {gpu.kernel} {
    %s = memref.alloca() : memref<64xf32, 3 : i64>
    %0 = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
    %1 = arith.index_cast %0 : index to i32
    %2 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %3 = arith.index_cast %2 : index to i32
    %4 = arith.constant 0.000000e+00 : f32
    %5 = arith.constant 1.000000e+30 : f32
    %6 = arith.negf %5 : f32
    %7 = arith.constant 1.000000e+30 : f32
    %8 = arith.negf %7 : f32
    %9 = arith.constant 1.000000e+30 : f32
    %10 = arith.negf %9 : f32
    %11 = arith.constant 0 : i32
    %12 = arith.index_cast %11 : i32 to index
    %13 = arith.index_cast %n : i32 to index
    %14 = arith.constant 1 : index
    %15, %16, %17, %18 = scf.for %19 = %12 to %13 step %14 iter_args(%20 = %4, %21 = %6, %22 = %8, %23 = %10) -> (f32, f32, f32, f32) {
      %24 = arith.index_cast %19 : index to i32
      %25 = arith.muli %1, %n : i32
      %26 = arith.addi %25, %24 : i32
      %27 = arith.index_cast %26 : i32 to index
      %28 = memref.load %x[%27] : memref<?xf32>
      %29 = arith.addf %20, %28 : f32
      %30 = arith.maxnumf %21, %28 : f32
      %31 = arith.cmpf ogt, %28, %22 : f32
      %32 = arith.select %31, %28, %22 : f32
      %33 = arith.cmpf ogt, %28, %23 : f32
      %34 = scf.if %33 -> (f32) {
        scf.yield %28 : f32
      } else {
        scf.yield %23 : f32
      }
      scf.yield %29, %30, %32, %34 : f32, f32, f32, f32
    }
    %35 = arith.constant 64 : i32
    %36 = arith.muli %1, %35 : i32
    %37 = arith.addi %36, %3 : i32
    %38 = arith.index_cast %37 : i32 to index
    memref.store %15, %sum[%38] : memref<?xf32>
    %39 = arith.constant 64 : i32
    %40 = arith.muli %1, %39 : i32
    %41 = arith.addi %40, %3 : i32
    %42 = arith.index_cast %41 : i32 to index
    memref.store %16, %mx[%42] : memref<?xf32>
    %43 = arith.constant 64 : i32
    %44 = arith.muli %1, %43 : i32
    %45 = arith.addi %44, %3 : i32
    %46 = arith.index_cast %45 : i32 to index
    memref.store %17, %sel[%46] : memref<?xf32>
    %47 = arith.constant 64 : i32
    %48 = arith.muli %1, %47 : i32
    %49 = arith.addi %48, %3 : i32
    %50 = arith.index_cast %49 : i32 to index
    memref.store %18, %branchy[%50] : memref<?xf32>
    %51 = arith.constant 64 : i32
    %52 = arith.muli %1, %51 : i32
    %53 = arith.addi %52, %3 : i32
    %54 = arith.index_cast %53 : i32 to index
    %55 = memref.load %x[%54] : memref<?xf32>
    %56 = arith.index_cast %3 : i32 to index
    memref.store %55, %s[%56] : memref<64xf32, 3 : i64>
    "gpu.barrier"() : () -> ()
    %57 = arith.constant 32 : i32
    %58 = arith.cmpi slt, %3, %57 : i32
    scf.if %58 {
      %59 = arith.constant 32 : i32
      %60 = arith.addi %3, %59 : i32
      %61 = arith.index_cast %60 : i32 to index
      %62 = memref.load %s[%61] : memref<64xf32, 3 : i64>
      %63 = arith.index_cast %3 : i32 to index
      %64 = memref.load %s[%63] : memref<64xf32, 3 : i64>
      %65 = arith.addf %64, %62 : f32
      memref.store %65, %s[%63] : memref<64xf32, 3 : i64>
    }
    "gpu.barrier"() : () -> ()
    %66 = arith.constant 0 : i32
    %67 = arith.cmpi eq, %3, %66 : i32
    scf.if %67 {
      %68 = arith.constant 0 : i32
      %69 = arith.index_cast %68 : i32 to index
      %70 = memref.load %s[%69] : memref<64xf32, 3 : i64>
      %71 = arith.constant 1 : i32
      %72 = arith.index_cast %71 : i32 to index
      %73 = memref.load %s[%72] : memref<64xf32, 3 : i64>
      %74 = arith.addf %70, %73 : f32
      %75 = arith.index_cast %1 : i32 to index
      memref.store %74, %tree[%75] : memref<?xf32>
    }
    %76 = arith.constant 64 : i32
    %77 = arith.muli %1, %76 : i32
    %78 = arith.addi %77, %3 : i32
    %79 = arith.index_cast %78 : i32 to index
    %80 = memref.load %x[%79] : memref<?xf32>
    %81 = arith.constant -1 : i32
    %82 = arith.constant 16 : i32
    %83 = arith.constant 32 : i32
    %84 = simt.shuffle {mode = "xor"} %80, %82, %81, %83 : f32
    %85 = arith.maxnumf %80, %84 : f32
    %86 = arith.constant 64 : i32
    %87 = arith.muli %1, %86 : i32
    %88 = arith.addi %87, %3 : i32
    %89 = arith.index_cast %88 : i32 to index
    %90 = memref.load %x[%89] : memref<?xf32>
    %91 = arith.subf %85, %90 : f32
    %92 = arith.constant 64 : i32
    %93 = arith.muli %1, %92 : i32
    %94 = arith.addi %93, %3 : i32
    %95 = arith.index_cast %94 : i32 to index
    memref.store %91, %warp[%95] : memref<?xf32>
    %96 = arith.index_cast %1 : i32 to index
    %97 = arith.constant 64 : i32
    %98 = arith.muli %1, %97 : i32
    %99 = arith.addi %98, %3 : i32
    %100 = arith.index_cast %99 : i32 to index
    %101 = memref.load %x[%100] : memref<?xf32>
    %102 = arith.fptosi %101 : f32 to i32
    %103 = "memref.atomic_rmw"(%102, %amax, %96) <{kind = 4 : i64}> : (i32, memref<?xi32>, index) -> i32
    func.return
  }
}

// CHECK:      buffer = "sum", kind = "write"
// CHECK-SAME: sources = ["r1"]
// CHECK-SAME: combined = ["sum"]
// CHECK:      buffer = "mx", kind = "write"
// CHECK-SAME: combined = ["max"]
// CHECK:      buffer = "sel", kind = "write"
// CHECK-SAME: combined = ["max"]
// CHECK:      buffer = "branchy", kind = "write"
// CHECK-SAME: combined = ["?"]
// CHECK:      kind = "write", space = "shared"
// CHECK-SAME: sources = ["r2"]
// CHECK-NOT:  combined
// CHECK:      kind = "write", space = "shared"
// CHECK-SAME: sources = ["r3", "r4"]
// CHECK-SAME: combined = ["sum"]
// CHECK:      buffer = "tree", kind = "write"
// CHECK-SAME: sources = ["r5", "r6"]
// CHECK-SAME: combined = ["sum"]
// CHECK:      buffer = "warp", kind = "write"
// CHECK-SAME: sources = ["r7~LANE0X16w32", "r8"]
// CHECK-SAME: combined = ["max"]
// CHECK:      buffer = "amax", kind = "atomic"
// CHECK-SAME: combined = ["max"]
