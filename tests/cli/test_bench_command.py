"""The static cost model in `diff` and `lowercheck bench` on a machine without a GPU: naive vs
shared-memory transpose (the naive one's strided stores issue 8x the sectors), each side's
roofline floor and occupancy on the chosen device, the reason no timing was taken, and a baseline
timed elsewhere refused. `TestBenchOnGpu` times a pair natively (skipped without a CUDA device)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from support import run_lowercheck

from lowercheck.perf.cost import side_cost
from lowercheck.perf.device import FakeDevice
from lowercheck.perf.occupancy import occupancy
from lowercheck.perf.targets import get_target

TRANSPOSE = Path(__file__).parents[2] / "corpus" / "transpose"
VADD = Path(__file__).parents[2] / "corpus" / "vector_add"


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def run(*args: str) -> subprocess.CompletedProcess:
    return run_lowercheck(list(args))


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
    # Occupancy per launch: both kernels use 256-thread blocks; ptxas gives registers and shared memory.
    for side in ("source", "target"):
        (launch,) = cost[side]["occupancy"]
        assert launch["threads_per_block"] == 256
        if shutil.which("nvcc"):
            expected = occupancy(get_target("a100-80gb").sm, 256, launch["registers"], launch["shared_bytes"])
            assert not launch["upper_bound"] and launch["occupancy"] == expected.fraction
            assert launch["registers"] > 0
    if shutil.which("nvcc"):
        assert cost["source"]["occupancy"][0]["shared_bytes"] >= 32 * 33 * 4  # the padded shared tile
        assert "occupancy transpose_tiled_kernel: 256 threads" in done.stdout


def test_a_reduction_shared_by_a_row_is_counted_once_and_a_dot_per_element(tmp_path: Path) -> None:
    """The cost model's FLOPs from the dataflow: an RMSNorm's sum of squares feeds every element of
    its row (3 FLOPs an element, not 2 x cols: that made a 2.8e9-element norm compute-bound at
    2.2e14 FLOPs); a matmul's dot of length k is each element's own (2 k an element)."""
    corpus = TRANSPOSE.parent
    norm, matmul = tmp_path / "norm.json", tmp_path / "matmul.json"
    done = run("diff", str(corpus / "rmsnorm" / "rmsnorm.cu"), str(corpus / "rmsnorm" / "rmsnorm.py"), "--no-run",
               "--spec", str(corpus / "rmsnorm" / "rmsnorm_big.toml"), "--json", str(norm))
    assert done.returncode == 1, done.stderr  # the int32 offsets this size is there for (corpus/rmsnorm)
    cost = json.loads(norm.read_text())["cost"]
    elements = 70000 * 40000
    assert cost["source"]["flops"] == cost["target"]["flops"] == 2 * 40000 * 70000 + elements
    assert "(memory-bound)" in done.stdout and "compute-bound" not in done.stdout
    done = run("diff", str(corpus / "matmul" / "matmul.cu"), str(corpus / "matmul" / "matmul.py"), "--no-run",
               "--json", str(matmul))
    assert done.returncode == 0, done.stderr
    doc = json.loads(matmul.read_text())
    sizes = doc["cost"]["sizes"]
    assert doc["cost"]["source"]["flops"] == doc["cost"]["target"]["flops"] == 2 * sizes["m"] * sizes["n"] * sizes["k"]


def test_triton_occupancy_is_an_upper_bound_from_num_warps_and_says_why(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    done = run("diff", str(VADD / "vadd.cu"), str(VADD / "vadd.py"), "--no-run", "--json", str(report))
    assert done.returncode == 0, done.stderr
    (launch,) = json.loads(report.read_text())["cost"]["target"]["occupancy"]
    assert launch["threads_per_block"] == 4 * 32 and launch["upper_bound"] is True  # Triton's default 4 warps
    assert launch["registers"] is None and "compiles only to TTIR" in launch["unknown"]["registers"]
    assert "= at most 100%" in done.stdout


def test_tpu_target_has_no_occupancy(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    done = run("diff", str(TRANSPOSE / "transpose_tiled.cu"), str(TRANSPOSE / "transpose.cu"), "--no-run",
               "--gpu", "tpu-v5e", "--json", str(report))
    assert done.returncode == 0, done.stderr
    cost = json.loads(report.read_text())["cost"]
    assert cost["source"]["occupancy"] == [] and "no CUDA SMs" in cost["source"]["occupancy_note"]


@pytest.mark.skipif(_cuda_available(), reason="checks the CPU-only path")
def test_bench_without_a_gpu_gives_the_static_comparison_and_says_why(tmp_path: Path) -> None:
    report = tmp_path / "b.json"
    done = run("bench", str(TRANSPOSE / "transpose_tiled.cu"), str(TRANSPOSE / "transpose.cu"), "--json", str(report))
    assert done.returncode == 0, done.stderr
    assert "issued traffic target/source: 4.50x" in done.stdout
    assert "no timing taken: this machine has no CUDA device" in done.stdout
    bench = json.loads(report.read_text())["bench"]
    assert bench["result"] is None and bench["environment"] is None and "no CUDA device" in bench["reason"]


@pytest.mark.skipif(_cuda_available(), reason="checks the CPU-only path")
def test_bench_refuses_a_baseline_timed_elsewhere(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    recorded = FakeDevice(name="NVIDIA A100-SXM4-80GB").environment().to_json()
    baseline.write_text(json.dumps({"bench": {"environment": recorded, "result": {"ratio": 0.1}}}))
    done = run("bench", str(TRANSPOSE / "transpose_tiled.cu"), str(TRANSPOSE / "transpose.cu"),
               "--baseline-json", str(baseline))
    assert done.returncode == 2
    assert "refused baseline" in done.stderr and "timed on NVIDIA A100-SXM4-80GB" in done.stderr
    assert "no CUDA device" in done.stderr and "Traceback" not in done.stderr
    assert "cost model" not in done.stdout  # refused before anything was lowered or timed


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


@pytest.mark.gpu
@pytest.mark.skipif(not _cuda_available(), reason="no CUDA device (torch.cuda.is_available() is False)")
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
class TestBenchOnGpu:
    def test_bench_times_both_sides_natively_and_accepts_only_its_own_baseline(self, tmp_path: Path) -> None:
        import torch

        report = tmp_path / "b.json"
        done = run("bench", str(VADD / "vadd.cu"), str(VADD / "vadd.py"), "--size", "n=16777216", "--budget", "3",
                   "--json", str(report))
        assert done.returncode == 0, done.stdout + done.stderr
        assert "target/source =" in done.stdout and "cold cache" in done.stdout
        bench = json.loads(report.read_text())["bench"]
        assert bench["environment"]["device"] == torch.cuda.get_device_name(0)
        assert bench["sizes"] == {"n": 16777216} and bench["result"]["ratio"] > 0
        assert [f["code"] for f in bench["findings"]] == ["LC401"]
        again = run("bench", str(VADD / "vadd.cu"), str(VADD / "vadd.py"), "--size", "n=16777216", "--budget", "1",
                    "--baseline-json", str(report))
        assert again.returncode == 0 and "timed in this environment" in again.stdout
        other = json.loads(report.read_text())
        other["bench"]["environment"]["driver"] = "0.0"
        (tmp_path / "other.json").write_text(json.dumps(other))
        refused = run("bench", str(VADD / "vadd.cu"), str(VADD / "vadd.py"), "--baseline-json",
                      str(tmp_path / "other.json"))
        assert refused.returncode == 2 and "driver: recorded '0.0'" in refused.stderr


class TestBenchGpuBranchOnFake:
    """The GPU branch of `bench` (printing, JSON, exit code, baseline matching) with the FakeDevice
    standing in for the CUDA device and a fake native pair: what a CPU machine can check of it."""

    @pytest.fixture(autouse=True)
    def _fake_gpu(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import numpy as np

        from lowercheck.perf import command, device as device_module
        from lowercheck.perf.native import NativePair

        monkeypatch.setattr(device_module, "open_cuda_device", lambda index=0: FakeDevice(name="NVIDIA H200"))

        def fake_timing(device, report, sizes, budget_s):
            rng = np.random.default_rng(0)
            pair = NativePair(device.kernel(100e-6, compute=np.add), device.kernel(self.target_s, compute=np.add),
                              lambda: (rng.standard_normal(64), rng.standard_normal(64)),
                              {"source": self.moved, "target": self.moved}, ["fake native pair"])
            return command.time_pair(device, pair, command.BenchOptions(warmup_s=0.01, budget_s=0.1), sizes)

        monkeypatch.setattr(command, "_native_timing", fake_timing)
        self.target_s, self.moved = 50e-6, 2**20

    def bench(self, tmp_path: Path, *more: str) -> tuple[int, str]:
        from rich.console import Console

        from lowercheck.perf import command
        from lowercheck.spec import Spec

        console = Console(record=True, width=300)
        baseline = more[0] if more else None
        code = command.run(str(TRANSPOSE / "transpose_tiled.cu"), str(TRANSPOSE / "transpose.cu"),
                           Spec({"rows": [256], "cols": [512]}, {}, None), "h100-sxm", str(tmp_path / "b.json"),
                           baseline, 1.0, console)
        return code, console.export_text()

    def test_timing_is_printed_and_recorded_with_its_environment(self, tmp_path: Path) -> None:
        code, text = self.bench(tmp_path)
        assert code == 0 and "target/source = " in text and "note: fake native pair" in text
        bench = json.loads((tmp_path / "b.json").read_text())["bench"]
        assert bench["environment"]["device"] == "NVIDIA H200" and bench["sizes"] == {"rows": 256, "cols": 512}
        assert bench["result"]["ratio"] == pytest.approx(54e-6 / 104e-6)
        assert [f["code"] for f in bench["findings"]] == ["LC401"]
        # Its own file is a baseline timed here: accepted and compared.
        (tmp_path / "first.json").write_text((tmp_path / "b.json").read_text())
        code, text = self.bench(tmp_path, str(tmp_path / "first.json"))
        assert code == 0 and "timed in this environment" in text

    def test_implausible_speed_exits_1_and_a_foreign_baseline_exits_2(self, tmp_path: Path) -> None:
        from lowercheck.errors import UserError

        self.moved = 10**9  # 1 GB in ~100 µs: far above the H200's 4.8 TB/s
        code, text = self.bench(tmp_path)
        assert code == 1 and "LC402" in text
        other = json.loads((tmp_path / "b.json").read_text())
        other["bench"]["environment"]["max_sm_mhz"] = 1410.0
        (tmp_path / "other.json").write_text(json.dumps(other))
        with pytest.raises(UserError, match="max_sm_mhz: recorded 1410.0, here 1980.0"):
            self.bench(tmp_path, str(tmp_path / "other.json"))
