"""Device ceilings: what the hardware can do at most, from datasheets, overridable by measurements.

The loophole detectors (LC402) reject a timing that implies more bandwidth or FLOP/s than these; the
static cost model takes its roofline from the same table. FLOP/s are dense (NVIDIA's datasheets
print tensor-core figures "with sparsity": the dense figure is half). Bandwidths are in decimal
bytes per second as printed; cache and memory sizes in binary units, as the devices report them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass

from lowercheck.errors import UserError

KIB, MIB = 2**10, 2**20


@dataclass(frozen=True)
class SmLimits:
    """What one streaming multiprocessor holds at once: the limits occupancy is computed against.

    Per compute capability, from NVIDIA's CUDA C++ Programming Guide, "Compute Capabilities",
    technical specifications table (docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/
    compute-capabilities.html): resident threads, blocks and 32-bit registers per SM, registers per
    thread, shared memory per SM (the largest carveout) and per block, and the 1 KB of shared memory
    the CUDA runtime reserves per block (compute capability 8.0 and later: "the 1 KB of shared memory
    not made available to a thread block is reserved for system use"). The allocation granularities
    are the CUDA Occupancy Calculator's "GPU data" for compute capability 7.0 to 9.0: registers go to
    a warp in units of 256, to a block in groups of 4 warps (one per SM sub-partition), shared
    memory in units of 128 bytes."""

    compute_capability: str
    max_threads_per_sm: int
    max_blocks_per_sm: int
    smem_per_sm: int  # bytes, with the largest shared-memory carveout
    max_smem_per_block: int  # bytes, with the opt-in for more than 48 KB of dynamic shared memory
    max_threads_per_block: int = 1024
    registers_per_sm: int = 65536
    max_registers_per_thread: int = 255
    register_allocation_unit: int = 256  # registers per warp are rounded up to a multiple of this
    warp_allocation_granularity: int = 4  # warps' registers are allocated in groups of this many
    smem_reserved_per_block: int = 1 * KIB
    smem_allocation_unit: int = 128
    warp_size: int = 32

    @property
    def max_warps_per_sm(self) -> int:
        return self.max_threads_per_sm // self.warp_size


# Hopper (9.0): 2048 threads, 32 blocks, 228 KB shared per SM, 227 KB per block.
SM_90 = SmLimits("9.0", max_threads_per_sm=2048, max_blocks_per_sm=32, smem_per_sm=228 * KIB,
                 max_smem_per_block=227 * KIB)
# Ampere A100 (8.0): 2048 threads, 32 blocks, 164 KB shared per SM, 163 KB per block.
SM_80 = SmLimits("8.0", max_threads_per_sm=2048, max_blocks_per_sm=32, smem_per_sm=164 * KIB,
                 max_smem_per_block=163 * KIB)
# Ada (8.9): 1536 threads, 24 blocks, 100 KB shared per SM, 99 KB per block.
SM_89 = SmLimits("8.9", max_threads_per_sm=1536, max_blocks_per_sm=24, smem_per_sm=100 * KIB,
                 max_smem_per_block=99 * KIB)


@dataclass(frozen=True)
class Target:
    """One device's ceilings. A field is None where the device has no such unit or figure."""

    name: str
    hbm_bytes_per_s: float  # device memory bandwidth
    bf16_flops: float  # tensor cores / MXU, dense
    fp16_flops: float | None = None  # tensor cores, dense
    tf32_flops: float | None = None  # tensor cores, dense
    fp32_flops: float | None = None  # CUDA cores (no tensor cores)
    l2_bytes: int | None = None
    sm_count: int | None = None
    smem_per_sm: int | None = None  # shared memory per SM, the most a kernel can configure
    registers_per_sm: int | None = None  # 32-bit registers
    vmem_bytes: int | None = None  # TPU vector memory per core
    vmem_scoped_bytes: int | None = None  # TPU: the VMEM a kernel may use unless it asks for more
    memory_bytes: int | None = None  # device memory as the datasheet gives it (decimal GB)
    tpu_device_kind: str | None = None  # TPU: the device kind JAX reports (its Pallas lowering reads it)
    source: str = ""
    sm: SmLimits | None = None  # per-SM limits for occupancy (None: not a CUDA device)

    def peak_flops(self, dtype: str) -> float | None:
        """The FLOP/s ceiling for arithmetic in `dtype` ("fp32", "tf32", "fp16", "bf16").

        fp32 takes the larger of the CUDA-core and TF32 tensor-core figures: Triton's `tl.dot` and
        cuBLAS may run an fp32 product on TF32 tensor cores, so only that is implausible."""
        if dtype == "fp32":
            figures = [f for f in (self.fp32_flops, self.tf32_flops) if f is not None]
            return max(figures) if figures else None
        field_name = {"tf32": "tf32_flops", "fp16": "fp16_flops", "bf16": "bf16_flops"}.get(dtype)
        if field_name is None:
            raise UserError(f"no FLOP/s ceiling for dtype {dtype!r}", hint="use fp32, tf32, fp16 or bf16")
        return getattr(self, field_name)


TARGETS: dict[str, Target] = {
    # NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column; L2, SMs, shared memory and registers
    # from the NVIDIA H100 (Hopper) architecture whitepaper.
    "h100-sxm": Target("NVIDIA H100 SXM", hbm_bytes_per_s=3.35e12, bf16_flops=989.4e12, fp16_flops=989.4e12,
                       tf32_flops=494.7e12, fp32_flops=66.9e12, l2_bytes=50 * MIB, sm_count=132,
                       smem_per_sm=228 * KIB, registers_per_sm=65536, memory_bytes=80 * 10**9,
                       source="NVIDIA H100 datasheet (SXM) and Hopper whitepaper", sm=SM_90),
    # NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column: the H100's GH100 die with HBM3e.
    "h200": Target("NVIDIA H200", hbm_bytes_per_s=4.8e12, bf16_flops=989.4e12, fp16_flops=989.4e12,
                   tf32_flops=494.7e12, fp32_flops=66.9e12, l2_bytes=50 * MIB, sm_count=132,
                   smem_per_sm=228 * KIB, registers_per_sm=65536, memory_bytes=141 * 10**9,
                   source="NVIDIA H200 datasheet (SXM) and Hopper whitepaper", sm=SM_90),
    # NVIDIA A100 Tensor Core GPU datasheet, A100 80GB SXM column; L2, SMs, shared memory and
    # registers from the NVIDIA A100 (Ampere) architecture whitepaper.
    "a100-80gb": Target("NVIDIA A100 80GB", hbm_bytes_per_s=2.039e12, bf16_flops=312e12, fp16_flops=312e12,
                        tf32_flops=156e12, fp32_flops=19.5e12, l2_bytes=40 * MIB, sm_count=108,
                        smem_per_sm=164 * KIB, registers_per_sm=65536, memory_bytes=80 * 10**9,
                        source="NVIDIA A100 datasheet (80GB SXM) and Ampere whitepaper", sm=SM_80),
    # NVIDIA L4 Tensor Core GPU datasheet; L2, SMs, shared memory and registers from the Ada
    # Lovelace architecture whitepaper and the CUDA programming guide (compute capability 8.9).
    "l4": Target("NVIDIA L4", hbm_bytes_per_s=300e9, bf16_flops=121e12, fp16_flops=121e12, tf32_flops=60e12,
                 fp32_flops=30.3e12, l2_bytes=48 * MIB, sm_count=58, smem_per_sm=100 * KIB,
                 registers_per_sm=65536, memory_bytes=24 * 10**9,
                 source="NVIDIA L4 datasheet and Ada whitepaper", sm=SM_89),
    # Cloud TPU v5e system architecture page (per chip: 197 TFLOP/s bf16, 819 GB/s HBM2); VMEM per
    # core from JAX's Pallas TPU chip table (jax/_src/pallas/mosaic/tpu_info.py, "TPU v5 lite":
    # 128 MiB per core). The scoped limit, 16 MiB, is XLA:TPU's default for v5e
    # (--xla_tpu_scoped_vmem_limit_kib); a kernel raises it with
    # pltpu.CompilerParams(vmem_limit_bytes=...) (JAX docs, jax.experimental.pallas.tpu.CompilerParams;
    # e.g. marin-community/marin PR #3053 raises it for v5e jobs, which only matters because 16 MiB is tight).
    "tpu-v5e": Target("Google TPU v5e", hbm_bytes_per_s=819e9, bf16_flops=197e12, vmem_bytes=128 * MIB,
                      vmem_scoped_bytes=16 * MIB, tpu_device_kind="TPU v5 lite", memory_bytes=16 * 10**9,
                      source="Cloud TPU v5e documentation; JAX Pallas tpu_info"),
}

# torch.cuda.get_device_properties(...).name -> table entry. H100 PCIe, A100 40GB and L40S are
# other products (other bandwidths) and deliberately absent; an A100 80GB PCIe (1.94 TB/s) gets the
# SXM's ceiling, slightly above its own, which only makes LC402 more lenient.
_DEVICE_NAMES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bH200\b"), "h200"),
    (re.compile(r"\bH100\b.*\b(HBM3|SXM)"), "h100-sxm"),
    (re.compile(r"\bA100\b.*\b80GB\b"), "a100-80gb"),
    (re.compile(r"\bL4\b"), "l4"),
)


def get_target(name: str, overrides: Mapping[str, float | int] | None = None) -> Target:
    """The named target ("h100-sxm", "h200", "a100-80gb", "l4", "tpu-v5e"), with measured ceilings
    replacing datasheet ones: `get_target("h100-sxm", {"hbm_bytes_per_s": 3.0e12})`."""
    if name not in TARGETS:
        raise UserError(f"unknown target {name!r}", hint=f"choose one of {', '.join(TARGETS)}")
    return with_overrides(TARGETS[name], overrides)


def with_overrides(target: Target, overrides: Mapping[str, float | int] | None) -> Target:
    """`target` with the given fields replaced (measured ceilings win over the datasheet's)."""
    if not overrides:
        return target
    known = {f.name for f in dataclasses.fields(Target)} - {"name", "source", "sm"}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise UserError(f"unknown ceiling(s) {', '.join(unknown)}", hint=f"choose among {', '.join(sorted(known))}")
    note = f"{target.source}; measured: {', '.join(sorted(overrides))}"
    return dataclasses.replace(target, **overrides, source=note)


def target_for_device(device_name: str, overrides: Mapping[str, float | int] | None = None) -> Target | None:
    """The table entry for a CUDA device name ("NVIDIA H200", "NVIDIA H100 80GB HBM3", ...), or None."""
    for pattern, key in _DEVICE_NAMES:
        if pattern.search(device_name):
            return with_overrides(TARGETS[key], overrides)
    return None
