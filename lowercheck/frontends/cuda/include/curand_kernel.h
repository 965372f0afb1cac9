/* lowercheck's model of cuRAND's device API (<curand_kernel.h>): the Philox4_32_10 generator, with
 * bodies, so that a kernel drawing random numbers (dropout, stochastic rounding) lowers like any
 * other code and the emulator draws the numbers the GPU draws.
 *
 * Written for lowercheck from the published algorithm (Salmon et al., "Parallel random numbers: as
 * easy as 1, 2, 3", SC'11: Philox-4x32 with 10 rounds, multipliers 0xD2511F53 and 0xCD9E8D57, key
 * increments 0x9E3779B9 and 0xBB67AE85) and cuRAND's documented stream layout: the seed is the key;
 * `subsequence` is the high 64 bits of the 128-bit counter, `offset` advances by offset / 4 blocks
 * of four draws and offset % 4 draws into the block; each block of four 32-bit draws is one Philox
 * output. The block function is checked against Triton's `tl.philox` (tests/test_cuda_curand.py);
 * the stream layout against cuRAND itself only where a GPU is lent (docs/gpu.md).
 *
 * XORWOW (`curandState`, cuRAND's default), MRG32k3a and the quasi-random generators are declared
 * without bodies: a kernel that uses one is LC901 at its first call. */
#pragma once

struct curandStatePhilox4_32_10 {
  uint4 ctr;              /* the 128-bit counter, low word first */
  uint4 output;           /* the Philox output for `ctr` */
  uint2 key;              /* the seed */
  unsigned int STATE;     /* the next draw's position in `output` (0..3) */
  int boxmuller_flag;     /* curand_normal: a second normal value is kept in boxmuller_extra */
  float boxmuller_extra;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;
struct curandStateXORWOW { unsigned int d, v[5]; int boxmuller_flag; float boxmuller_extra; };
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;

#define __LC_2POW32_INV 2.3283064e-10f            /* 2^-32 */
#define __LC_2POW32_INV_2PI 1.4629180792671596e-09f /* 2^-32 * 2 pi */

__device__ inline uint4 __lc_philox_round(uint4 c, uint2 k) {
  unsigned long long p0 = (unsigned long long)0xD2511F53u * c.x;
  unsigned long long p1 = (unsigned long long)0xCD9E8D57u * c.z;
  return make_uint4((unsigned int)(p1 >> 32) ^ c.y ^ k.x, (unsigned int)p1,
                    (unsigned int)(p0 >> 32) ^ c.w ^ k.y, (unsigned int)p0);
}

/* The Philox-4x32-10 block function: 10 rounds, the key bumped between them. */
__device__ inline uint4 __lc_philox4x32_10(uint4 c, uint2 k) {
  for (int round = 0; round < 9; ++round) {
    c = __lc_philox_round(c, k);
    k.x += 0x9E3779B9u;
    k.y += 0xBB67AE85u;
  }
  return __lc_philox_round(c, k);
}

/* counter += n, as the 128-bit integer it is. */
__device__ inline void __lc_philox_advance(curandStatePhilox4_32_10_t *state, unsigned long long n) {
  unsigned long long low = ((unsigned long long)state->ctr.y << 32) | state->ctr.x;
  unsigned long long sum = low + n;
  state->ctr.x = (unsigned int)sum;
  state->ctr.y = (unsigned int)(sum >> 32);
  if (sum < n) {
    state->ctr.z += 1u;
    if (state->ctr.z == 0u) state->ctr.w += 1u;
  }
}

__device__ inline void curand_init(unsigned long long seed, unsigned long long subsequence,
                                   unsigned long long offset, curandStatePhilox4_32_10_t *state) {
  state->key = make_uint2((unsigned int)seed, (unsigned int)(seed >> 32));
  state->ctr = make_uint4(0u, 0u, (unsigned int)subsequence, (unsigned int)(subsequence >> 32));
  state->boxmuller_flag = 0;
  state->boxmuller_extra = 0.0f;
  __lc_philox_advance(state, offset / 4);
  state->STATE = (unsigned int)(offset % 4);
  state->output = __lc_philox4x32_10(state->ctr, state->key);
}

__device__ inline void skipahead(unsigned long long n, curandStatePhilox4_32_10_t *state) {
  unsigned long long position = state->STATE + (n % 4);
  __lc_philox_advance(state, n / 4 + position / 4);
  state->STATE = (unsigned int)(position % 4);
  state->output = __lc_philox4x32_10(state->ctr, state->key);
}

__device__ inline void skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10_t *state) {
  unsigned long long high = ((unsigned long long)state->ctr.w << 32) | state->ctr.z;
  high += n;
  state->ctr.z = (unsigned int)high;
  state->ctr.w = (unsigned int)(high >> 32);
  state->output = __lc_philox4x32_10(state->ctr, state->key);
}

/* One 32-bit draw: the next word of the block; the block is renewed after its fourth. */
__device__ inline unsigned int curand(curandStatePhilox4_32_10_t *state) {
  unsigned int at = state->STATE;
  unsigned int drawn = at == 0u ? state->output.x : at == 1u ? state->output.y
                     : at == 2u ? state->output.z : state->output.w;
  state->STATE = at + 1u;
  if (state->STATE == 4u) {
    __lc_philox_advance(state, 1);
    state->output = __lc_philox4x32_10(state->ctr, state->key);
    state->STATE = 0u;
  }
  return drawn;
}

/* Four draws: the rest of this block and the start of the next, which becomes the current one. */
__device__ inline uint4 curand4(curandStatePhilox4_32_10_t *state) {
  uint4 t = state->output;
  __lc_philox_advance(state, 1);
  state->output = __lc_philox4x32_10(state->ctr, state->key);
  uint4 o = state->output;
  unsigned int at = state->STATE;
  if (at == 1u) return make_uint4(t.y, t.z, t.w, o.x);
  if (at == 2u) return make_uint4(t.z, t.w, o.x, o.y);
  if (at == 3u) return make_uint4(t.w, o.x, o.y, o.z);
  return t;
}

__device__ inline float __lc_uniform(unsigned int x) {
  return x * __LC_2POW32_INV + (__LC_2POW32_INV / 2.0f);  /* in (0, 1]: never 0 */
}

__device__ inline float curand_uniform(curandStatePhilox4_32_10_t *state) {
  return __lc_uniform(curand(state));
}

__device__ inline float4 curand_uniform4(curandStatePhilox4_32_10_t *state) {
  uint4 x = curand4(state);
  return make_float4(__lc_uniform(x.x), __lc_uniform(x.y), __lc_uniform(x.z), __lc_uniform(x.w));
}

__device__ inline double curand_uniform_double(curandStatePhilox4_32_10_t *state) {
  unsigned int x = curand(state);
  unsigned int y = curand(state);
  unsigned long long z = (unsigned long long)x ^ ((unsigned long long)y << (53 - 32));
  return z * 1.1102230246251565e-16 + (1.1102230246251565e-16 / 2.0);  /* 2^-53 */
}

/* Box-Muller: two normal values from two draws. */
__device__ inline float2 __lc_box_muller(unsigned int x, unsigned int y) {
  float u = __lc_uniform(x);
  float v = y * __LC_2POW32_INV_2PI + (__LC_2POW32_INV_2PI / 2.0f);
  float s = sqrtf(-2.0f * logf(u));
  return make_float2(sinf(v) * s, cosf(v) * s);
}

__device__ inline float curand_normal(curandStatePhilox4_32_10_t *state) {
  if (state->boxmuller_flag == 1) {
    state->boxmuller_flag = 0;
    return state->boxmuller_extra;
  }
  unsigned int x = curand(state);
  unsigned int y = curand(state);
  float2 v = __lc_box_muller(x, y);
  state->boxmuller_extra = v.y;
  state->boxmuller_flag = 1;
  return v.x;
}

__device__ inline float2 curand_normal2(curandStatePhilox4_32_10_t *state) {
  unsigned int x = curand(state);
  unsigned int y = curand(state);
  return __lc_box_muller(x, y);
}

__device__ inline float4 curand_normal4(curandStatePhilox4_32_10_t *state) {
  uint4 x = curand4(state);
  float2 a = __lc_box_muller(x.x, x.y);
  float2 b = __lc_box_muller(x.z, x.w);
  return make_float4(a.x, a.y, b.x, b.y);
}

/* A Poisson draw by multiplying uniforms until their product falls below e^-lambda (Knuth): the
 * distribution cuRAND's is, not necessarily its draws (for large lambda cuRAND uses other methods). */
__device__ inline unsigned int curand_poisson(curandStatePhilox4_32_10_t *state, double lambda) {
  float limit = expf(-(float)lambda);
  float product = curand_uniform(state);
  unsigned int k = 0u;
  while (product > limit) {
    k += 1u;
    product *= curand_uniform(state);
  }
  return k;
}

#define __LC_CURAND_UNMODELLED(S) \
  __device__ void curand_init(unsigned long long seed, unsigned long long subsequence, \
                              unsigned long long offset, S *state); \
  __device__ unsigned int curand(S *state); __device__ float curand_uniform(S *state); \
  __device__ double curand_uniform_double(S *state); __device__ float curand_normal(S *state); \
  __device__ float2 curand_normal2(S *state); __device__ unsigned int curand_poisson(S *state, double lambda); \
  __device__ void skipahead(unsigned long long n, S *state); \
  __device__ void skipahead_sequence(unsigned long long n, S *state);
__LC_CURAND_UNMODELLED(curandStateXORWOW_t)
