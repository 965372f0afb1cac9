// histogram reference: counts[b] += #{i < n : x[i] == b} for 0 <= b < bins, x of n int32 values,
// counts of bins int32 counters; values outside [0, bins) are not counted. counts is accumulated into
// (destination passing: the caller zeroes it, as for any histogram built with global atomics).
// Style: one block of 256 threads per 256 elements. The bins are walked in chunks of 256: each chunk
// is privatised in shared memory (zeroed, barrier, shared atomicAdd per element, barrier), then
// flushed to global memory with one atomicAdd per bin, and a barrier before the next chunk
// reuses the shared counters.

__global__ void histogram_kernel(const int* x, int* counts, int n, int bins) {
    __shared__ int local[256];
    int tid = threadIdx.x;
    int i = blockIdx.x * 256 + tid;
    int v = (i < n) ? x[i] : -1;
    for (int b0 = 0; b0 < bins; b0 += 256) {
        local[tid] = 0;
        __syncthreads();
        if (v >= b0 && v < b0 + 256 && v < bins) atomicAdd(&local[v - b0], 1);
        __syncthreads();
        if (b0 + tid < bins) atomicAdd(&counts[b0 + tid], local[tid]);
        __syncthreads();
    }
}

void histogram(const int* x, int* counts, int n, int bins) {
    const int block = 256;
    int grid = (n + block - 1) / block;
    histogram_kernel<<<grid, block>>>(x, counts, n, bins);
}
