// A float scalar parameter (role "scalar") and a read-write buffer (role "inout").
__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
void run_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
}

// CHECK:      kernel.entry @run_saxpy
// CHECK-NEXT:   kernel.param {name = "n", kind = "scalar", role = "size", element_type = i32, shape = []}
// CHECK-NEXT:   kernel.param {name = "a", kind = "scalar", role = "scalar", element_type = f32, shape = []}
// CHECK-NEXT:   kernel.param {name = "x", kind = "buffer", role = "in", element_type = f32, shape = ["n"]}
// CHECK-NEXT:   kernel.param {name = "y", kind = "buffer", role = "inout", element_type = f32, shape = ["n"]}
// CHECK-NEXT:   kernel.launch @saxpy {grid = ["floor((n + 255)/256)", "1", "1"], block = ["256", "1", "1"], args = ["n", "a", "x", "y"]}
// CHECK:      func.func @saxpy(%n: i32 {{.*}}, %a: f32 {{.*}}, %x: memref<?xf32> {{.*}}, %y: memref<?xf32> {{.*}}) attributes {gpu.kernel}
// CHECK:        scf.if
// CHECK:          %[[X:.*]] = memref.load %x
// CHECK-NEXT:     %[[AX:.*]] = arith.mulf %a, %[[X]] : f32 loc("saxpy.cu":4:21)
// CHECK:          %[[Y:.*]] = memref.load %y
// CHECK-NEXT:     %[[R:.*]] = arith.addf %[[AX]], %[[Y]] : f32
// CHECK:          memref.store %[[R]], %y
