// Thread block clusters exist from compute capability 9.0 (Hopper): fine for an H100, not for an A100.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) cluster_scale(const float* x, float* y, int n) {
    cg::cluster_group cluster = cg::this_cluster();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] * static_cast<float>(cluster.block_rank() + 1);
    }
    cluster.sync();
}
