// A row sum as real kernels write it: one warp per row (a thread_block_tile<32>), a loop stepped by
// the tile's size, and cooperative_groups::reduce for the warp's total.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "helper_cuda.h"
namespace cg = cooperative_groups;

__global__ void rowsum_kernel(const float* x, float* out, int m, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (row >= m) return;
    float acc = 0.0f;
    for (int j = warp.thread_rank(); j < n; j += warp.size()) {
        acc += x[row * n + j];
    }
    acc = cg::reduce(warp, acc, cg::plus<float>());
    if (warp.thread_rank() == 0) out[row] = acc;
}

void rowsum(const float* x, float* out, int m, int n) {
    rowsum_kernel<<<(m + 7) / 8, 256>>>(x, out, m, n);
    checkCudaErrors(cudaGetLastError());
}
