/* lowercheck's model of the CUDA runtime, force-included before every CUDA file it parses.
 *
 * Real CUDA headers do not parse with the bundled clang, so this declares what kernels and host
 * launchers use: qualifiers, dim3, the launch hook, math functions and a few runtime calls. Headers a
 * file includes (<cuda_runtime.h>, <math.h>, <cstdio>, ...) are empty in-memory files: everything
 * lives here. Declarations only: lowercheck lowers calls by name (see lower.py), never their bodies.
 */
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __restrict__ __restrict
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __HD__ __host__ __device__

typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#ifndef NULL
#define NULL 0
#endif
#define INT_MAX 2147483647
#define INT_MIN (-INT_MAX - 1)
#define UINT_MAX 4294967295U
#define FLT_MAX 3.402823466e+38F
#define FLT_MIN 1.175494351e-38F
#define FLT_EPSILON 1.192092896e-07F
#define DBL_MAX 1.7976931348623158e+308
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
#define M_PI 3.14159265358979323846
#define assert(e) ((void)0)

struct dim3 {
  unsigned int x, y, z;
  __HD__ constexpr dim3(unsigned int x = 1, unsigned int y = 1, unsigned int z = 1) : x(x), y(y), z(z) {}
};
/* The builtin variables as plain structs (not clang's property-based __clang_cuda_builtin_vars.h),
 * so that `threadIdx.x` is an ordinary member access whose name libclang reports, inside macros too. */
struct uint3 { unsigned int x, y, z; };
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;

typedef struct CUstream_st *cudaStream_t;
typedef enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1 } cudaError_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4
};
/* clang turns `k<<<g, b, s, st>>>(...)` into a call of this hook, then of the kernel. */
extern "C" int cudaConfigureCall(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0);

extern "C" {
cudaError_t cudaMalloc(void **ptr, size_t bytes);
cudaError_t cudaMallocManaged(void **ptr, size_t bytes, unsigned int flags = 1);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemset(void *ptr, int value, size_t bytes);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);
__HD__ int printf(const char *format, ...);
void *malloc(size_t bytes);
void free(void *ptr);
void *memset(void *ptr, int value, size_t bytes);
void *memcpy(void *dst, const void *src, size_t bytes);
void exit(int status);
}
template <class T> cudaError_t cudaMalloc(T **ptr, size_t bytes) { return cudaMalloc((void **)ptr, bytes); }

/* Half precision (<cuda_fp16.h>, <cuda_bf16.h>) as clang's arithmetic types; vector types parse so
 * that lowering can name them as unsupported. */
typedef _Float16 __half;
typedef __bf16 __nv_bfloat16;
__HD__ __half __float2half(float);
__HD__ float __half2float(__half);
__HD__ __nv_bfloat16 __float2bfloat16(float);
__HD__ float __bfloat162float(__nv_bfloat16);
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
struct int2 { int x, y; };
struct int4 { int x, y, z, w; };
__HD__ float2 make_float2(float, float);
__HD__ float4 make_float4(float, float, float, float);

/* Math: the C function and CUDA's float overload of each name. */
#define __LC_MATH1(name) \
  __HD__ float name##f(float); __HD__ double name(double); __HD__ float name(float);
#define __LC_MATH2(name) \
  __HD__ float name##f(float, float); __HD__ double name(double, double); __HD__ float name(float, float);
__LC_MATH1(exp) __LC_MATH1(exp2) __LC_MATH1(expm1) __LC_MATH1(log) __LC_MATH1(log2) __LC_MATH1(log10)
__LC_MATH1(log1p) __LC_MATH1(sqrt) __LC_MATH1(rsqrt) __LC_MATH1(cbrt) __LC_MATH1(sin) __LC_MATH1(cos)
__LC_MATH1(tan) __LC_MATH1(asin) __LC_MATH1(acos) __LC_MATH1(atan) __LC_MATH1(sinh) __LC_MATH1(cosh)
__LC_MATH1(tanh) __LC_MATH1(asinh) __LC_MATH1(acosh) __LC_MATH1(atanh) __LC_MATH1(erf) __LC_MATH1(fabs)
__LC_MATH1(floor) __LC_MATH1(ceil) __LC_MATH1(trunc) __LC_MATH1(round) __LC_MATH1(rint)
__LC_MATH2(pow) __LC_MATH2(fmax) __LC_MATH2(fmin) __LC_MATH2(atan2) __LC_MATH2(copysign) __LC_MATH2(fmod)
__HD__ float fmaf(float, float, float);
__HD__ double fma(double, double, double);
__HD__ float fma(float, float, float);
__device__ float __expf(float);
__device__ float __logf(float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __powf(float, float);
__device__ float __fdividef(float, float);
__device__ float __saturatef(float);
__HD__ int abs(int);
__HD__ long long llabs(long long);
__HD__ int min(int, int);
__HD__ unsigned int min(unsigned int, unsigned int);
__HD__ long min(long, long);
__HD__ unsigned long min(unsigned long, unsigned long);
__HD__ long long min(long long, long long);
__HD__ unsigned long long min(unsigned long long, unsigned long long);
__HD__ float min(float, float);
__HD__ double min(double, double);
__HD__ int max(int, int);
__HD__ unsigned int max(unsigned int, unsigned int);
__HD__ long max(long, long);
__HD__ unsigned long max(unsigned long, unsigned long);
__HD__ long long max(long long, long long);
__HD__ unsigned long long max(unsigned long long, unsigned long long);
__HD__ float max(float, float);
__HD__ double max(double, double);

/* Atomics parse, so that lowering can name them as unsupported. */
__device__ int atomicAdd(int *address, int value);
__device__ unsigned int atomicAdd(unsigned int *address, unsigned int value);
__device__ float atomicAdd(float *address, float value);
__device__ double atomicAdd(double *address, double value);
__device__ int atomicMax(int *address, int value);
__device__ int atomicMin(int *address, int value);
__device__ int atomicExch(int *address, int value);
__device__ int atomicCAS(int *address, int compare, int value);
__device__ float __shfl_down_sync(unsigned mask, float value, unsigned delta, int width = 32);
__device__ float __shfl_xor_sync(unsigned mask, float value, int lane_mask, int width = 32);
