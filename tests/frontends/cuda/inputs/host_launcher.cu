// Launchers: a ceil-div helper, dim3 copies, two launches, a cudaMalloc'ed temp buffer (role
// "temp", shape from the byte count), a stream parameter (not an entry parameter), `if` without a
// launch, a template kernel instance.
#define BLOCK 128
static int cdiv(int a, int b) { return (a + b - 1) / b; }

template <typename T, int SCALE>
__global__ void scale(const T* x, T* tmp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = x[i] * SCALE;
}
__global__ void shift(const float* tmp, float* y, int n, float by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = tmp[i] + by;
}
void run(const float* x, float* y, int n, float by, cudaStream_t stream) {
  if (n == 0) return;
  float* tmp;
  cudaMalloc(&tmp, n * sizeof(float));
  dim3 block = dim3(BLOCK);
  dim3 grid(cdiv(n, BLOCK));
  scale<float, 2><<<grid, block, 0, stream>>>(x, tmp, n);
  shift<<<min(cdiv(n, 256), 65535), 256, 0, stream>>>(tmp, y, n - 0, by * 2);
  cudaFree(tmp);
}

// CHECK:      kernel.entry @run attributes {language = "cuda", file = "host_launcher.cu"} {
// CHECK-NEXT:   kernel.param {name = "x", kind = "buffer", role = "in", element_type = f32, shape = []}
// CHECK-NEXT:   kernel.param {name = "y", kind = "buffer", role = "out", element_type = f32, shape = []}
// CHECK-NEXT:   kernel.param {name = "n", kind = "scalar", role = "size", element_type = i32, shape = []}
// CHECK-NEXT:   kernel.param {name = "by", kind = "scalar", role = "scalar", element_type = f32, shape = []}
// CHECK-NEXT:   kernel.param {name = "tmp", kind = "buffer", role = "temp", element_type = f32, shape = ["n"]}
// CHECK-NEXT:   kernel.launch @scale_float_2 {grid = ["floor((n + 127)/128)", "1", "1"], block = ["128", "1", "1"], args = ["x", "tmp", "n"]} loc("host_launcher.cu":22:3)
// CHECK-NEXT:   kernel.launch @shift {grid = ["Min(65535, floor((n + 255)/256))", "1", "1"], block = ["256", "1", "1"], args = ["tmp", "y", "n", "2*by"]} loc("host_launcher.cu":23:3)
// CHECK-NEXT: } loc("host_launcher.cu":16:6)
// CHECK:      func.func @scale_float_2(%x: memref<?xf32> {{.*}}, %tmp: memref<?xf32> {{.*}}, %n: i32 {{.*}})
// CHECK:        %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:   arith.mulf %{{.*}}, %[[TWO]] : f32
// CHECK:      func.func @shift
