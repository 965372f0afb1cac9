"""The device a benchmark runs on: one protocol, a deterministic fake and the CUDA device.

The harness (`lowercheck.perf.harness`) sees only `Device`'s primitives: events recorded on the
current stream, a host clock, a device-wide synchronise, clock readings, the L2 size, a persisting-L2
reset, and buffers to allocate and fill. `FakeDevice` implements them on a simulated timeline (a host
clock, the timed stream, and a second stream for off-stream or lazy work) so the harness logic is
tested on a CPU; `CudaDevice` implements them with torch.cuda and, where importable, NVML.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from lowercheck.perf.environment import Environment, software_versions


@dataclass(frozen=True)
class Clocks:
    """An SM clock reading and the clock's maximum, in MHz."""

    sm_mhz: float
    max_sm_mhz: float

    def throttled(self, fraction: float = 0.75) -> bool:
        """Below `fraction` of the maximum clock (nvbench discards such samples at 75%)."""
        return self.sm_mhz < fraction * self.max_sm_mhz

    def to_json(self) -> dict[str, float]:
        return {"sm_mhz": self.sm_mhz, "max_sm_mhz": self.max_sm_mhz}


@runtime_checkable
class Device(Protocol):
    """What the benchmark harness needs from a device."""

    name: str
    l2_bytes: int  # the L2 cache's size: the flush writes a multiple of it

    def synchronize(self) -> None:
        """Wait for all work on the device, on every stream."""

    def wall_time(self) -> float:
        """The host clock, in seconds."""

    def record_event(self) -> Any:
        """Record a timing event on the current stream; `elapsed_s` reads two of them."""

    def elapsed_s(self, start: Any, end: Any) -> float:
        """Device time between two recorded events, in seconds (after a synchronise)."""

    def clocks(self) -> Clocks | None:
        """The SM clock now, or None where the device cannot say."""

    def reset_persisting_l2(self) -> bool:
        """Evict persisting-L2 lines (a flush by writing does not); False where unavailable."""

    def alloc(self, nbytes: int) -> Any:
        """A device buffer of `nbytes` bytes."""

    def fill(self, buffer: Any, value: int) -> None:
        """Write `value` (0..255) into every byte of `buffer`, on the current stream."""

    def free_bytes(self) -> int:
        """Device memory free now, in bytes."""

    def environment(self) -> Environment:
        """The device, driver, clocks and software a timing taken here depends on."""


# --- the fake device -------------------------------------------------------------------------------


@dataclass
class FakeBuffer:
    """A fake device allocation: its size and the byte last written into it (no memory behind it)."""

    nbytes: int
    value: int = 0


@dataclass(frozen=True)
class FakeEvent:
    at: float  # the timed stream's clock when the event executed


@dataclass
class FakeKernel:
    """A kernel on a FakeDevice: each call takes `seconds` of device time (`hot_seconds` when no
    flush of at least the L2 size came since the previous kernel), scaled by the device's noise and
    throttling. `off_stream` work runs on a second stream, which events on the timed stream do not
    see but a synchronise waits for. `compute`, if given, computes the call's result on the host."""

    device: FakeDevice = field(repr=False)
    name: str
    seconds: float | Callable[[], float]
    hot_seconds: float | None = None
    off_stream: bool = False
    compute: Callable[..., Any] | None = None

    def __call__(self, *args: Any) -> Any:
        self.device.launch(self, args)
        return self.compute(*args) if self.compute else None


@dataclass
class FakeDevice:
    """A deterministic device: a simulated host clock and two streams, seeded noise, optional
    throttling, and the L2 size it reports. Every launch, fill and allocation is recorded.

    As on a GPU, an event recorded on an idle stream executes at once, so a sample's event time
    includes the host's launch overhead. Durations are multiplied by exp(N(0, noise)). Throttling:
    during the first `throttle_duty` of every `throttle_period_s` of simulated time the SM clock is
    `throttled_clock` of its maximum and kernels are slower by the same factor."""

    name: str = "fake device"
    l2_bytes: int = 8 * 2**20
    memory_bytes: int = 2**30
    seed: int = 0
    noise: float = 0.0
    launch_overhead_s: float = 4e-6
    sync_overhead_s: float = 2e-6
    fill_bytes_per_s: float = 2e12
    max_sm_mhz: float = 1980.0
    throttle_period_s: float | None = None
    throttle_duty: float = 0.0
    throttled_clock: float = 0.5
    has_clocks: bool = True
    has_persisting_l2: bool = True
    driver: str = "fake driver 1.0"
    compute_capability: str = "fake"
    sm_count: int = 4
    # The record: kernel names in launch order with the ids of their arguments; allocation sizes.
    launches: list[tuple[str, tuple[int, ...]]] = field(default_factory=list, repr=False)
    allocations: list[int] = field(default_factory=list, repr=False)
    persisting_resets: int = 0
    _host: float = field(default=0.0, init=False, repr=False)  # the host clock
    _stream: float = field(default=0.0, init=False, repr=False)  # when the timed stream is idle again
    _side_stream: float = field(default=0.0, init=False, repr=False)  # the same for off-stream work
    _flushed_bytes: int = field(default=0, init=False, repr=False)  # filled since the last kernel
    _allocated: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        self._rng = np.random.default_rng(self.seed)

    def kernel(self, seconds: float | Callable[[], float], *, name: str = "kernel", hot_seconds: float | None = None,
               off_stream: bool = False, compute: Callable[..., Any] | None = None) -> FakeKernel:
        """A kernel taking `seconds` (or `seconds()`, drawn per call) of device time per call."""
        return FakeKernel(self, name, seconds, hot_seconds, off_stream, compute)

    # The timeline: the host issues work; each stream runs it in order, no earlier than it was issued.
    def launch(self, kernel: FakeKernel, args: tuple[Any, ...]) -> None:
        self.launches.append((kernel.name, tuple(id(arg) for arg in args)))
        self._host += self.launch_overhead_s
        nominal = kernel.seconds() if callable(kernel.seconds) else kernel.seconds
        if self._flushed_bytes < self.l2_bytes and kernel.hot_seconds is not None:
            nominal = kernel.hot_seconds
        self._flushed_bytes = 0
        duration = nominal * float(np.exp(self._rng.normal(0.0, self.noise))) if self.noise else nominal
        if self._throttled(self._host):
            duration /= self.throttled_clock
        if kernel.off_stream:
            self._side_stream = max(self._side_stream, self._host) + duration
        else:
            self._stream = max(self._stream, self._host) + duration

    def _throttled(self, at: float) -> bool:
        if not self.throttle_period_s:
            return False
        return (at % self.throttle_period_s) < self.throttle_duty * self.throttle_period_s

    def synchronize(self) -> None:
        self._host = max(self._host, self._stream, self._side_stream) + self.sync_overhead_s

    def wall_time(self) -> float:
        return self._host

    def record_event(self) -> FakeEvent:
        self._stream = max(self._stream, self._host)
        return FakeEvent(self._stream)

    def elapsed_s(self, start: FakeEvent, end: FakeEvent) -> float:
        return end.at - start.at

    def clocks(self) -> Clocks | None:
        if not self.has_clocks:
            return None
        scale = self.throttled_clock if self._throttled(self._host) else 1.0
        return Clocks(self.max_sm_mhz * scale, self.max_sm_mhz)

    def reset_persisting_l2(self) -> bool:
        self.persisting_resets += self.has_persisting_l2
        return self.has_persisting_l2

    def alloc(self, nbytes: int) -> FakeBuffer:
        if nbytes > self.free_bytes():
            raise MemoryError(f"fake device: {nbytes} bytes requested, {self.free_bytes()} free")
        self.allocations.append(nbytes)
        self._allocated += nbytes
        return FakeBuffer(nbytes)

    def fill(self, buffer: FakeBuffer, value: int) -> None:
        buffer.value = value
        self._host += self.launch_overhead_s
        self._stream = max(self._stream, self._host) + buffer.nbytes / self.fill_bytes_per_s
        self._flushed_bytes += buffer.nbytes

    def free_bytes(self) -> int:
        return self.memory_bytes - self._allocated

    def environment(self) -> Environment:
        clock = self.max_sm_mhz if self.has_clocks else None
        return Environment(self.name, self.compute_capability, self.sm_count, self.driver, "fake", clock, clock,
                           software_versions())


# --- the CUDA device -------------------------------------------------------------------------------


class CudaDevice:
    """A CUDA device through torch: events on the current stream, `torch.cuda.synchronize`, the L2
    size from the device properties, SM clocks from NVML when `pynvml` is importable (else none),
    and the persisting-L2 reset from the driver (`cuCtxResetPersistingL2Cache`)."""

    def __init__(self, index: int = 0) -> None:
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("no CUDA device: torch.cuda.is_available() is False")
        self._torch = torch
        self.index = index
        self._device = torch.device("cuda", index)
        torch.cuda.set_device(self._device)
        properties = torch.cuda.get_device_properties(self._device)
        self.name: str = properties.name
        self.l2_bytes: int = int(properties.L2_cache_size)
        self.compute_capability = f"{properties.major}.{properties.minor}"
        self.sm_count = int(properties.multi_processor_count)
        self._nvml = _nvml_handle(properties, index)
        self._reset_l2 = _driver_function("cuCtxResetPersistingL2Cache")

    def synchronize(self) -> None:
        self._torch.cuda.synchronize(self._device)

    def wall_time(self) -> float:
        return time.perf_counter()

    def record_event(self) -> Any:
        event = self._torch.cuda.Event(enable_timing=True)
        event.record()
        return event

    def elapsed_s(self, start: Any, end: Any) -> float:
        return start.elapsed_time(end) / 1e3  # torch reports milliseconds

    def clocks(self) -> Clocks | None:
        if self._nvml is None:
            return None
        pynvml, handle = self._nvml
        return Clocks(float(pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM)),
                      float(pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_SM)))

    def reset_persisting_l2(self) -> bool:
        return self._reset_l2 is not None and self._reset_l2() == 0  # CUDA_SUCCESS

    def alloc(self, nbytes: int) -> Any:
        return self._torch.empty(nbytes, dtype=self._torch.uint8, device=self._device)

    def fill(self, buffer: Any, value: int) -> None:
        buffer.fill_(value)

    def free_bytes(self) -> int:
        return int(self._torch.cuda.mem_get_info(self._device)[0])

    def environment(self) -> Environment:
        """Name, capability and SM count from torch; driver version and clocks from NVML (the
        driver's own version number through libcuda when NVML is absent; clocks then unknown)."""
        driver = max_mhz = app_mhz = None
        if self._nvml is not None:
            pynvml, handle = self._nvml
            try:
                driver = _text(pynvml.nvmlSystemGetDriverVersion())
                max_mhz = float(pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_SM))
                app_mhz = float(pynvml.nvmlDeviceGetApplicationsClock(handle, pynvml.NVML_CLOCK_SM))
            except pynvml.NVMLError:
                pass
        if driver is None:
            driver = _driver_version()
        return Environment(self.name, self.compute_capability, self.sm_count, driver, self._torch.version.cuda,
                           max_mhz, app_mhz, software_versions())


def open_cuda_device(index: int = 0) -> CudaDevice | None:
    """The CUDA device `index`, or None where torch sees no CUDA device (a CPU build, no driver)."""
    from lowercheck import cuda_on_cpu

    return CudaDevice(index) if cuda_on_cpu.real_cuda_available() else None


def _nvml_handle(properties: Any, index: int) -> tuple[Any, Any] | None:
    """(pynvml, handle) for the device, found by UUID (CUDA and NVML may number devices
    differently), else by index; None without pynvml or when NVML fails."""
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
        uuid = getattr(properties, "uuid", None)
        if uuid is not None:
            try:
                return pynvml, pynvml.nvmlDeviceGetHandleByUUID(f"GPU-{uuid}")
            except pynvml.NVMLError:
                pass
        return pynvml, pynvml.nvmlDeviceGetHandleByIndex(index)
    except pynvml.NVMLError:
        return None


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _driver_version() -> str | None:
    """libcuda's `cuDriverGetVersion` (12040 for CUDA 12.4), or None where it cannot be loaded."""
    try:
        function = ctypes.CDLL("libcuda.so.1").cuDriverGetVersion
    except (OSError, AttributeError):
        return None
    version = ctypes.c_int(0)
    if function(ctypes.byref(version)) != 0:
        return None
    return f"cuda driver {version.value}"


def _driver_function(name: str) -> Callable[[], int] | None:
    """A no-argument function of the CUDA driver (libcuda), or None where it cannot be loaded."""
    try:
        function = getattr(ctypes.CDLL("libcuda.so.1"), name)
    except (OSError, AttributeError):
        return None
    function.restype = ctypes.c_int
    function.argtypes = []
    return function
