"""Launch and resource limits (LC102): geometry for every swept size, registers and shared memory
from ptxas where nvcc exists."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support import run_lowercheck

from lowercheck.compare.resources import KernelUsage, launch_problems, ptxas_usage, usage_of
from lowercheck.hardware import ARCHES

INPUTS = Path(__file__).parent / "inputs"
H100 = ARCHES["sm_90"]


def test_limits() -> None:
    assert launch_problems([256, 1, 1], [4, 1, 1], H100, None) == []
    assert "2048 threads per block" in launch_problems([2048, 1, 1], [1, 1, 1], H100, None)[0]
    assert "grid.y = 70000" in launch_problems([32, 1, 1], [1, 70000, 1], H100, None)[0]
    heavy = KernelUsage(registers=128, shared_bytes=0, spill_bytes=0)
    assert "registers per block" in launch_problems([1024, 1, 1], [1, 1, 1], H100, heavy)[0]
    assert "static shared memory" in launch_problems([32, 1, 1], [1, 1, 1], H100, KernelUsage(16, 64 * 1024, 0))[0]


def test_mangled_names() -> None:
    usage = {"_Z11vadd_kernelPKfS0_Pfi": KernelUsage(12, 0, 0)}
    assert usage_of("vadd_kernel", usage) == KernelUsage(12, 0, 0)
    assert usage_of("vadd", usage) is None


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_ptxas_reports_registers() -> None:
    usage, skipped = ptxas_usage(str(INPUTS / "block1024.cu"))
    assert skipped is None
    [(name, found)] = usage.items()
    assert name.startswith("_Z1k") and 0 < found.registers <= 255


def test_oversized_block_is_lc102(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    done = run_lowercheck(["diff", str(INPUTS / "block1024.cu"), str(INPUTS / "block2048.cu"), "--no-run",
                           "--json", str(out)])
    assert done.returncode == 1, done.stderr
    [finding] = [f for f in json.loads(out.read_text())["findings"] if f["code"] == "LC102"]
    assert finding["side"] == "target" and "2048 threads per block" in finding["message"]
    assert finding["location"]["file"].endswith("block2048.cu")
