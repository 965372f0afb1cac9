# A 2-D tiled matmul: a 1-D grid over both tile axes, strides as arguments, tl.dot.
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    grid_n = tl.cdiv(N, BN)
    pid_m = pid // grid_n
    pid_n = pid % grid_n
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a_mask = (offs_m[:, None] < M) & (offs_k[None, :] + k * BK < K)
        b_mask = (offs_k[:, None] + k * BK < K) & (offs_n[None, :] < N)
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + (offs_k[None, :] + k * BK) * stride_ak, mask=a_mask, other=0.0)
        b = tl.load(b_ptr + (offs_k[:, None] + k * BK) * stride_bk + offs_n[None, :] * stride_bn, mask=b_mask, other=0.0)
        acc = tl.dot(a, b, acc)
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc, mask=c_mask)


def matmul(a, b):
    M, K = a.shape
    K, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(M, 32) * triton.cdiv(N, 32),)
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), BM=32, BN=32, BK=32, num_warps=2)
    return c

# CHECK: kernel.entry @matmul
# CHECK-NEXT: kernel.param {name = "a", kind = "buffer", role = "in", element_type = f16, shape = ["M", "K"]}
# CHECK-NEXT: kernel.param {name = "b", kind = "buffer", role = "in", element_type = f16, shape = ["K", "N"]}
# CHECK-NEXT: kernel.param {name = "return0", kind = "buffer", role = "out", element_type = f32, shape = ["M", "N"], variable = "c"}
# CHECK-NEXT: kernel.launch @matmul_kernel {grid = ["floor((M + 31)/32)*floor((N + 31)/32)", "1", "1"], block = [], args = ["a", "b", "return0", "M", "N", "K", "K", "1", "N", "1", "N", "1"], num_warps = #builtin.int<2>}
# CHECK: "tt.func"
# CHECK: scf.for
# CHECK: "tt.dot"(%{{.*}}, %{{.*}}, %{{.*}}) <{{.*}}> : (tensor<32x32xf16>, tensor<32x32xf16>, tensor<32x32xf32>) -> tensor<32x32xf32> loc("{{.*}}matmul.py":23:15)
# CHECK: "tt.store"
