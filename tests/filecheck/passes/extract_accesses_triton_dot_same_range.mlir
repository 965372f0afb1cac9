// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// s = a @ b^T where a's rows and b's rows come from ONE make_range (Triton merges equal aranges: q's
// rows and k's rows in attention with BLOCK_M == BLOCK_N). The dot's two output dimensions must be
// two lanes: b's row lane (LANE4, also a's) is renamed to a fresh lane (LANE6) in b's sources, which
// the store then knows as its column lane (LANE5): s[i, j] reads a's row i and b's row j, not b's
// row i.

builtin.module {
  kernel.entry @qk attributes {language = "triton", file = "qk.py"} {
    kernel.param {name = "a", kind = "buffer", role = "in", element_type = f32, shape = ["16", "16"]}
    kernel.param {name = "b", kind = "buffer", role = "in", element_type = f32, shape = ["16", "16"]}
    kernel.param {name = "return0", kind = "buffer", role = "out", element_type = f32, shape = ["16", "16"]}
    kernel.launch @k {grid = ["1", "1", "1"], block = [], args = ["a", "b", "return0"]}
  }
  "tt.func"() <{sym_name = "k", function_type = (!tt.ptr<f32>, !tt.ptr<f32>, !tt.ptr<f32>) -> ()}> ({
  ^bb0(%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %out: !tt.ptr<f32>):
    %r = "tt.make_range"() <{start = 0 : i32, end = 16 : i32}> : () -> tensor<16xi32>
    %c16 = "arith.constant"() <{value = dense<16> : tensor<16x1xi32>}> : () -> tensor<16x1xi32>
    %zero = "arith.constant"() <{value = dense<0.0> : tensor<16x16xf32>}> : () -> tensor<16x16xf32>
    %rows = "tt.expand_dims"(%r) <{axis = 1 : i32}> : (tensor<16xi32>) -> tensor<16x1xi32>
    %cols = "tt.expand_dims"(%r) <{axis = 0 : i32}> : (tensor<16xi32>) -> tensor<1x16xi32>
    %rs = "arith.muli"(%rows, %c16) <{overflowFlags = #arith.overflow<none>}> : (tensor<16x1xi32>, tensor<16x1xi32>) -> tensor<16x1xi32>
    %rb = "tt.broadcast"(%rs) : (tensor<16x1xi32>) -> tensor<16x16xi32>
    %cb = "tt.broadcast"(%cols) : (tensor<1x16xi32>) -> tensor<16x16xi32>
    %off = "arith.addi"(%rb, %cb) <{overflowFlags = #arith.overflow<none>}> : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi32>
    %as = "tt.splat"(%a) : (!tt.ptr<f32>) -> tensor<16x16x!tt.ptr<f32>>
    %ap = "tt.addptr"(%as, %off) : (tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>) -> tensor<16x16x!tt.ptr<f32>>
    %av = "tt.load"(%ap) <{operandSegmentSizes = array<i32: 1, 0, 0>, cache = 1 : i32, evict = 1 : i32, isVolatile = false}> : (tensor<16x16x!tt.ptr<f32>>) -> tensor<16x16xf32>
    %bs = "tt.splat"(%b) : (!tt.ptr<f32>) -> tensor<16x16x!tt.ptr<f32>>
    %bp = "tt.addptr"(%bs, %off) : (tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>) -> tensor<16x16x!tt.ptr<f32>>
    %bv = "tt.load"(%bp) <{operandSegmentSizes = array<i32: 1, 0, 0>, cache = 1 : i32, evict = 1 : i32, isVolatile = false}> : (tensor<16x16x!tt.ptr<f32>>) -> tensor<16x16xf32>
    %bt = "tt.trans"(%bv) <{order = array<i32: 1, 0>}> : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %s = "tt.dot"(%av, %bt, %zero) <{inputPrecision = 2 : i32, maxNumImpreciseAcc = 0 : i32}> : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %os = "tt.splat"(%out) : (!tt.ptr<f32>) -> tensor<16x16x!tt.ptr<f32>>
    %op = "tt.addptr"(%os, %off) : (tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>) -> tensor<16x16x!tt.ptr<f32>>
    "tt.store"(%op, %s) <{cache = 1 : i32, evict = 1 : i32}> : (tensor<16x16x!tt.ptr<f32>>, tensor<16x16xf32>) -> ()
    "tt.return"() : () -> ()
  }) : () -> ()
}

// CHECK:      access.access {buffer = "a", {{.*}} indices = ["16*LANE4 + LANE5"]
// CHECK:      access.access {buffer = "return0", kind = "write", {{.*}} indices = ["16*LANE4 + LANE5"], {{.*}} sources = ["r0/LANE5@LANE6=LANE5", "r1@LANE4=LANE6/LANE5@LANE6=LANE5"]
