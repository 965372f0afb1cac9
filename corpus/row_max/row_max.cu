// row_max reference: out[r] = max over c of x[r][c], x of rows x cols (row-major fp32), out of rows.
// Style: cooperative groups, as CUDA samples write a warp reduction: a thread_block_tile<32> per row
// (4 rows per block of 128), each lane keeps the maximum of the columns it strides over, and
// cg::reduce(warp, m, cg::greater<float>()) combines the 32 lanes; lane 0 stores.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void row_max_kernel(const float* x, float* out, int rows, int cols) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (row >= rows) return;
    float m = -INFINITY;
    for (int c = warp.thread_rank(); c < cols; c += warp.size()) {
        m = fmaxf(m, x[row * cols + c]);
    }
    m = cg::reduce(warp, m, cg::greater<float>());
    if (warp.thread_rank() == 0) out[row] = m;
}

void row_max(const float* x, float* out, int rows, int cols) {
    row_max_kernel<<<(rows + 3) / 4, 128>>>(x, out, rows, cols);
}
