// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// Two chained tl.dot: s = a @ b, then o = s @ w (attention's p @ v after q @ k^T). The second dot sums
// over s's columns, so the sources that already carry the first dot's reduction (`r0/LANE10`,
// `r1/LANE8`) are reduced again over s's column lane (LANE11): every o[i, j] reads a's row i, all of
// b and w's column j. Leaving them unreduced let a later position-by-position combination rename that
// lane into an output lane (a false LC204 in the corpus' attention).

builtin.module {
  kernel.entry @chain attributes {language = "triton", file = "chain.py"} {
    kernel.param {name = "a", kind = "buffer", role = "in", element_type = f32, shape = ["16", "16"]}
    kernel.param {name = "b", kind = "buffer", role = "in", element_type = f32, shape = ["16", "16"]}
    kernel.param {name = "w", kind = "buffer", role = "in", element_type = f32, shape = ["16", "16"]}
    kernel.param {name = "return0", kind = "buffer", role = "out", element_type = f32, shape = ["16", "16"]}
    kernel.launch @k {grid = ["1", "1", "1"], block = [], args = ["a", "b", "w", "return0"]}
  }
  "tt.func"() <{sym_name = "k", function_type = (!tt.ptr<f32>, !tt.ptr<f32>, !tt.ptr<f32>, !tt.ptr<f32>) -> ()}> ({
  ^bb0(%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %w: !tt.ptr<f32>, %out: !tt.ptr<f32>):
    %i = "tt.make_range"() <{start = 0 : i32, end = 16 : i32}> : () -> tensor<16xi32>
    %kk = "tt.make_range"() <{start = 0 : i32, end = 16 : i32}> : () -> tensor<16xi32>
    %j = "tt.make_range"() <{start = 0 : i32, end = 16 : i32}> : () -> tensor<16xi32>
    %l = "tt.make_range"() <{start = 0 : i32, end = 16 : i32}> : () -> tensor<16xi32>
    %c16 = "arith.constant"() <{value = dense<16> : tensor<16x1xi32>}> : () -> tensor<16x1xi32>
    %zero = "arith.constant"() <{value = dense<0.0> : tensor<16x16xf32>}> : () -> tensor<16x16xf32>
    %i2 = "tt.expand_dims"(%i) <{axis = 1 : i32}> : (tensor<16xi32>) -> tensor<16x1xi32>
    %k2 = "tt.expand_dims"(%kk) <{axis = 1 : i32}> : (tensor<16xi32>) -> tensor<16x1xi32>
    %j2 = "tt.expand_dims"(%j) <{axis = 1 : i32}> : (tensor<16xi32>) -> tensor<16x1xi32>
    %kc = "tt.expand_dims"(%kk) <{axis = 0 : i32}> : (tensor<16xi32>) -> tensor<1x16xi32>
    %jc = "tt.expand_dims"(%j) <{axis = 0 : i32}> : (tensor<16xi32>) -> tensor<1x16xi32>
    %lc = "tt.expand_dims"(%l) <{axis = 0 : i32}> : (tensor<16xi32>) -> tensor<1x16xi32>
    %ir = "arith.muli"(%i2, %c16) <{overflowFlags = #arith.overflow<none>}> : (tensor<16x1xi32>, tensor<16x1xi32>) -> tensor<16x1xi32>
    %kr = "arith.muli"(%k2, %c16) <{overflowFlags = #arith.overflow<none>}> : (tensor<16x1xi32>, tensor<16x1xi32>) -> tensor<16x1xi32>
    %jr = "arith.muli"(%j2, %c16) <{overflowFlags = #arith.overflow<none>}> : (tensor<16x1xi32>, tensor<16x1xi32>) -> tensor<16x1xi32>
    %irb = "tt.broadcast"(%ir) : (tensor<16x1xi32>) -> tensor<16x16xi32>
    %krb = "tt.broadcast"(%kr) : (tensor<16x1xi32>) -> tensor<16x16xi32>
    %jrb = "tt.broadcast"(%jr) : (tensor<16x1xi32>) -> tensor<16x16xi32>
    %kcb = "tt.broadcast"(%kc) : (tensor<1x16xi32>) -> tensor<16x16xi32>
    %jcb = "tt.broadcast"(%jc) : (tensor<1x16xi32>) -> tensor<16x16xi32>
    %lcb = "tt.broadcast"(%lc) : (tensor<1x16xi32>) -> tensor<16x16xi32>
    %aoff = "arith.addi"(%irb, %kcb) <{overflowFlags = #arith.overflow<none>}> : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi32>
    %boff = "arith.addi"(%krb, %jcb) <{overflowFlags = #arith.overflow<none>}> : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi32>
    %woff = "arith.addi"(%jrb, %lcb) <{overflowFlags = #arith.overflow<none>}> : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi32>
    %ooff = "arith.addi"(%irb, %lcb) <{overflowFlags = #arith.overflow<none>}> : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi32>
    %as = "tt.splat"(%a) : (!tt.ptr<f32>) -> tensor<16x16x!tt.ptr<f32>>
    %ap = "tt.addptr"(%as, %aoff) : (tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>) -> tensor<16x16x!tt.ptr<f32>>
    %av = "tt.load"(%ap) <{operandSegmentSizes = array<i32: 1, 0, 0>, cache = 1 : i32, evict = 1 : i32, isVolatile = false}> : (tensor<16x16x!tt.ptr<f32>>) -> tensor<16x16xf32>
    %bs = "tt.splat"(%b) : (!tt.ptr<f32>) -> tensor<16x16x!tt.ptr<f32>>
    %bp = "tt.addptr"(%bs, %boff) : (tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>) -> tensor<16x16x!tt.ptr<f32>>
    %bv = "tt.load"(%bp) <{operandSegmentSizes = array<i32: 1, 0, 0>, cache = 1 : i32, evict = 1 : i32, isVolatile = false}> : (tensor<16x16x!tt.ptr<f32>>) -> tensor<16x16xf32>
    %ws = "tt.splat"(%w) : (!tt.ptr<f32>) -> tensor<16x16x!tt.ptr<f32>>
    %wp = "tt.addptr"(%ws, %woff) : (tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>) -> tensor<16x16x!tt.ptr<f32>>
    %wv = "tt.load"(%wp) <{operandSegmentSizes = array<i32: 1, 0, 0>, cache = 1 : i32, evict = 1 : i32, isVolatile = false}> : (tensor<16x16x!tt.ptr<f32>>) -> tensor<16x16xf32>
    %s = "tt.dot"(%av, %bv, %zero) <{inputPrecision = 2 : i32, maxNumImpreciseAcc = 0 : i32}> : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %o = "tt.dot"(%s, %wv, %zero) <{inputPrecision = 2 : i32, maxNumImpreciseAcc = 0 : i32}> : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %os = "tt.splat"(%out) : (!tt.ptr<f32>) -> tensor<16x16x!tt.ptr<f32>>
    %op = "tt.addptr"(%os, %ooff) : (tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>) -> tensor<16x16x!tt.ptr<f32>>
    "tt.store"(%op, %o) <{cache = 1 : i32, evict = 1 : i32}> : (tensor<16x16x!tt.ptr<f32>>, tensor<16x16xf32>) -> ()
    "tt.return"() : () -> ()
  }) : () -> ()
}

// CHECK:      access.access {buffer = "a", {{.*}} indices = ["LANE10 + 16*LANE7"]
// CHECK:      access.access {buffer = "return0", kind = "write", {{.*}} indices = ["LANE12 + 16*LANE7"], {{.*}} sources = ["r0/LANE10/LANE11", "r1/LANE8/LANE11", "r2/LANE9"]
