// RUN: lowercheck opt %s | filecheck %s
// The kernel and access dialects print what they parse (no pass: a round trip).

builtin.module {
  kernel.entry @vadd attributes {language = "cuda", file = "vadd.cu"} {
    kernel.param {name = "a", kind = "buffer", role = "in", element_type = f32, shape = ["n"]}
    kernel.param {name = "n", kind = "scalar", role = "size", element_type = i32, shape = []}
    kernel.launch @vadd_kernel {grid = ["floor((n + 255)/256)", "1", "1"], block = ["256", "1", "1"], args = ["a", "n"]}
  }
  access.kernel @vadd_kernel attributes {grid = ["floor((n + 255)/256)", "1", "1"]} {
    access.access {buffer = "a", kind = "read", space = "global", element_type = f32, indices = ["256*GRID0 + LANE0"], domain = ["LANE0 < 256"], guard = ["256*GRID0 + LANE0 < n"], fastest = "LANE0", id = "r0", sources = []} loc("vadd.cu":5:14)
    access.unmodelled {buffer = "a", reason = "an index computed from a loaded value"} loc("vadd.cu":6:3)
  }
}

// CHECK:      kernel.entry @vadd attributes {language = "cuda", file = "vadd.cu"} {
// CHECK-NEXT:   kernel.param {name = "a", kind = "buffer", role = "in", element_type = f32, shape = ["n"]}
// CHECK-NEXT:   kernel.param {name = "n", kind = "scalar", role = "size", element_type = i32, shape = []}
// CHECK-NEXT:   kernel.launch @vadd_kernel {grid = ["floor((n + 255)/256)", "1", "1"], block = ["256", "1", "1"], args = ["a", "n"]}
// CHECK:      access.kernel @vadd_kernel attributes {grid = ["floor((n + 255)/256)", "1", "1"]} {
// CHECK-NEXT:   access.access {buffer = "a", kind = "read", {{.*}} guard = ["256*GRID0 + LANE0 < n"], {{.*}}} loc("vadd.cu":5:14)
// CHECK-NEXT:   access.unmodelled {buffer = "a", reason = "an index computed from a loaded value"} loc("vadd.cu":6:3)
