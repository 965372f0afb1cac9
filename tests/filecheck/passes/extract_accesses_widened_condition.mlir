// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// A condition widened to an int and compared with 0 (C's `bool` passed as `(int)do_access` to a
// predicated PTX load, `setp.ne.b32 p, %k, 0`): the guard is the condition itself, `!= 0` keeps it
// and `== 0` negates it. (sympy alone calls `Ne(i < n, 0)` true and would drop the guard.)

builtin.module {
  kernel.entry @copy attributes {language = "cuda", file = "copy.cu"} {
    kernel.param {name = "a", kind = "buffer", role = "in", element_type = f32, shape = []}
    kernel.param {name = "c", kind = "buffer", role = "out", element_type = f32, shape = []}
    kernel.param {name = "n", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.launch @copy_kernel {grid = ["floor((n + 255)/256)", "1", "1"], block = ["256", "1", "1"], args = ["a", "c", "n"]}
  }
  func.func @copy_kernel(%a: memref<?xf32>, %c: memref<?xf32>, %n: i32) attributes {gpu.kernel} {
    %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
    %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %0 = arith.index_cast %bid : index to i32
    %2 = arith.index_cast %tid : index to i32
    %c256 = arith.constant 256 : i32
    %3 = arith.muli %0, %c256 : i32
    %i = arith.addi %3, %2 : i32
    %inside = arith.cmpi slt, %i, %n : i32
    %wide = arith.extui %inside : i1 to i32
    %zero = arith.constant 0 : i32
    %enabled = arith.cmpi ne, %wide, %zero : i32
    %idx = arith.index_cast %i : i32 to index
    scf.if %enabled {
      %x = memref.load %a[%idx] : memref<?xf32>
      memref.store %x, %c[%idx] : memref<?xf32>
    }
    %outside = arith.cmpi eq, %wide, %zero : i32
    scf.if %outside {
      %y = memref.load %a[%idx] : memref<?xf32>
    }
    func.return
  }
}

// CHECK:      access.access {buffer = "a", kind = "read", {{.*}} guard = ["256*GRID0 + LANE0 < n"]
// CHECK-NEXT: access.access {buffer = "c", kind = "write", {{.*}} guard = ["256*GRID0 + LANE0 < n"]
// CHECK-NEXT: access.access {buffer = "a", kind = "read", {{.*}} guard = ["256*GRID0 + LANE0 >= n"]
