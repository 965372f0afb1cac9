// RUN: lowercheck opt %s -p extract-accesses | filecheck %s
// tl.cumsum of an fp16 tile (`tt.scan` whose region adds): the store's value was accumulated in f16
// (`accumulation`, for LC305), and its elements combine other lanes' inputs (out[i] = x[0] + ... +
// x[i]): the source is a prefix along the tile's lane (`r0^LANE3`), not elementwise as
// `sources = ["r0"]` would say, and its operator is the region's sum.

builtin.module {
  kernel.entry @scan attributes {language = "triton", file = "scan.py"} {
    kernel.param {name = "x", kind = "buffer", role = "in", element_type = f16, shape = ["64"]}
    kernel.param {name = "return0", kind = "buffer", role = "out", element_type = f16, shape = ["64"]}
    kernel.launch @k {grid = ["1", "1", "1"], block = [], args = ["x", "return0"]}
  }
  "tt.func"() <{sym_name = "k", function_type = (!tt.ptr<f16>, !tt.ptr<f16>) -> ()}> ({
  ^bb0(%x: !tt.ptr<f16>, %out: !tt.ptr<f16>):
    %r = "tt.make_range"() <{start = 0 : i32, end = 64 : i32}> : () -> tensor<64xi32>
    %xs = "tt.splat"(%x) : (!tt.ptr<f16>) -> tensor<64x!tt.ptr<f16>>
    %xp = "tt.addptr"(%xs, %r) : (tensor<64x!tt.ptr<f16>>, tensor<64xi32>) -> tensor<64x!tt.ptr<f16>>
    %v = "tt.load"(%xp) <{operandSegmentSizes = array<i32: 1, 0, 0>, cache = 1 : i32, evict = 1 : i32, isVolatile = false}> : (tensor<64x!tt.ptr<f16>>) -> tensor<64xf16>
    %s = "tt.scan"(%v) <{axis = 0 : i32, reverse = false}> ({
    ^bb1(%a: f16, %b: f16):
      %c = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f16, f16) -> f16
      "tt.scan.return"(%c) : (f16) -> ()
    }) : (tensor<64xf16>) -> tensor<64xf16>
    %os = "tt.splat"(%out) : (!tt.ptr<f16>) -> tensor<64x!tt.ptr<f16>>
    %op = "tt.addptr"(%os, %r) : (tensor<64x!tt.ptr<f16>>, tensor<64xi32>) -> tensor<64x!tt.ptr<f16>>
    "tt.store"(%op, %s) <{cache = 1 : i32, evict = 1 : i32}> : (tensor<64x!tt.ptr<f16>>, tensor<64xf16>) -> ()
    "tt.return"() : () -> ()
  }) : () -> ()
}

// CHECK:      access.kernel @k attributes {grid = ["1", "1", "1"]} {
// CHECK-NEXT:   access.access {buffer = "x", kind = "read", {{.*}} id = "r0", sources = []
// CHECK-NEXT:   access.access {buffer = "return0", kind = "write", {{.*}} id = "w0", sources = ["r0^LANE3"], {{.*}}accumulation = ["f16"], combined = ["sum"], lanes = ["LANE3"]}
