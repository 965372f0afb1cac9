// Warp intrinsics: the four shuffles (default width 32), the three votes, and cooperative_groups:
// block.sync() and cg::sync(block) are barriers, a tiled_partition<32>'s shfl_down is a shuffle
// with the full mask and the tile's width, its thread_rank the linear thread index mod 32.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void warp_ops(const float* x, float* y, unsigned* flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  float a = __shfl_sync(0xffffffff, v, 0);
  float b = __shfl_up_sync(0xffffffff, v, 1);
  float c = __shfl_xor_sync(0xffffffff, v, 2, 16);
  unsigned ballot = __ballot_sync(0xffffffff, v > 0.0f);
  int any = __any_sync(0xffffffff, v > 1.0f);
  int all = __all_sync(0xffffffff, v > 2.0f);
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  block.sync();
  float d = warp.shfl_down(v, 4);
  cg::sync(block);
  if (warp.thread_rank() == 0) flags[i / 32] = ballot + any + all;
  if (i < n) y[i] = a + b + c + d;
}
void run(const float* x, float* y, unsigned* flags, int n) {
  warp_ops<<<(n + 127) / 128, 128>>>(x, y, flags, n);
}

// CHECK:      %[[M0:.*]] = arith.constant -1 : i32 loc("warp_ops.cu":9:25)
// CHECK-NEXT: %[[L0:.*]] = arith.constant 0 : i32 loc("warp_ops.cu":9:40)
// CHECK-NEXT: %[[W0:.*]] = arith.constant 32 : i32 loc("warp_ops.cu":9:13)
// CHECK-NEXT: simt.shuffle {mode = "idx"} %[[V:.*]], %[[L0]], %[[M0]], %[[W0]] : f32 loc("warp_ops.cu":9:13)
// CHECK:      simt.shuffle {mode = "up"} %[[V]], %{{.*}}, %{{.*}}, %{{.*}} : f32 loc("warp_ops.cu":10:13)
// CHECK:      %[[W16:.*]] = arith.constant 16 : i32 loc("warp_ops.cu":11:47)
// CHECK-NEXT: simt.shuffle {mode = "xor"} %[[V]], %{{.*}}, %{{.*}}, %[[W16]] : f32 loc("warp_ops.cu":11:13)
// CHECK:      simt.vote {mode = "ballot"} %{{.*}}, %{{.*}} : i32 loc("warp_ops.cu":12:21)
// CHECK:      %[[ANY:.*]] = simt.vote {mode = "any"} %{{.*}}, %{{.*}} : i1 loc("warp_ops.cu":13:13)
// CHECK-NEXT: arith.extui %[[ANY]] : i1 to i32
// CHECK:      simt.vote {mode = "all"} %{{.*}}, %{{.*}} : i1 loc("warp_ops.cu":14:13)
// CHECK:      "gpu.barrier"() : () -> () loc("warp_ops.cu":17:3)
// CHECK:      %[[FULL:.*]] = arith.constant -1 : i32 loc("warp_ops.cu":18:13)
// CHECK-NEXT: %[[OFF:.*]] = arith.constant 4 : i32 loc("warp_ops.cu":18:31)
// CHECK-NEXT: %[[W32:.*]] = arith.constant 32 : i32 loc("warp_ops.cu":18:13)
// CHECK-NEXT: simt.shuffle {mode = "down"} %[[V]], %[[OFF]], %[[FULL]], %[[W32]] : f32 loc("warp_ops.cu":18:13)
// CHECK-NEXT: "gpu.barrier"() : () -> () loc("warp_ops.cu":19:3)
// CHECK:      %[[RANK:.*]] = arith.remui %{{.*}}, %{{.*}} : i32 loc("warp_ops.cu":20:7)
