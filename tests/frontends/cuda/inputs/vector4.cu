// float4 loads and stores through reinterpret_cast are scalarised: four memref.loads at 4*i + k of
// the float buffer (exact access relations); lanes are read (`v.x`) and written (`v.y = ...`) one by
// one. A pointer local (`row = x + r * n`) stays an index offset on every access through it.
__global__ void relu4(const float* __restrict__ x, float* __restrict__ y, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = reinterpret_cast<const float4*>(x)[i];
    v.x = fmaxf(v.x, 0.0f);
    v.y = fmaxf(v.y, 0.0f);
    v.z = fmaxf(v.z, 0.0f);
    v.w = fmaxf(v.w, 0.0f);
    reinterpret_cast<float4*>(y)[i] = v;
  }
}
__global__ void row_scale(const float* x, const float4* s, float* y, int n) {
  int r = blockIdx.x;
  const float* row = x + r * n;
  float* out = y + r * n;
  float4 k = s[r];
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    out[j] = row[j] * k.x + k.w;
}
void run(const float* x, float* y, const float4* s, float* z, int n, int rows) {
  relu4<<<(n / 4 + 255) / 256, 256>>>(x, y, n / 4);
  row_scale<<<rows, 128>>>(x, s, z, n);
}

// CHECK:      kernel.param {name = "s", kind = "buffer", role = "in", element_type = f32, shape = []}
// CHECK:      func.func @relu4(
// CHECK:        %[[I:.*]] = arith.index_cast %{{.*}} : i32 to index loc("vector4.cu":7:16)
// CHECK-NEXT:   %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:   %[[BASE:.*]] = arith.muli %[[I]], %[[FOUR]] : index
// CHECK-NEXT:   %[[X0:.*]] = memref.load %x[%[[BASE]]] : memref<?xf32>
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[B1:.*]] = arith.addi %[[BASE]], %[[ONE]] : index
// CHECK-NEXT:   %[[X1:.*]] = memref.load %x[%[[B1]]] : memref<?xf32>
// CHECK:        %[[X2:.*]] = memref.load %x
// CHECK:        %[[X3:.*]] = memref.load %x
// CHECK:        %[[R0:.*]] = arith.maxnumf %[[X0]], %{{.*}} : f32 loc("vector4.cu":8:11)
// CHECK:        %[[R1:.*]] = arith.maxnumf %[[X1]], %{{.*}} : f32 loc("vector4.cu":9:11)
// CHECK:        %[[R2:.*]] = arith.maxnumf %[[X2]], %{{.*}} : f32
// CHECK:        %[[R3:.*]] = arith.maxnumf %[[X3]], %{{.*}} : f32
// CHECK:        memref.store %[[R0]], %y[%{{.*}}] : memref<?xf32> loc("vector4.cu":12:5)
// CHECK:        memref.store %[[R1]], %y
// CHECK:        memref.store %[[R2]], %y
// CHECK:        memref.store %[[R3]], %y
// CHECK:      func.func @row_scale(
// CHECK:        %[[ROFF:.*]] = arith.index_cast %{{.*}} : i32 to index loc("vector4.cu":17:22)
// CHECK:        %[[OOFF:.*]] = arith.index_cast %{{.*}} : i32 to index loc("vector4.cu":18:16)
// CHECK:        %[[KX:.*]] = memref.load %s[%{{.*}}] : memref<?xf32> loc("vector4.cu":19:14)
// CHECK:        scf.for
// CHECK:          %[[J:.*]] = arith.index_cast %{{.*}} : i32 to index loc("vector4.cu":21:14)
// CHECK-NEXT:     %[[AT:.*]] = arith.addi %[[ROFF]], %[[J]] : index
// CHECK-NEXT:     memref.load %x[%[[AT]]] : memref<?xf32>
// CHECK:          arith.mulf %{{.*}}, %[[KX]] : f32
// CHECK:          memref.store %{{.*}}, %y[%{{.*}}] : memref<?xf32> loc("vector4.cu":21:5)
