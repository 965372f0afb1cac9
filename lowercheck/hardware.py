"""What a CUDA architecture allows a launch: the limits launch checks compare against (LC102).

Figures from NVIDIA's CUDA C++ Programming Guide, "Technical Specifications per Compute Capability".
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CudaArch:
    name: str
    sm: int
    max_threads_per_block: int = 1024
    max_block_dims: tuple[int, int, int] = (1024, 1024, 64)
    max_grid_dims: tuple[int, int, int] = (2**31 - 1, 65535, 65535)
    registers_per_block: int = 65536
    registers_per_thread: int = 255
    static_shared_per_block: int = 48 * 1024
    max_shared_per_block: int = 48 * 1024  # with the opt-in for dynamic shared memory


ARCHES: dict[str, CudaArch] = {
    "sm_80": CudaArch("A100 (sm_80)", 80, max_shared_per_block=163 * 1024),
    "sm_89": CudaArch("L4 / Ada (sm_89)", 89, max_shared_per_block=99 * 1024),
    "sm_90": CudaArch("H100 / H200 (sm_90)", 90, max_shared_per_block=227 * 1024),
}
DEFAULT_ARCH = "sm_90"
