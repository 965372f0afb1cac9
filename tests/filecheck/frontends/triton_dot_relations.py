# RUN: lowercheck lower %s --emit access --no-loc | filecheck %s
# A Triton matmul tile loop whose tl.dot keeps Triton's default input precision for fp32 (tf32):
# the stored value is summed in f32 with tf32 products (`accumulation`), the offsets are int32
# (`int32`: what must fit 32 bits), the dot's K lanes are summed over (`/LANE` in `sources`).
# After the IR, `--emit access` prints each relation in words and in isl notation; 2-D buffers are
# indexed in their logical coordinates.

import torch
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, m, n, k, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, k, BK):
        a = tl.load(a_ptr + rm[:, None] * k + (k0 + rk)[None, :], mask=(rm[:, None] < m) & ((k0 + rk)[None, :] < k), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * n + rn[None, :], mask=((k0 + rk)[:, None] < k) & (rn[None, :] < n), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * n + rn[None, :], acc, mask=(rm[:, None] < m) & (rn[None, :] < n))


def mm(a, b):
    m, k = a.shape
    _, n = b.shape
    c = torch.empty((m, n), dtype=a.dtype)
    mm_kernel[(triton.cdiv(m, 32), triton.cdiv(n, 32))](a, b, c, m, n, k, BM=32, BN=32, BK=16)
    return c

# CHECK:      access.access {buffer = "a", kind = "read", {{.*}} id = "[[A:r[0-9]+]]", sources = [], int32 = [{{.*}}"k*(32*GRID0 + [[ROW:LANE[0-9]+]])"], lanes = ["[[ROW]]", "LANE{{[0-9]+}}"]}
# CHECK-NEXT: access.access {buffer = "b", kind = "read", {{.*}} id = "[[B:r[0-9]+]]", sources = [], int32 = [{{.*}}], lanes = [{{.*}}]}
# CHECK-NEXT: access.access {buffer = "return0", kind = "write", {{.*}} sources = ["[[A]]/LANE{{[0-9]+}}", "[[B]]/LANE{{[0-9]+}}"], int32 = [{{.*}}], accumulation = ["f32", "tf32"], combined = ["sum"], lanes = ["[[ROW]]", "LANE{{[0-9]+}}"]}
# CHECK:      // access relations, for all sizes
# CHECK-NEXT: //   [[A]] read a{{.*}}: program p0, p1 reads a[32*p0 .. 31 + 32*p0 ..., 0 .. -1 + k] for
# CHECK-NEXT: //     [{{.*}}] -> { K0_[[A]][GRID0, GRID1, GRID2 = 0, {{.*}}] -> a[i0 = 32GRID0 + [[ROW]], i1 = {{.*}}] : {{.*}} }
# CHECK:      //   w{{[0-9]+}} write return0{{.*}}: program p0, p1 writes return0[32*p0 .. 31 + 32*p0 ..., 32*p1 .. 31 + 32*p1 ...]
