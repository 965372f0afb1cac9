// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// A guarded 1-D CUDA kernel: one read per input, one write, all under `i < n`. The index is computed
// in i32 (`int32`: what must fit 32 bits), the stored value is an f32 sum (`accumulation`).

builtin.module {
  kernel.entry @vadd attributes {language = "cuda", file = "vadd.cu"} {
    kernel.param {name = "a", kind = "buffer", role = "in", element_type = f32, shape = []}
    kernel.param {name = "b", kind = "buffer", role = "in", element_type = f32, shape = []}
    kernel.param {name = "c", kind = "buffer", role = "out", element_type = f32, shape = []}
    kernel.param {name = "n", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.launch @vadd_kernel {grid = ["floor((n + 255)/256)", "1", "1"], block = ["256", "1", "1"], args = ["a", "b", "c", "n"]}
  }
  func.func @vadd_kernel(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>, %n: i32) attributes {gpu.kernel} {
    %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
    %bdim = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
    %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %0 = arith.index_cast %bid : index to i32
    %1 = arith.index_cast %bdim : index to i32
    %2 = arith.index_cast %tid : index to i32
    %3 = arith.muli %0, %1 : i32
    %i = arith.addi %3, %2 : i32
    %cond = arith.cmpi slt, %i, %n : i32
    scf.if %cond {
      %idx = arith.index_cast %i : i32 to index
      %x = memref.load %a[%idx] : memref<?xf32>
      %y = memref.load %b[%idx] : memref<?xf32>
      %s = arith.addf %x, %y : f32
      memref.store %s, %c[%idx] : memref<?xf32>
    }
    func.return
  }
}

// CHECK:      access.kernel @vadd_kernel attributes {grid = ["floor((n + 255)/256)", "1", "1"]} {
// CHECK-NEXT:   access.access {buffer = "a", kind = "read", space = "global", element_type = f32, indices = ["256*GRID0 + LANE0"], domain = ["LANE0 < 256"], guard = ["256*GRID0 + LANE0 < n"], fastest = "LANE0", id = "r0", sources = [], int32 = ["256*GRID0", "256*GRID0 + LANE0"]}
// CHECK-NEXT:   access.access {buffer = "b", kind = "read", {{.*}} indices = ["256*GRID0 + LANE0"]
// CHECK-NEXT:   access.access {buffer = "c", kind = "write", {{.*}} guard = ["256*GRID0 + LANE0 < n"], fastest = "LANE0", id = "w0", sources = ["r0", "r1"], int32 = {{.*}}, accumulation = ["f32"]}
// CHECK-NOT:  func.func
