"""The native timing path of `lowercheck bench`: both sides as native calls on one flat input tuple.

On the CPU: the pair's construction from a real `diff` report (nvcc builds the CUDA side, the Triton
side is imported), the argument layout, the refusal of a launch that cannot run, and `time_pair`
on the FakeDevice. `TestNativeOnGpu` runs the same pair on the CUDA device (skipped without one).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lowercheck.perf.command import time_pair, timing_sizes
from lowercheck.perf.device import FakeDevice
from lowercheck.perf.harness import BenchOptions
from lowercheck.perf.native import (
    NativePair,
    NativeUnavailable,
    Param,
    correspondence,
    cuda_call,
    import_entry,
    native_pair,
    python_call,
    wrapper_source,
)

VADD = Path(__file__).parents[2] / "corpus" / "vector_add"
PARAMS = [Param("x", "buffer", "f32", "in"), Param("y", "buffer", "f32", "in"), Param("out", "buffer", "f32", "out"),
          Param("n", "scalar", "i32", "size")]


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


@pytest.fixture(scope="module")
def vadd_report() -> Any:
    from lowercheck.diff import DiffOptions, diff
    from lowercheck.spec import Spec

    return diff(DiffOptions(str(VADD / "vadd.cu"), str(VADD / "vadd.py"), Spec({"n": [4096]}, {}, None), run=False))


def test_wrapper_calls_the_entry_with_typed_arguments():
    text = wrapper_source(str(VADD / "vadd.cu"), "vadd", PARAMS)
    assert f'#include "{os.path.realpath(VADD / "vadd.cu")}"' in text
    assert 'extern "C" int lowercheck_call(float* a0, float* a1, float* a2, int a3)' in text
    assert "vadd(a0, a1, a2, a3);" in text and "cudaGetLastError()" in text
    with pytest.raises(NativeUnavailable, match="no C type"):
        wrapper_source("k.cu", "k", [Param("q", "buffer", "f8E4M3", "in")])


class _Pointer:
    def __init__(self, address: int) -> None:
        self.address = address

    def data_ptr(self) -> int:
        return self.address


def test_cuda_call_passes_pointers_in_signature_order_and_returns_outputs():
    seen: list[tuple] = []
    call = cuda_call(lambda *args: seen.append(args) or 0, PARAMS, {"n": 0, "out": 1, "y": 2, "x": 3})
    inputs = (7, _Pointer(0x30), _Pointer(0x20), _Pointer(0x10))
    assert call(*inputs) == (inputs[1],)
    assert seen == [(0x10, 0x20, 0x30, 7)]
    failing = cuda_call(lambda *args: 700, PARAMS, {"x": 0, "y": 1, "out": 2, "n": 3})
    with pytest.raises(RuntimeError, match="cudaError 700"):
        failing(_Pointer(1), _Pointer(2), _Pointer(3), 4)


def test_python_call_takes_keywords_it_accepts_and_returns_returned_then_output_arguments():
    def entry(x, y, scale=1.0):
        return x * scale + y

    call = python_call(entry, {"x": 0, "y": 1, "extra": 2, "dest": 3}, outputs=["dest"])
    x, y, dest = np.ones(3), np.arange(3.0), np.zeros(3)
    returned, given = call(x, y, "ignored", dest)
    assert np.array_equal(returned, x + y) and given is dest


def test_triton_is_refused_when_it_would_interpret(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    with pytest.raises(NativeUnavailable, match="TRITON_INTERPRET=1"):
        import_entry(str(VADD / "vadd.py"), "vadd")


def test_no_compiled_triton_kernel_means_no_compiled_occupancy():
    from lowercheck.perf.native import triton_occupancy
    from lowercheck.perf.targets import SM_90
    from lowercheck.runners.user_code import import_user_file

    assert triton_occupancy(import_user_file(str(VADD / "vadd.py")), SM_90) == []  # nothing ran here


def test_correspondence_is_diffs_binding(vadd_report):
    assert correspondence(vadd_report.source, vadd_report.target) == {"x": "x", "y": "y", "return0": "out"}


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
@pytest.mark.skipif(_cuda_available(), reason="checks what a CPU-only machine does with a native pair")
def test_pair_is_built_here_but_cannot_launch_without_a_gpu(vadd_report, tmp_path):
    import torch

    pair = native_pair(vadd_report, {"n": 4096}, seed=0, arch="sm_90", folder=str(tmp_path), to_device=torch.from_numpy)
    first, second = pair.make_inputs(), pair.make_inputs()
    # source: x, y, out (poisoned), n; target: x, y; the same values on both sides, new values per set.
    assert len(first) == 6 and first[3] == 4096
    assert torch.equal(first[0], first[4]) and torch.equal(first[1], first[5])
    assert not torch.equal(first[0], second[0])
    assert pair.bytes_moved == {"source": 3 * 4 * 4096, "target": 3 * 4 * 4096}
    assert any("compiled by nvcc for sm_90" in note for note in pair.notes)
    with pytest.raises(RuntimeError, match="launch failed"):  # the driver has no device: nothing ran
        pair.source(*first)


class TestTimePairOnFake:
    """`time_pair` wires the caching check, the measurement and the ceilings: on the fake device."""

    def pair(self, device: FakeDevice, target_seconds: float, cached: bool = False, moved: int = 2**20) -> NativePair:
        rng = np.random.default_rng(0)
        memo: list[np.ndarray] = []

        def add(x: np.ndarray, y: np.ndarray) -> np.ndarray:
            return x + y

        def stale(x: np.ndarray, y: np.ndarray) -> np.ndarray:
            if not memo:
                memo.append(x + y)
            return memo[0]

        source = device.kernel(100e-6, name="source", compute=add)
        target = device.kernel(target_seconds, name="target", compute=stale if cached else add)
        return NativePair(source, target, lambda: (rng.standard_normal(256), rng.standard_normal(256)),
                          {"source": moved, "target": moved}, ["fake pair"])

    def test_honest_pair_gets_the_ratio_only(self):
        device = FakeDevice(name="NVIDIA H200", seed=3)
        timing = time_pair(device, self.pair(device, 50e-6), BenchOptions(warmup_s=0.01, budget_s=0.2), {"n": 256})
        assert [f.code for f in timing.findings] == ["LC401"]
        assert timing.result.ratio == pytest.approx(54e-6 / 104e-6)  # launch overhead in both
        assert timing.environment.device == "NVIDIA H200" and timing.to_json()["environment"]["driver"]

    def test_caching_port_and_impossible_bandwidth_are_flagged(self):
        device = FakeDevice(name="NVIDIA H200", seed=3)
        cached = time_pair(device, self.pair(device, 50e-6, cached=True), BenchOptions(warmup_s=0.01, budget_s=0.1),
                           {})
        assert "LC403" in [f.code for f in cached.findings]
        device = FakeDevice(name="NVIDIA H200", seed=3)
        fast = time_pair(device, self.pair(device, 50e-6, moved=10**9), BenchOptions(warmup_s=0.01, budget_s=0.1), {})
        assert [(f.code, f.side) for f in fast.findings if f.code == "LC402"] == [("LC402", "source"),
                                                                                 ("LC402", "target")]

    def test_unknown_device_has_no_ceilings_and_says_so(self):
        device = FakeDevice(seed=3)
        timing = time_pair(device, self.pair(device, 50e-6, moved=10**9), BenchOptions(warmup_s=0.01, budget_s=0.1), {})
        assert "LC402" not in [f.code for f in timing.findings]
        assert any("no datasheet ceilings for fake device" in note for note in timing.notes)


def test_timing_sizes_prefer_the_users_largest():
    assert timing_sizes([{"n": 10}, {"n": 2**24}], {"n": 128}) == ({"n": 2**24}, None)
    sizes, warning = timing_sizes([], {"n": 128})
    assert sizes == {"n": 128} and "launch overhead" in warning


@pytest.mark.gpu
@pytest.mark.skipif(not _cuda_available(), reason="no CUDA device (torch.cuda.is_available() is False)")
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
class TestNativeOnGpu:
    def test_vadd_cuda_against_triton_natively(self, vadd_report, tmp_path):
        import torch

        from lowercheck.perf.device import CudaDevice

        device = CudaDevice()
        arch = "sm_" + device.compute_capability.replace(".", "")
        pair = native_pair(vadd_report, {"n": 2**24}, seed=0, arch=arch, folder=str(tmp_path),
                           to_device=lambda a: torch.from_numpy(a).cuda())
        inputs = pair.make_inputs()
        (source_out,) = pair.source(*inputs)
        (target_out,) = pair.target(*inputs)
        torch.cuda.synchronize()
        assert torch.equal(source_out, inputs[0] + inputs[1]) and torch.equal(target_out, source_out)
        timing = time_pair(device, pair, BenchOptions(budget_s=3.0), {"n": 2**24})
        assert [f.code for f in timing.findings] == ["LC401"]
        assert 0.2 < timing.result.ratio < 5
        assert timing.environment.device == torch.cuda.get_device_name(0)
        if timing.occupancy:  # the device is in the table: the compiled Triton kernel's occupancy
            (launch,) = timing.occupancy["target"]
            assert launch.threads_per_block == 128 and launch.registers > 0 and not launch.upper_bound
