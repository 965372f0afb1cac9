/* lowercheck's model of <c10/cuda/CUDAException.h>: the checks wrap a call and keep its effect. */
#pragma once
#define C10_CUDA_CHECK(expr) (expr)
#define C10_CUDA_CHECK_WARN(expr) (expr)
/* C10_CUDA_KERNEL_LAUNCH_CHECK() is in shim.h (KernelBench files use it without this header). */
