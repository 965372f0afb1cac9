/* lowercheck's model of <c10/cuda/CUDAGuard.h>: a device guard has no effect on one device. */
#pragma once
namespace c10 { namespace cuda {
struct CUDAGuard { template <class D> explicit CUDAGuard(D) {} };
struct OptionalCUDAGuard { OptionalCUDAGuard() {} template <class D> explicit OptionalCUDAGuard(D) {} };
} }  // namespace c10::cuda
namespace at { namespace cuda { using c10::cuda::CUDAGuard; using c10::cuda::OptionalCUDAGuard; } }
