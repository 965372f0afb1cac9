// An embedding lookup: row i of `out` is row ids[i] of `table` (d columns, 128 threads per block).
#include <cstdint>

__global__ void embed_kernel(const int64_t* ids, const float* table, float* out, int n, int d) {
    int i = blockIdx.x;
    int j = blockIdx.y * blockDim.x + threadIdx.x;
    if (i < n && j < d) {
        out[i * d + j] = table[ids[i] * d + j];
    }
}

void embed(const int64_t* ids, const float* table, float* out, int n, int d, int v) {
    dim3 grid(n, (d + 127) / 128);
    embed_kernel<<<grid, 128>>>(ids, table, out, n, d);
}
