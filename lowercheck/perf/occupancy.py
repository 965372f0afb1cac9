"""Occupancy: how many warps of a kernel one SM holds at once, out of the most it can hold.

The CUDA occupancy calculator's arithmetic, per launch, against a target's per-SM limits
(`targets.SmLimits`). Resident blocks per SM are the fewest that each resource allows:

    warps per block   = ceil(threads / 32)
    by threads        = max warps per SM // warps per block
    by blocks         = max resident blocks per SM
    by registers      = floor_to(registers per SM // ceil_to(regs x 32, 256), 4) // warps per block
    by shared memory  = shared per SM // ceil_to(shared per block + 1 KB reserved, 128)

occupancy = blocks x warps per block / max warps per SM. Registers and shared memory come from
ptxas (a CUDA source; `compare/resources.py`) or a compiled Triton kernel's metadata; where one is
unknown it is left out and the figure is an upper bound (`unknown` says which and why). A launch
that exceeds a per-block limit cannot run: 0 blocks, and `limited_by` names the limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lowercheck.perf.targets import SmLimits

TRITON_UNKNOWN = ("the Triton front end compiles only to TTIR; later stages allot registers and shared memory "
                  "(`lowercheck bench` on a GPU reads them from the compiled kernel)")


@dataclass(frozen=True)
class Occupancy:
    """One launch's occupancy on one SM type. `blocks_by` holds the blocks per SM each known
    resource allows; `limited_by` the resources that set the result."""

    kernel: str
    threads_per_block: int
    registers: int | None  # per thread
    shared_bytes: int | None  # per block, static and dynamic
    blocks_per_sm: int
    warps_per_sm: int
    max_warps_per_sm: int
    blocks_by: dict[str, int]
    limited_by: tuple[str, ...]
    unknown: dict[str, str] = field(default_factory=dict)  # resource -> why it is not known

    @property
    def fraction(self) -> float:
        return self.warps_per_sm / self.max_warps_per_sm

    @property
    def upper_bound(self) -> bool:
        """True when a resource was unknown: the real occupancy may be lower."""
        return bool(self.unknown)

    def to_json(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "threads_per_block": self.threads_per_block, "registers": self.registers,
                "shared_bytes": self.shared_bytes, "blocks_per_sm": self.blocks_per_sm,
                "warps_per_sm": self.warps_per_sm, "max_warps_per_sm": self.max_warps_per_sm,
                "occupancy": self.fraction, "upper_bound": self.upper_bound, "blocks_by": dict(self.blocks_by),
                "limited_by": list(self.limited_by), "unknown": dict(self.unknown)}

    def text(self) -> str:
        """`k: 256 threads x 26 registers, 4.1 KiB shared -> 8 blocks/SM, 64/64 warps = 100% (threads)`."""
        usage = [f"{self.threads_per_block} threads"]
        usage.append(f"{self.registers} registers" if self.registers is not None else "registers unknown")
        usage.append(f"{_kib(self.shared_bytes)} shared" if self.shared_bytes is not None else "shared unknown")
        bound = "at most " if self.upper_bound else ""
        out = (f"{self.kernel}: {', '.join(usage)} -> {self.blocks_per_sm} blocks/SM, {self.warps_per_sm}/"
               f"{self.max_warps_per_sm} warps = {bound}{self.fraction:.0%} (limited by {', '.join(self.limited_by)})")
        by_reason: dict[str, list[str]] = {}
        for what, why in self.unknown.items():
            by_reason.setdefault(why, []).append(what)
        for why, what in by_reason.items():
            out += f"; {' and '.join(what)} unknown: {why}"
        return out


def occupancy(limits: SmLimits, threads_per_block: int, registers: int | None = None,
              shared_bytes: int | None = None, *, kernel: str = "kernel",
              unknown: Mapping[str, str] | None = None) -> Occupancy:
    """Resident blocks and warps per SM for blocks of `threads_per_block` threads using `registers`
    32-bit registers per thread and `shared_bytes` bytes of shared memory per block (None: not known;
    say why in `unknown`)."""
    if threads_per_block <= 0:
        raise ValueError(f"threads per block must be positive, got {threads_per_block}")
    warps_per_block = -(-threads_per_block // limits.warp_size)
    blocks_by: dict[str, int] = {
        "threads": limits.max_warps_per_sm // warps_per_block if threads_per_block <= limits.max_threads_per_block
        else 0,
        "blocks": limits.max_blocks_per_sm,
    }
    if registers is not None:
        blocks_by["registers"] = _blocks_by_registers(limits, registers, warps_per_block)
    if shared_bytes is not None:
        blocks_by["shared memory"] = _blocks_by_shared(limits, shared_bytes)
    blocks = min(blocks_by.values())
    limited_by = tuple(name for name, allowed in blocks_by.items() if allowed == blocks)
    missing = dict(unknown or {})
    for name, value in (("registers", registers), ("shared memory", shared_bytes)):
        if value is None:
            missing.setdefault(name, "not reported")
    return Occupancy(kernel, threads_per_block, registers, shared_bytes, blocks, blocks * warps_per_block,
                     limits.max_warps_per_sm, blocks_by, limited_by, missing)


def side_occupancy(module: Any, sizes: Mapping[str, int], usage: Mapping[str, Mapping[str, int]],
                   limits: SmLimits) -> tuple[tuple[Occupancy, ...], str | None]:
    """Each launch's occupancy in one side's kernel IR at `sizes`: threads per block from the launch
    (CUDA's block extents; Triton's num_warps x 32), registers and static shared memory from `usage`
    (ptxas's figures per mangled kernel name, `compare/resources.py`), plus the launch's dynamic
    shared memory. Returns the launches' figures and, when none could be computed, why not."""
    from lowercheck import symbolic
    from lowercheck.compare.resources import KernelUsage, usage_of
    from lowercheck.dialects.kernel import EntryOp

    entry = next((op for op in module.ops if isinstance(op, EntryOp)), None)
    if entry is None or not entry.launches:
        return (), "no kernel launches"

    def value(text: str) -> int | None:
        found = symbolic.substitute(symbolic.parse(text), sizes)
        return int(found) if found.is_Integer else None

    found = {name: KernelUsage(**{k: int(v) for k, v in figures.items()}) for name, figures in usage.items()}
    language = entry.language.data
    out: list[Occupancy] = []
    skipped: list[str] = []
    for launch in entry.launches:
        kernel = launch.callee.root_reference.data
        if launch.block_exprs:
            extents = [value(e) for e in launch.block_exprs]
            threads = None if None in extents else int(np.prod(extents))
        else:
            threads = launch.num_warps.data * limits.warp_size if launch.num_warps is not None else None
        if threads is None:
            skipped.append(f"{kernel}: threads per block unknown ({language} launch without a block size)")
            continue
        unknown: dict[str, str] = {}
        registers = shared = None
        if language == "cuda":
            kernel_usage = usage_of(kernel, found)
            if kernel_usage is None:
                unknown = {"registers": "no ptxas figures (see the notes)", "shared memory": "no ptxas figures"}
            else:
                registers, shared = kernel_usage.registers, kernel_usage.shared_bytes
                dynamic = value(launch.shared_bytes.data) if launch.shared_bytes is not None else 0
                shared = shared + dynamic if dynamic is not None else None
                if dynamic is None:
                    unknown["shared memory"] = "the dynamic shared memory depends on sizes not given"
        elif language == "triton":
            unknown = {"registers": TRITON_UNKNOWN, "shared memory": TRITON_UNKNOWN}
        else:
            unknown = {"registers": f"not known for {language}", "shared memory": f"not known for {language}"}
        out.append(occupancy(limits, threads, registers, shared, kernel=kernel, unknown=unknown))
    return tuple(out), "; ".join(skipped) or None


def _blocks_by_registers(limits: SmLimits, registers: int, warps_per_block: int) -> int:
    if registers > limits.max_registers_per_thread:
        return 0
    if registers <= 0:
        return limits.max_blocks_per_sm
    per_warp = _ceil_to(registers * limits.warp_size, limits.register_allocation_unit)
    warps = limits.registers_per_sm // per_warp
    warps -= warps % limits.warp_allocation_granularity  # whole groups of warps only
    return warps // warps_per_block


def _blocks_by_shared(limits: SmLimits, shared_bytes: int) -> int:
    if shared_bytes > limits.max_smem_per_block:
        return 0
    per_block = _ceil_to(shared_bytes + limits.smem_reserved_per_block, limits.smem_allocation_unit)
    return limits.smem_per_sm // per_block


def _ceil_to(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def _kib(nbytes: int) -> str:
    return f"{nbytes / 1024:.1f} KiB" if nbytes >= 1024 else f"{nbytes} B"


__all__ = ["Occupancy", "occupancy", "side_occupancy"]
