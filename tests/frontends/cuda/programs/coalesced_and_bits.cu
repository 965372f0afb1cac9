// A coalesced group (`cg::coalesced_threads()`): a warp reduction over it, ranks and sizes of an
// arbitrary active set; and the bit-counting intrinsics.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(float* sums, int* ranks, int* sizes, int* bits, const float* x, const unsigned* w, int n) {
  int tid = threadIdx.x;
  float v = x[blockIdx.x * blockDim.x + tid];
  if (tid < 32) {
    cg::coalesced_group active = cg::coalesced_threads();
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += active.shfl_down(v, offset);
    if (tid == 0) sums[blockIdx.x] = v;
  }
  int t = blockIdx.x * blockDim.x + tid;
  if (tid % 3 == 0) {
    cg::coalesced_group some = cg::coalesced_threads();
    ranks[t] = some.thread_rank();
    sizes[t] = some.size();
  } else {
    ranks[t] = -1; sizes[t] = __popc(__activemask());
  }
  unsigned u = w[t];
  bits[4 * t] = __popc(u); bits[4 * t + 1] = __clz(u); bits[4 * t + 2] = __ffs(u); bits[4 * t + 3] = __popcll(((unsigned long long)u << 32) | u);
}
void launch(float* sums, int* ranks, int* sizes, int* bits, const float* x, const unsigned* w, int blocks) { k<<<blocks, 64>>>(sums, ranks, sizes, bits, x, w, blocks * 64); }
