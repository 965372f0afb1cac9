// C signedness lives in the ops: unsigned int division is divui/remui, int is divsi/remsi (C
// truncates), an unsigned index is zero-extended before index_cast.
__global__ void udiv(const unsigned int* a, unsigned int* q, int* r, unsigned int n, int m) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    q[i] = a[i] / 3u + a[i] % n;
    r[i] = m / 2 + m % 3;
    long long w = (long long)m * 2;
    r[i] += (int)(w >> 1);
  }
}
void launch(const unsigned int* a, unsigned int* q, int* r, unsigned int n, int m) {
  udiv<<<(n + 255) / 256, 256>>>(a, q, r, n, m);
}

// CHECK:      kernel.param {name = "r", kind = "buffer", role = "inout", element_type = i32, shape = []}
// CHECK:      %[[I:.*]] = arith.addi {{.*}} : i32 loc("unsigned_division.cu":4:20)
// CHECK-NEXT: arith.cmpi ult, %[[I]], %n : i32
// CHECK-NEXT: scf.if
// CHECK-NEXT:   %[[I64:.*]] = arith.extui %[[I]] : i32 to i64
// CHECK-NEXT:   %[[IX:.*]] = arith.index_cast %[[I64]] : i64 to index
// CHECK-NEXT:   %[[A:.*]] = memref.load %a[%[[IX]]]
// CHECK-NEXT:   %[[THREE:.*]] = arith.constant 3 : i32
// CHECK-NEXT:   arith.divui %[[A]], %[[THREE]] : i32
// CHECK:        arith.remui %{{.*}}, %n : i32
// CHECK:        arith.divsi %m, %{{.*}} : i32
// CHECK:        arith.remsi %m, %{{.*}} : i32
// CHECK:        %[[M64:.*]] = arith.extsi %m : i32 to i64
// CHECK:        %[[SHIFT:.*]] = arith.shrsi {{.*}} : i64
// CHECK-NEXT:   arith.trunci %[[SHIFT]] : i64 to i32
