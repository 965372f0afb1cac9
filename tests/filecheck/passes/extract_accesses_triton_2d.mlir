// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// A 2-D Triton tile, offs_m[:, None] * stride + offs_n[None, :], built from ONE arange used on both
// axes: the two dimensions must get distinct lanes (LANE4 for rows, LANE5 for columns; LANE3 is the
// arange itself), and the same two in the load and the store; `lanes` lists them by dimension (rows first).

builtin.module {
  kernel.entry @copy2d attributes {language = "triton", file = "copy2d.py"} {
    kernel.param {name = "x", kind = "buffer", role = "in", element_type = f32, shape = ["n*n"]}
    kernel.param {name = "return0", kind = "buffer", role = "out", element_type = f32, shape = ["n*n"]}
    kernel.param {name = "n", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.launch @k {grid = ["1", "1", "1"], block = [], args = ["x", "return0", "n"]}
  }
  "tt.func"() <{sym_name = "k", function_type = (!tt.ptr<f32>, !tt.ptr<f32>, i32) -> ()}> ({
  ^bb0(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32):
    %r = "tt.make_range"() <{start = 0 : i32, end = 16 : i32}> : () -> tensor<16xi32>
    %rows = "tt.expand_dims"(%r) <{axis = 1 : i32}> : (tensor<16xi32>) -> tensor<16x1xi32>
    %cols = "tt.expand_dims"(%r) <{axis = 0 : i32}> : (tensor<16xi32>) -> tensor<1x16xi32>
    %ns = "tt.splat"(%n) : (i32) -> tensor<16x1xi32>
    %rs = "arith.muli"(%rows, %ns) <{overflowFlags = #arith.overflow<none>}> : (tensor<16x1xi32>, tensor<16x1xi32>) -> tensor<16x1xi32>
    %rb = "tt.broadcast"(%rs) : (tensor<16x1xi32>) -> tensor<16x16xi32>
    %cb = "tt.broadcast"(%cols) : (tensor<1x16xi32>) -> tensor<16x16xi32>
    %off = "arith.addi"(%rb, %cb) <{overflowFlags = #arith.overflow<none>}> : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi32>
    %xs = "tt.splat"(%x) : (!tt.ptr<f32>) -> tensor<16x16x!tt.ptr<f32>>
    %xp = "tt.addptr"(%xs, %off) : (tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>) -> tensor<16x16x!tt.ptr<f32>>
    %v = "tt.load"(%xp) <{operandSegmentSizes = array<i32: 1, 0, 0>, cache = 1 : i32, evict = 1 : i32, isVolatile = false}> : (tensor<16x16x!tt.ptr<f32>>) -> tensor<16x16xf32>
    %os = "tt.splat"(%out) : (!tt.ptr<f32>) -> tensor<16x16x!tt.ptr<f32>>
    %op = "tt.addptr"(%os, %off) : (tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>) -> tensor<16x16x!tt.ptr<f32>>
    "tt.store"(%op, %v) <{cache = 1 : i32, evict = 1 : i32}> : (tensor<16x16x!tt.ptr<f32>>, tensor<16x16xf32>) -> ()
    "tt.return"() : () -> ()
  }) : () -> ()
}

// CHECK:      access.kernel @k attributes {grid = ["1", "1", "1"]} {
// CHECK-NEXT:   access.access {buffer = "x", kind = "read", {{.*}} indices = ["LANE4*n + LANE5"], domain = ["LANE4 < 16", "LANE5 < 16"], guard = [], fastest = "LANE5", id = "r0", sources = [], int32 = ["LANE4*n", "LANE4*n + LANE5"], lanes = ["LANE4", "LANE5"]}
// CHECK-NEXT:   access.access {buffer = "return0", kind = "write", {{.*}} indices = ["LANE4*n + LANE5"], {{.*}} fastest = "LANE5", id = "w0", sources = ["r0"], int32 = {{.*}}, lanes = ["LANE4", "LANE5"]}
