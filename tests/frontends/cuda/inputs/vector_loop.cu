// A float4 variable carried through a loop and an `if` is flattened: one iter_arg / scf.if result
// per lane, in x, y, z, w order.
__global__ void sum4(const float4* x, float4* out, int n) {
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float4 v = x[i];
    acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
  }
  if (n < 0) acc.w = 0.f;
  out[threadIdx.x] = acc;
}
void run(const float4* x, float4* out, int n) { sum4<<<1, 128>>>(x, out, n); }

// CHECK:      kernel.param {name = "x", kind = "buffer", role = "in", element_type = f32, shape = []}
// CHECK:      %{{.*}}, %{{.*}}, %{{.*}}, %[[RW:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[AX:.*]] = %{{.*}}, %[[AY:.*]] = %{{.*}}, %[[AZ:.*]] = %{{.*}}, %[[AW:.*]] = %{{.*}}) -> (f32, f32, f32, f32) {
// CHECK:        %[[NX:.*]] = arith.addf %[[AX]], %{{.*}} : f32 loc("vector_loop.cu":7:5)
// CHECK:        %[[NY:.*]] = arith.addf %[[AY]], %{{.*}} : f32 loc("vector_loop.cu":7:19)
// CHECK:        %[[NZ:.*]] = arith.addf %[[AZ]], %{{.*}} : f32
// CHECK:        %[[NW:.*]] = arith.addf %[[AW]], %{{.*}} : f32
// CHECK-NEXT:   scf.yield %[[NX]], %[[NY]], %[[NZ]], %[[NW]] : f32, f32, f32, f32
// CHECK:      %[[WX:.*]], %{{.*}}, %{{.*}}, %[[WW:.*]] = scf.if %{{.*}} -> (f32, f32, f32, f32) {
// CHECK:        scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32
// CHECK:        scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[RW]] : f32, f32, f32, f32
// CHECK:      memref.store %[[WX]], %out[%{{.*}}] : memref<?xf32> loc("vector_loop.cu":10:3)
// CHECK:      memref.store %[[WW]], %out[%{{.*}}] : memref<?xf32> loc("vector_loop.cu":10:3)
