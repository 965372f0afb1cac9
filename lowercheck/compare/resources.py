"""Resource use against the target architecture's limits (LC102).

- Launch geometry: threads per block, block and grid extents, evaluated for every swept size.
- Registers, shared memory and spills per kernel from `nvcc -cubin -Xptxas -v` where nvcc exists
  (it needs no GPU); without nvcc, or for a source nvcc cannot compile on its own (one that includes
  headers this machine lacks), the check says it was skipped and why.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import sympy
from xdsl.dialects.builtin import ModuleOp

from lowercheck import symbolic
from lowercheck.compare.accesses import location_of
from lowercheck.dialects.kernel import EntryOp
from lowercheck.findings import Finding
from lowercheck.hardware import ARCHES, DEFAULT_ARCH, CudaArch

NVCC_TIMEOUT_S = 60


@dataclass(frozen=True)
class KernelUsage:
    """What ptxas reports for one kernel."""

    registers: int
    shared_bytes: int
    spill_bytes: int

    def to_json(self) -> dict[str, int]:
        return {"registers": self.registers, "shared_bytes": self.shared_bytes, "spill_bytes": self.spill_bytes}


_ENTRY = re.compile(r"Compiling entry function '(\S+)' for '(sm_\d+)'")
_SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers(?:.*?(\d+) bytes smem)?")


def ptxas_usage(path: str, arch: str = DEFAULT_ARCH) -> tuple[dict[str, KernelUsage], str | None]:
    """Per mangled kernel name, what ptxas reports; or ({}, why the check was skipped)."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return {}, "nvcc not found: registers and shared memory were not checked"
    with tempfile.TemporaryDirectory(prefix="lowercheck-nvcc-") as folder:
        try:
            # The helpers lowercheck models (helper_cuda.h's checks) are valid CUDA for nvcc too.
            from lowercheck.frontends.cuda.parse import MODELLED

            done = subprocess.run([nvcc, "-cubin", f"-arch={arch}", "-Xptxas", "-v", f"-I{MODELLED}",
                                   "-o", f"{folder}/k.cubin", path],
                                  capture_output=True, text=True, timeout=NVCC_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return {}, f"nvcc took over {NVCC_TIMEOUT_S} s: registers and shared memory were not checked"
    if done.returncode != 0:
        first = next((line for line in done.stderr.splitlines() if "error" in line), done.stderr.strip()[:200])
        return {}, f"nvcc could not compile the file on its own ({first.strip()}): registers were not checked"
    usage: dict[str, KernelUsage] = {}
    current, spills = None, 0
    for line in done.stderr.splitlines():
        if m := _ENTRY.search(line):
            current, spills = m.group(1), 0
        elif (m := _SPILLS.search(line)) and current:
            spills = int(m.group(1)) + int(m.group(2))
        elif (m := _USED.search(line)) and current:
            usage[current] = KernelUsage(int(m.group(1)), int(m.group(2) or 0), spills)
            current = None
    return usage, None


def usage_of(kernel: str, usage: Mapping[str, KernelUsage]) -> KernelUsage | None:
    """The usage of `kernel` (a C++ name) among mangled names (`_Z11vadd_kernelPKf...`)."""
    for mangled, found in usage.items():
        if mangled == kernel or re.match(rf"_Z\d+{re.escape(kernel)}[A-Z]", mangled) or \
                mangled.startswith(f"_Z{len(kernel)}{kernel}"):
            return found
    return None


def check(side: str, module: ModuleOp, sweep: Sequence[Mapping[str, int]],
          usage: Mapping[str, KernelUsage], arch: CudaArch = ARCHES[DEFAULT_ARCH]) -> list[Finding]:
    """LC102 for launches that exceed `arch`'s limits at some swept size."""
    findings: list[Finding] = []
    entry = next(op for op in module.ops if isinstance(op, EntryOp))
    for launch in entry.launches:
        kernel = launch.callee.root_reference.data
        block_exprs = launch.block_exprs
        if not block_exprs:
            continue  # Triton: the compiler picks the block (num_warps * 32)
        for sizes in sweep:
            block = [_value(e, sizes) for e in block_exprs]
            grid = [_value(e, sizes) for e in launch.grid_exprs]
            problems = launch_problems(block, grid, arch, usage_of(kernel, usage))
            if problems:
                findings.append(Finding(
                    "LC102", f"the launch of `{kernel}` exceeds {arch.name}: {'; '.join(problems)}", side=side,
                    location=location_of(launch),
                    witness={"sizes": dict(sizes), "block": block, "grid": grid},
                    hint="use smaller blocks or tiles"))
                break
    return findings


def _value(text: str, sizes: Mapping[str, int]) -> int | None:
    value = symbolic.substitute(symbolic.parse(text), sizes)
    return int(value) if isinstance(value, sympy.Integer) else None


def launch_problems(block: list[int | None], grid: list[int | None], arch: CudaArch,
                    usage: KernelUsage | None = None) -> list[str]:
    """What of one launch's geometry (and ptxas's usage, where known) `arch` refuses, in words."""
    problems = []
    if all(b is not None for b in block):
        threads = block[0] * block[1] * block[2]
        if threads > arch.max_threads_per_block:
            problems.append(f"{threads} threads per block (at most {arch.max_threads_per_block})")
        for axis, (b, limit) in enumerate(zip(block, arch.max_block_dims, strict=True)):
            if b > limit:
                problems.append(f"block.{'xyz'[axis]} = {b} (at most {limit})")
        if usage is not None and usage.registers * threads > arch.registers_per_block:
            problems.append(f"{usage.registers} registers x {threads} threads = {usage.registers * threads} "
                            f"registers per block (at most {arch.registers_per_block})")
    for axis, (g, limit) in enumerate(zip(grid, arch.max_grid_dims, strict=True)):
        if g is not None and g > limit:
            problems.append(f"grid.{'xyz'[axis]} = {g} (at most {limit})")
    if usage is not None and usage.shared_bytes > arch.static_shared_per_block:
        problems.append(f"{usage.shared_bytes} bytes of static shared memory (at most {arch.static_shared_per_block})")
    return problems
