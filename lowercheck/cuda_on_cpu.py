"""The CUDA device mapped onto the CPU, for user code on a machine without a GPU.

KernelBench problems and many wrappers are written for a GPU: `torch.randn(n).cuda()`,
`torch.empty(n, device="cuda")`, `x.to("cuda")`, `assert x.is_cuda`, `torch.cuda.synchronize()`.
On a CPU-only machine each of these raises ("Torch not compiled with CUDA enabled"), although what
lowercheck needs from the file (shapes, the operator graph, the values) does not depend on where
the tensors live. `install()`, in the processes that import user code (the front ends' workers and
the runners' children, never lowercheck's own process), enters a `TorchFunctionMode` that runs
every such call on the CPU: device arguments naming CUDA become the CPU, `.cuda()` keeps the tensor
where it is, `is_cuda` answers True, and `torch.cuda`'s synchronisation calls do nothing. Reports
say so (`mentions_cuda`). On a machine with a GPU nothing is installed.

Device queries answer as the `--gpu` target (`lowercheck.perf.targets`), whose name the main process
puts in `$LOWERCHECK_DEVICE_TARGET` (`set_target`) for every process it starts: `torch.cuda.is_available()`
is True, `get_device_properties` has the target's SM count, compute capability, shared memory,
registers and memory, `get_device_capability` and `get_device_name` agree, and Triton's
`driver.active` is a stand-in whose `utils.get_device_properties` and `get_current_target` say the
same (`multiprocessor_count`, `max_shared_mem`, ...). A persistent kernel sized by
`multi_processor_count` then launches as many programs as it would on that GPU, and a wrapper that
asks `torch.cuda.is_available()` which branch to take takes the CUDA one. A target that is not a
CUDA device (`tpu-v5e`) answers as the default, `h100-sxm`. lowercheck's own code that must know
whether a GPU is here asks `real_cuda_available()`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from types import SimpleNamespace

TARGET_ENV = "LOWERCHECK_DEVICE_TARGET"  # internal: the parent tells its children; not `$LOWERCHECK_GPU` (configuration)
DEFAULT_TARGET = "h100-sxm"
_INSTALLED = False
_REAL_IS_AVAILABLE = None  # torch.cuda.is_available as torch had it, once `install` replaced it
# What a file writes when it expects a CUDA device.
_CUDA_USE = re.compile(r"\.cuda\(|device\s*=\s*['\"]cuda|\.to\(\s*['\"]cuda|\bis_cuda\b|torch\.cuda\."
                       r"|\bdriver\.active\b")


def mentions_cuda(path: str) -> bool:
    """Does this Python file place tensors on a CUDA device (and so relies on the mapping)?"""
    try:
        return bool(_CUDA_USE.search(Path(path).read_text(errors="replace")))
    except OSError:
        return False


def set_target(name: str) -> None:
    """Device queries in the processes started from now on (and in front-end workers, which are
    told on each call) answer as the target `name` (a `--gpu` name)."""
    from lowercheck.perf.targets import get_target

    get_target(name)  # an unknown name is bad input
    os.environ[TARGET_ENV] = name


def target_name() -> str:
    """The `--gpu` name device queries answer as in this process (`set_target`)."""
    return os.environ.get(TARGET_ENV, DEFAULT_TARGET)


def target():
    """The CUDA target device queries answer as: `$LOWERCHECK_DEVICE_TARGET` where it names a CUDA device."""
    from lowercheck.perf.targets import TARGETS

    chosen = TARGETS.get(target_name())
    return chosen if chosen is not None and chosen.sm is not None else TARGETS[DEFAULT_TARGET]


def real_cuda_available() -> bool:
    """Whether this process has a CUDA device, whatever `install` answers user code."""
    import torch

    return bool((_REAL_IS_AVAILABLE or torch.cuda.is_available)())


def device_properties() -> SimpleNamespace:
    """What `torch.cuda.get_device_properties` reports for the target (torch's field names)."""
    device = target()
    major, minor = (int(part) for part in device.sm.compute_capability.split("."))
    return SimpleNamespace(
        name=device.name, major=major, minor=minor, multi_processor_count=device.sm_count,
        total_memory=device.memory_bytes, warp_size=device.sm.warp_size,
        max_threads_per_multi_processor=device.sm.max_threads_per_sm,
        max_threads_per_block=device.sm.max_threads_per_block,
        regs_per_multiprocessor=device.sm.registers_per_sm,
        shared_memory_per_block=48 * 1024, shared_memory_per_block_optin=device.sm.max_smem_per_block,
        shared_memory_per_multiprocessor=device.sm.smem_per_sm, L2_cache_size=device.l2_bytes,
        is_integrated=False, is_multi_gpu_board=False, gcnArchName="", uuid="lowercheck-cpu-stand-in")


def triton_device_properties() -> dict[str, int]:
    """What Triton's `driver.active.utils.get_device_properties(device)` reports for the target."""
    device = target()
    return {"max_shared_mem": device.sm.max_smem_per_block, "max_num_regs": device.sm.registers_per_sm,
            "multiprocessor_count": device.sm_count, "warpSize": device.sm.warp_size,
            "sm_clock_rate": 0, "mem_clock_rate": 0, "mem_bus_width": 0}


def install() -> None:
    """Map the CUDA device onto the CPU in this process (idempotent; nothing when a GPU is present)."""
    global _INSTALLED
    if _INSTALLED:
        return
    import torch
    from torch.overrides import TorchFunctionMode

    if torch.cuda.is_available():
        return

    def cpu(device):
        if isinstance(device, torch.device) and device.type == "cuda":
            return torch.device("cpu")
        if isinstance(device, str) and device.split(":")[0] == "cuda":
            return "cpu"
        if isinstance(device, int) and not isinstance(device, bool):
            return "cpu"  # `x.to(0)`, `torch.empty(n, device=0)`: a CUDA ordinal
        return device

    tensor_cuda = torch.Tensor.cuda

    class CudaOnCpu(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if func is tensor_cuda:
                return args[0]
            if "device" in kwargs:
                kwargs["device"] = cpu(kwargs["device"])
            if getattr(func, "__name__", "") == "to" and args:
                args = (args[0], *(cpu(a) for a in args[1:]))
            return func(*args, **kwargs)

    CudaOnCpu().__enter__()  # for the rest of this process: it only ever runs user code
    # A property read does not reach a TorchFunctionMode; torch.Tensor (a Python class) shadows
    # TensorBase's descriptor, so `assert x.is_cuda` holds for the tensors that stand for CUDA ones.
    torch.Tensor.is_cuda = property(lambda self: True)
    for name in ("synchronize", "empty_cache", "reset_peak_memory_stats", "manual_seed", "manual_seed_all",
                 "set_device"):
        if hasattr(torch.cuda, name):
            setattr(torch.cuda, name, lambda *a, **k: None)
    _answer_device_queries(torch)
    _INSTALLED = True


# The streams user code made (`torch.cuda.Stream()`) and how often it ran work under one
# (`with torch.cuda.stream(s):`): what the integrity checks read (work a harness's events on the
# current stream do not see).
SIDE_STREAMS = {"made": 0, "entered": 0}


class _Stream:
    """The stream a wrapper asks for (`torch.cuda.current_stream()`): work on the CPU is in order."""

    cuda_stream = 0
    device = "cuda:0"

    def synchronize(self) -> None:
        pass

    def wait_stream(self, other) -> None:
        pass

    def wait_event(self, event) -> None:
        pass

    def query(self) -> bool:
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


class _DefaultStream(_Stream):
    """The current (default) stream: work under it is what a harness's events time."""

    default = True


def _side_stream(*args, **kwargs) -> _Stream:
    SIDE_STREAMS["made"] += 1
    return _Stream()


class _StreamContext:
    """`with torch.cuda.stream(s):`: in order on the CPU, and counted (`SIDE_STREAMS`)."""

    def __init__(self, stream=None) -> None:
        self.side = stream is not None and not getattr(stream, "default", False)

    def __enter__(self):
        if self.side:
            SIDE_STREAMS["entered"] += 1
        return self

    def __exit__(self, *exc) -> None:
        pass


class _DeviceGuard:
    """`with torch.cuda.device(i):`: one device, nothing to switch."""

    def __init__(self, *args, **kwargs) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


def _answer_device_queries(torch) -> None:
    global _REAL_IS_AVAILABLE
    _answer_triton_queries()  # first: Triton's CUDA driver takes torch's word that a GPU is here
    _REAL_IS_AVAILABLE = torch.cuda.is_available
    cuda = torch.cuda
    cuda.is_available = lambda: True
    cuda.is_initialized = lambda: True
    cuda.device_count = lambda: 1
    cuda.current_device = lambda: 0
    cuda.get_device_properties = lambda device=None: device_properties()
    cuda.get_device_capability = lambda device=None: (device_properties().major, device_properties().minor)
    cuda.get_device_name = lambda device=None: target().name
    cuda.current_stream = cuda.default_stream = lambda device=None: _DefaultStream()
    cuda.Stream = _side_stream
    cuda.stream = _StreamContext
    cuda.device = cuda.device_of = _DeviceGuard


def _answer_triton_queries() -> None:
    """Triton's `driver.active`, where Triton is installed and has no driver of its own here."""
    import sys

    if "triton" not in sys.modules:  # a torch-only process: a Triton file is run by Triton's runner
        return
    from triton.backends.compiler import GPUTarget
    from triton.runtime import driver

    try:
        driver.active  # noqa: B018 - a real driver (a GPU after all) stays
        return
    except RuntimeError:  # "0 active drivers"
        pass

    class _Utils:
        def get_device_properties(self, device=0) -> dict[str, int]:
            return triton_device_properties()

    class CpuStandInDriver:
        """Answers what a wrapper asks Triton's driver; launches never reach it (the front end
        records them, the interpreter runs them)."""

        utils = _Utils()

        def get_current_target(self):
            properties = device_properties()
            return GPUTarget("cuda", properties.major * 10 + properties.minor, properties.warp_size)

        def get_current_device(self) -> int:
            return 0

        def get_current_stream(self, device=None) -> int:
            return 0

        def get_active_torch_device(self):
            import torch

            return torch.device("cuda", 0)

        def get_device_interface(self):
            import torch

            return torch.cuda

        def is_active(self) -> bool:
            return True

    driver.set_active(CpuStandInDriver())
