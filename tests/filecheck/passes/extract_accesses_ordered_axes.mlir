// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// A launch's ordered grid axes (a Pallas TPU kernel's "arbitrary" dimension_semantics: one core
// runs the steps along them in order) are carried from `kernel.launch` to its `access.kernel`,
// where the exactly-once check (LC203) reads them; a launch without them has none.

builtin.module {
  kernel.entry @sums attributes {language = "pallas", file = "sums.py"} {
    kernel.param {name = "x", kind = "buffer", role = "in", element_type = f32, shape = ["8*k"]}
    kernel.param {name = "return0", kind = "buffer", role = "out", element_type = f32, shape = ["8"]}
    kernel.param {name = "k", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.launch @acc {grid = ["1", "k", "1"], block = [], args = ["x", "return0"], ordered = [1 : i32]}
    kernel.launch @acc {grid = ["1", "k", "1"], block = [], args = ["x", "return0"]}
  }
  "tt.func"() <{sym_name = "acc", function_type = (!tt.ptr<f32>, !tt.ptr<f32>) -> ()}> ({
  ^bb0(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>):
    %step = "tt.get_program_id"() <{axis = 1 : i32}> : () -> i32
    %c8 = "arith.constant"() <{value = 8 : i32}> : () -> i32
    %base = "arith.muli"(%step, %c8) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
    %r = "tt.make_range"() <{start = 0 : i32, end = 8 : i32}> : () -> tensor<8xi32>
    %bs = "tt.splat"(%base) : (i32) -> tensor<8xi32>
    %off = "arith.addi"(%bs, %r) <{overflowFlags = #arith.overflow<none>}> : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %xs = "tt.splat"(%x) : (!tt.ptr<f32>) -> tensor<8x!tt.ptr<f32>>
    %xp = "tt.addptr"(%xs, %off) : (tensor<8x!tt.ptr<f32>>, tensor<8xi32>) -> tensor<8x!tt.ptr<f32>>
    %v = "tt.load"(%xp) <{operandSegmentSizes = array<i32: 1, 0, 0>, cache = 1 : i32, evict = 1 : i32, isVolatile = false}> : (tensor<8x!tt.ptr<f32>>) -> tensor<8xf32>
    %os = "tt.splat"(%out) : (!tt.ptr<f32>) -> tensor<8x!tt.ptr<f32>>
    %op = "tt.addptr"(%os, %r) : (tensor<8x!tt.ptr<f32>>, tensor<8xi32>) -> tensor<8x!tt.ptr<f32>>
    "tt.store"(%op, %v) <{cache = 1 : i32, evict = 1 : i32}> : (tensor<8x!tt.ptr<f32>>, tensor<8xf32>) -> ()
    "tt.return"() : () -> ()
  }) : () -> ()
}

// CHECK:      access.kernel @acc attributes {grid = ["1", "k", "1"], ordered = [1 : i32]} {
// CHECK-NEXT:   access.access {buffer = "x", kind = "read", {{.*}} indices = ["8*GRID1 + LANE{{[0-9]+}}"]
// CHECK-NEXT:   access.access {buffer = "return0", kind = "write", {{.*}} indices = ["LANE{{[0-9]+}}"]
// CHECK:      access.kernel @acc attributes {grid = ["1", "k", "1"]} {
