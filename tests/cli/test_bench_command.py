"""The static cost model in `diff` and `lowercheck bench` on a machine without a GPU: naive vs
shared-memory transpose (the naive one's strided stores issue 8x the sectors), each side's
roofline floor on the chosen device, and the reason no timing was taken."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lowercheck.perf.cost import side_cost
from lowercheck.perf.targets import get_target

TRANSPOSE = Path(__file__).parents[2] / "corpus" / "transpose"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lowercheck", *args], capture_output=True, text=True, timeout=600)


def test_diff_shows_the_issued_ratio_and_each_sides_floor(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    done = run("diff", str(TRANSPOSE / "transpose_tiled.cu"), str(TRANSPOSE / "transpose.cu"), "--no-run",
               "--gpu", "a100-80gb", "--json", str(report))
    assert done.returncode == 0, done.stderr
    cost = json.loads(report.read_text())["cost"]
    assert cost["device"] == "a100-80gb" and cost["issued_ratio"] == pytest.approx(4.5)
    assert cost["source"]["floor_s"] > 0 and cost["target"]["floor_s"] == pytest.approx(4.5 * cost["source"]["floor_s"])
    assert cost["source"]["compulsory_bytes"] == cost["target"]["compulsory_bytes"]  # same elements moved
    assert "cost model on NVIDIA A100" in done.stdout


def test_bench_without_a_gpu_gives_the_static_comparison_and_says_why() -> None:
    done = run("bench", str(TRANSPOSE / "transpose_tiled.cu"), str(TRANSPOSE / "transpose.cu"))
    assert done.returncode == 0, done.stderr
    assert "issued traffic target/source: 4.50x" in done.stdout
    assert "no timing taken: this machine has no CUDA device" in done.stdout


def test_unknown_device_is_a_usage_error() -> None:
    done = run("bench", str(TRANSPOSE / "transpose_tiled.cu"), str(TRANSPOSE / "transpose.cu"), "--gpu", "h900")
    assert done.returncode == 2 and "h900" in done.stderr + done.stdout and "Traceback" not in done.stderr


def test_floor_is_memory_or_compute_bound() -> None:
    h100 = get_target("h100-sxm")
    traffic = {"x": {"compulsory_bytes": 4096, "requested_bytes": 4096, "issued_bytes": 4096}}
    memory = side_cost(traffic, 1024, h100, "fp32")
    assert memory.bound == "memory" and memory.floor_s == pytest.approx(4096 / h100.hbm_bytes_per_s)
    compute = side_cost(traffic, 10**12, h100, "fp32")
    assert compute.bound == "compute" and compute.floor_s == pytest.approx(10**12 / h100.peak_flops("fp32"))
