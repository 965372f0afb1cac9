# Many TTIR ops in one kernel: each must parse into the tt dialect and print back.
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def ops_kernel(x_ptr, y_ptr, z_ptr, i_ptr, h_ptr, n, stride, B: tl.constexpr):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    offs = pid * B + tl.arange(0, B)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0, cache_modifier=".cg", eviction_policy="evict_last")
    s = tl.sum(x, axis=0)
    c = tl.cumsum(x, axis=0)
    y = tl.sqrt_rn(x) + tl.div_rn(x, x + 1.0) + libdevice.exp(x) + tl.clamp(x, 0.0, 1.0)
    tl.store(h_ptr + offs, y.to(tl.float16), mask=m)
    bits = x.to(tl.int32, bitcast=True)
    tl.atomic_add(z_ptr + offs, y, mask=m)
    tl.atomic_cas(i_ptr, 0, 1)
    tl.atomic_max(i_ptr + offs, bits, mask=m)
    t = tl.trans(tl.reshape(x, (B // 16, 16)))
    tl.store(y_ptr + offs, tl.reshape(t, (B,)) + c + s + programs, mask=m)
    tl.device_assert(s == s, "sum is not NaN")
    o16 = tl.arange(0, 16)
    p = tl.load(x_ptr + o16[:, None] * stride + o16[None, :])
    tl.store(y_ptr + o16[:, None] * stride + o16[None, :], tl.dot(p, p))
    tl.store(y_ptr + offs, tl.fma(x, x, x) + tl.where(m, x, 1.0), mask=m)
    for i in range(0, n, 16):
        if i < stride:
            tl.store(y_ptr + i, 1.0)
    tl.store(i_ptr + offs, tl.umulhi(bits, bits), mask=m)


def ops(x, y, z, i, h, n, stride):
    ops_kernel[(triton.cdiv(n, 64),)](x, y, z, i, h, n, stride, B=64, debug=True)

# CHECK: kernel.entry @ops
# CHECK: kernel.param {name = "x", kind = "buffer", role = "in"
# CHECK: kernel.param {name = "y", kind = "buffer", role = "out"
# CHECK: kernel.param {name = "z", kind = "buffer", role = "inout"
# CHECK: kernel.param {name = "i", kind = "buffer", role = "inout"
# CHECK: kernel.param {name = "h", kind = "buffer", role = "out"
# CHECK-DAG: "tt.get_num_programs"
# CHECK-DAG: "tt.load"{{.*}}cachePolicy = #tt.cache_policy<cache_modifier = cg, eviction_policy = evict_last>
# CHECK-DAG: "tt.reduce"
# CHECK-DAG: "tt.scan"
# CHECK-DAG: "tt.precise_sqrt"
# CHECK-DAG: "tt.precise_divf"
# CHECK-DAG: "tt.extern_elementwise"
# CHECK-DAG: "tt.clampf"
# CHECK-DAG: arith.truncf
# CHECK-DAG: "tt.bitcast"
# CHECK-DAG: "tt.atomic_rmw"
# CHECK-DAG: "tt.atomic_cas"
# CHECK-DAG: "tt.reshape"
# CHECK-DAG: "tt.trans"
# CHECK-DAG: "tt.assert"
# CHECK-DAG: "tt.expand_dims"
# CHECK-DAG: "tt.broadcast"
# CHECK-DAG: "tt.dot"
# CHECK-DAG: math.fma
# CHECK-DAG: arith.select(
# CHECK-DAG: scf.for
# CHECK-DAG: scf.if
# CHECK-DAG: "tt.mulhiui"
