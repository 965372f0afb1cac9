"""The benchmark harness and its loophole detectors, against a device.

`HarnessContract` holds the checks every device must pass; `TestOnFake` runs them on the
deterministic FakeDevice, `TestOnGpu` on the CUDA device (skipped without one). A rig gives each
class its kernels: on the fake, kernels of configured duration; on the GPU, `torch.cuda._sleep`
(a kernel that spins for a number of clock cycles) and torch.add. `TestFakeOnly` covers what only a
fake device can stage: throttling, a missing clock, the cold/hot cache model.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from lowercheck.perf.detectors import check_caching, check_result, check_wall_gaps, ratio_finding
from lowercheck.perf.device import CudaDevice, Device, FakeDevice, open_cuda_device
from lowercheck.perf.harness import BenchOptions, flush_bytes_for, measure, pool_size
from lowercheck.perf.targets import Target, get_target, target_for_device


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


class FakeRig:
    """Kernels on a FakeDevice; inputs are FakeBuffers (timing) or numpy arrays (caching)."""

    budget_s = 0.2  # simulated seconds

    def __init__(self) -> None:
        self.device = FakeDevice(noise=0.002, seed=1)
        self._rng = np.random.default_rng(0)
        self.add = self.device.kernel(1e-6, name="add", compute=np.add)

    def kernel(self, seconds: float | Callable[[], float], off_stream: bool = False) -> Callable[..., Any]:
        return self.device.kernel(seconds, off_stream=off_stream)

    def make_inputs(self, nbytes: int) -> Callable[[], tuple[Any, ...]]:
        return lambda: (self.device.alloc(nbytes),)

    def memory_kernel(self, nbytes: int) -> tuple[Callable[..., Any], Callable[[], tuple[Any, ...]]]:
        """A kernel that moves `nbytes` at 1 TB/s (plausible on any table entry but the L4 and TPU)."""
        return self.device.kernel(nbytes / 1e12), self.make_inputs(nbytes)

    def values(self) -> tuple[np.ndarray, np.ndarray]:
        return self._rng.standard_normal(1000), self._rng.standard_normal(1000)

    key = staticmethod(id)

    def target(self) -> Target:
        return get_target("h100-sxm")


class CudaRig:
    """Kernels on the CUDA device: torch.cuda._sleep for a set duration, torch.add for traffic."""

    budget_s = 1.0
    cycles_per_s = 1.5e9  # roughly the SM clock; only ratios of durations matter here

    def __init__(self) -> None:
        import torch

        self.torch = torch
        self.device = CudaDevice()
        self._side = torch.cuda.Stream()
        self._generator = torch.Generator(device="cuda").manual_seed(0)

    def kernel(self, seconds: float | Callable[[], float], off_stream: bool = False) -> Callable[..., Any]:
        torch = self.torch

        def run(*inputs: Any) -> None:
            cycles = int((seconds() if callable(seconds) else seconds) * self.cycles_per_s)
            if off_stream:
                with torch.cuda.stream(self._side):
                    torch.cuda._sleep(cycles)
            else:
                torch.cuda._sleep(cycles)

        return run

    def make_inputs(self, nbytes: int) -> Callable[[], tuple[Any, ...]]:
        return lambda: (self.torch.empty(nbytes, dtype=self.torch.uint8, device="cuda"),)

    def memory_kernel(self, nbytes: int) -> tuple[Callable[..., Any], Callable[[], tuple[Any, ...]]]:
        """torch.add of two float32 vectors: reads two thirds of `nbytes`, writes one third."""
        n = nbytes // 12
        out = self.torch.empty(n, device="cuda")
        return (lambda x, y: self.torch.add(x, y, out=out),
                lambda: (self.torch.randn(n, device="cuda"), self.torch.randn(n, device="cuda")))

    def values(self) -> tuple[Any, Any]:
        return (self.torch.randn(1000, device="cuda", generator=self._generator),
                self.torch.randn(1000, device="cuda", generator=self._generator))

    def add(self, x: Any, y: Any) -> Any:
        return self.torch.add(x, y)

    @staticmethod
    def key(tensor: Any) -> int:
        return tensor.data_ptr()

    def target(self) -> Target:
        found = target_for_device(self.device.name)
        if found is None:
            pytest.skip(f"no ceilings for {self.device.name}")
        return found


class HarnessContract:
    rig: Any

    def options(self, **changes: Any) -> BenchOptions:
        return BenchOptions(**{"warmup_s": 0.01, "budget_s": self.rig.budget_s, **changes})

    def test_stops_early_on_low_noise(self):
        rig = self.rig
        # Long enough that the launch overhead in the event times (a few µs) barely moves the ratio.
        result = measure(rig.device, rig.kernel(1e-3), rig.kernel(0.5e-3), rig.make_inputs(4096),
                         self.options(budget_s=10 * rig.budget_s))
        assert result.stop_reason == "converged"
        assert result.measured_s < 10 * rig.budget_s
        assert result.cold.estimate.relative_width < 0.01 and result.hot.estimate.relative_width < 0.01
        assert result.ratio == pytest.approx(0.5, rel=0.1)

    def test_runs_to_budget_on_high_noise(self):
        rig = self.rig
        draw = random.Random(0)
        noisy = rig.kernel(lambda: draw.uniform(20e-6, 400e-6))
        result = measure(rig.device, noisy, rig.kernel(lambda: draw.uniform(20e-6, 400e-6)), rig.make_inputs(4096),
                         self.options())
        assert result.stop_reason == "budget"
        assert result.measured_s >= rig.budget_s
        assert result.cold.estimate.relative_width > 0.01
        assert result.rounds_kept > 10

    def test_flush_is_sized_from_the_devices_l2(self):
        rig = self.rig
        result = measure(rig.device, rig.kernel(10e-6), rig.kernel(10e-6), rig.make_inputs(4096),
                         self.options(min_rounds=3, max_rounds=3))
        assert result.l2_bytes == rig.device.l2_bytes > 0
        assert result.flush_bytes == 2 * rig.device.l2_bytes == flush_bytes_for(rig.device)
        assert result.pool_bytes > rig.device.l2_bytes  # the pool of inputs outgrows the L2 too

    def test_sides_alternate_in_random_order_on_rotating_inputs(self):
        rig = self.rig
        calls: list[tuple[str, int]] = []

        def recorded(side: str, kernel: Callable[..., Any]) -> Callable[..., Any]:
            def run(*inputs: Any) -> Any:
                calls.append((side, id(inputs[0])))
                return kernel(*inputs)
            return run

        result = measure(rig.device, recorded("source", rig.kernel(10e-6)), recorded("target", rig.kernel(10e-6)),
                         rig.make_inputs(2**20), self.options(min_rounds=40, max_rounds=40))
        timed = calls[-40 * 4:]  # 4 calls per round: cold and hot of each side
        firsts = {timed[i][0] for i in range(0, len(timed), 4)}
        assert firsts == {"source", "target"}
        assert all(timed[i][1] == timed[i + 3][1] for i in range(0, len(timed), 4))  # one input set per round
        assert len({buffer for _, buffer in timed}) == min(40, result.pool_sets) > 2

    def test_off_stream_work_is_flagged(self):
        rig = self.rig
        result = measure(rig.device, rig.kernel(200e-6), rig.kernel(200e-6, off_stream=True), rig.make_inputs(4096),
                         self.options(min_rounds=5, max_rounds=20))
        findings = check_wall_gaps(result)
        assert [(f.code, f.side) for f in findings] == [("LC402", "target")]
        assert findings[0].witness["excess_s"] > 100e-6

    def test_implausibly_fast_kernel_is_flagged(self):
        rig = self.rig
        nbytes = 24 * 2**20
        kernel, make_inputs = rig.memory_kernel(nbytes)
        result = measure(rig.device, kernel, kernel, make_inputs, self.options(min_rounds=5, max_rounds=10))
        target = rig.target()
        honest = check_result(result, target, bytes_moved=nbytes)
        assert [f.code for f in honest] == ["LC401"]
        claimed = check_result(result, target, bytes_moved={"source": nbytes, "target": 1000 * nbytes})
        assert [(f.code, f.side) for f in claimed] == [("LC401", None), ("LC402", "target")]

    def test_caching_kernel_is_flagged(self):
        rig = self.rig
        cache: dict[tuple[int, int], Any] = {}

        def cached(x: Any, y: Any) -> Any:
            key = (rig.key(x), rig.key(y))
            if key not in cache:
                cache[key] = rig.add(x, y)
            return cache[key]

        findings = check_caching(cached, rig.values)
        assert [f.code for f in findings] == ["LC403"]
        assert findings[0].witness["cached_per_buffer"] is True
        assert check_caching(rig.add, rig.values) == []
        assert check_caching(rig.add, rig.values, reference=rig.add) == []
        assert check_caching(cached, rig.values, reference=rig.add)[0].code == "LC403"


class TestOnFake(HarnessContract):
    @pytest.fixture(autouse=True)
    def _rig(self) -> None:
        self.rig = FakeRig()


@pytest.mark.gpu
@pytest.mark.skipif(not _cuda_available(), reason="no CUDA device (torch.cuda.is_available() is False)")
class TestOnGpu(HarnessContract):
    @pytest.fixture(autouse=True)
    def _rig(self) -> None:
        self.rig = CudaRig()

    def test_device_reports_torchs_l2_and_events_time_a_kernel(self):
        import torch

        device = self.rig.device
        assert device.l2_bytes == torch.cuda.get_device_properties(0).L2_cache_size
        assert isinstance(open_cuda_device(), CudaDevice)
        result = measure(device, self.rig.kernel(100e-6), self.rig.kernel(100e-6), self.rig.make_inputs(4096),
                         self.options(min_rounds=5, max_rounds=5))
        assert 20e-6 < result.cold.source_median_s < 1e-3


class TestFakeOnly:
    def options(self, **changes: Any) -> BenchOptions:
        return BenchOptions(**{"warmup_s": 0.01, "budget_s": 0.2, **changes})

    def test_throttled_rounds_are_discarded(self):
        device = FakeDevice(throttle_period_s=5e-3, throttle_duty=0.3, seed=2)
        result = measure(device, device.kernel(100e-6), device.kernel(50e-6), lambda: (device.alloc(4096),),
                         self.options(min_rounds=100, max_rounds=100))
        assert result.rounds_discarded > 10 and result.rounds_kept + result.rounds_discarded == 100
        # Throttled kernels take twice as long; none of them is among the kept samples.
        assert max(result.cold.source_s) < 1.5 * 100e-6 and max(result.cold.target_s) < 1.5 * 50e-6
        assert result.clocks.min_mhz == 0.5 * device.max_sm_mhz
        steady = FakeDevice(seed=2)
        unthrottled = measure(steady, steady.kernel(1e-6), steady.kernel(1e-6), lambda: (steady.alloc(4096),),
                              self.options(min_rounds=20, max_rounds=20))
        assert unthrottled.rounds_discarded == 0

    def test_cold_and_hot_are_measured_apart_and_the_flush_makes_cold(self):
        device = FakeDevice()
        source = device.kernel(100e-6, hot_seconds=40e-6)
        target = device.kernel(80e-6, hot_seconds=40e-6)
        launch = device.launch_overhead_s  # events on an idle stream see the launch too
        result = measure(device, source, target, lambda: (device.alloc(4096),), self.options())
        assert (result.cold.source_median_s, result.cold.target_median_s) == pytest.approx((104e-6, 84e-6))
        assert (result.hot.source_median_s, result.hot.target_median_s) == pytest.approx((44e-6, 44e-6))
        assert result.cold.estimate.ratio == pytest.approx((80e-6 + launch) / (100e-6 + launch))
        assert result.hot.estimate.ratio == pytest.approx(1.0)
        # A flush smaller than the L2 leaves the cache warm: the cold samples would be hot.
        short = measure(device, source, target, lambda: (device.alloc(4096),), self.options(flush_factor=0.5))
        assert short.cold.source_median_s == pytest.approx(44e-6)

    def test_flush_follows_the_l2_attribute(self):
        for l2 in (4 * 2**20, 50 * 2**20):
            device = FakeDevice(l2_bytes=l2)
            result = measure(device, device.kernel(1e-6), device.kernel(1e-6), lambda: (device.alloc(4096),),
                             self.options(min_rounds=2, max_rounds=2))
            assert device.allocations[0] == result.flush_bytes == 2 * l2
            assert device.persisting_resets == 2 * 2  # before each cold sample

    def test_warm_up_is_by_time(self):
        device = FakeDevice()
        result = measure(device, device.kernel(1e-3), device.kernel(1e-3), lambda: (device.alloc(4096),),
                         self.options(warmup_s=0.05, min_rounds=2, max_rounds=2))
        assert 0.05 <= result.warmup_s < 0.06
        assert len(device.launches) >= 2 * 25  # 25 warm-up rounds of two 1 ms kernels

    def test_without_clocks_or_persisting_reset_the_result_says_so(self):
        device = FakeDevice(has_clocks=False, has_persisting_l2=False)
        result = measure(device, device.kernel(1e-6), device.kernel(1e-6), lambda: (device.alloc(4096),),
                         self.options(min_rounds=3, max_rounds=3))
        assert result.clocks is None and result.persisting_l2_reset is False
        assert any("no clock readings" in note for note in result.notes)
        assert any("persisting-L2 reset unavailable" in note for note in result.notes)

    def test_pool_size(self):
        assert pool_size(2**20, 8 * 2**20, 2**30) == 9  # 9 MiB of inputs outgrow an 8 MiB L2
        assert pool_size(2**20, 8 * 2**20, 16 * 2**20) == 4  # a quarter of the free memory
        assert pool_size(64, 50 * 2**20, 2**30) == 16384  # capped
        assert pool_size(0, 8 * 2**20, 2**30) == 2
        device = FakeDevice(memory_bytes=25 * 2**20)  # 16 MiB flush, 1 MiB first set, 8 MiB free: 2 sets
        result = measure(device, device.kernel(1e-6), device.kernel(1e-6), lambda: (device.alloc(2**20),),
                         self.options(min_rounds=2, max_rounds=2))
        assert result.pool_sets == 2
        assert any("not larger than the L2" in note and "free memory" in note for note in result.notes)

    def test_result_is_json_and_deterministic(self):
        def run() -> dict[str, Any]:
            device = FakeDevice(noise=0.05, seed=4)
            result = measure(device, device.kernel(100e-6), device.kernel(80e-6), lambda: (device.alloc(4096),),
                             self.options(max_rounds=30))
            return json.loads(json.dumps(result.to_json()))

        first = run()
        assert first == run()
        assert first["ratio"] == first["cold"]["ratio"] == pytest.approx(0.8, rel=0.05)
        assert len(first["cold"]["source_s"]) == first["rounds_kept"]
        finding = ratio_finding(measure_once())
        assert finding.code == "LC401" and "target/source = 0.800" in finding.message

    def test_stale_output_without_buffer_key_is_flagged_and_input_independent_reference_excuses(self):
        stale: list[np.ndarray] = []

        def by_shape(x: np.ndarray) -> np.ndarray:
            if not stale:
                stale.append(x * 2)
            return stale[0]

        rng = np.random.default_rng(5)

        def values() -> tuple[np.ndarray]:
            return (rng.standard_normal(16),)

        findings = check_caching(by_shape, values)
        assert [f.code for f in findings] == ["LC403"] and findings[0].witness["cached_per_buffer"] is False
        assert check_caching(by_shape, values, reference=lambda x: np.zeros(16)) == []
        with pytest.raises(ValueError, match="same values"):
            check_caching(np.negative, lambda: (np.ones(4),))


def measure_once() -> Any:
    device = FakeDevice(launch_overhead_s=0.0)
    return measure(device, device.kernel(100e-6), device.kernel(80e-6), lambda: (device.alloc(4096),),
                   BenchOptions(warmup_s=0.0, min_rounds=10))


def test_fake_device_satisfies_the_protocol():
    assert isinstance(FakeDevice(), Device)


@pytest.mark.skipif(_cuda_available(), reason="checks the CPU-only path")
def test_no_cuda_device_without_cuda():
    assert open_cuda_device() is None
    with pytest.raises(RuntimeError, match="no CUDA device"):
        CudaDevice()
