// Draws from cuRAND's Philox generator, one stream per thread, as dropout kernels draw them.
#include <curand_kernel.h>

// Thread i: curand_init(seed, subsequence = i, offset), then one curand4 (out4), then four
// single draws (out1), then a uniform4 and a normal pair.
__global__ void draw(unsigned int* out4, unsigned int* out1, float* uniform, float* normal,
                     unsigned long long seed, unsigned long long offset, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    curandStatePhilox4_32_10_t state;
    curand_init(seed, i, offset, &state);
    uint4 r = curand4(&state);
    unsigned int a = curand(&state);
    unsigned int b = curand(&state);
    unsigned int c = curand(&state);
    unsigned int d = curand(&state);
    float4 u = curand_uniform4(&state);
    float z0 = curand_normal(&state);
    float z1 = curand_normal(&state);
    if (i < n) {
        out4[4 * i] = r.x; out4[4 * i + 1] = r.y; out4[4 * i + 2] = r.z; out4[4 * i + 3] = r.w;
        out1[4 * i] = a; out1[4 * i + 1] = b; out1[4 * i + 2] = c; out1[4 * i + 3] = d;
        uniform[4 * i] = u.x; uniform[4 * i + 1] = u.y; uniform[4 * i + 2] = u.z; uniform[4 * i + 3] = u.w;
        normal[2 * i] = z0; normal[2 * i + 1] = z1;
    }
}

// Thread i: one stream, skipped ahead by i draws (curand_init's offset, then skipahead).
__global__ void skip(unsigned int* first, unsigned int* skipped, unsigned long long seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    curandStatePhilox4_32_10_t by_offset, by_skip;
    curand_init(seed, 0, i, &by_offset);
    curand_init(seed, 0, 0, &by_skip);
    skipahead((unsigned long long)i, &by_skip);
    if (i < n) {
        first[i] = curand(&by_offset);
        skipped[i] = curand(&by_skip);
    }
}

// A Poisson draw per thread, as stochastic rounding draws it.
__global__ void poisson(unsigned int* out, unsigned long long seed, double lambda, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    curandStatePhilox4_32_10_t state;
    curand_init(seed, i, 0, &state);
    if (i < n) out[i] = curand_poisson(&state, lambda);
}

void launch_draw(unsigned int* out4, unsigned int* out1, float* uniform, float* normal,
                 unsigned long long seed, unsigned long long offset, int n) {
    draw<<<(n + 63) / 64, 64>>>(out4, out1, uniform, normal, seed, offset, n);
}

void launch_skip(unsigned int* first, unsigned int* skipped, unsigned long long seed, int n) {
    skip<<<(n + 63) / 64, 64>>>(first, skipped, seed, n);
}

void launch_poisson(unsigned int* out, unsigned long long seed, double lambda, int n) {
    poisson<<<(n + 63) / 64, 64>>>(out, seed, lambda, n);
}
