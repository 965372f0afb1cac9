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
"""

from __future__ import annotations

import re
from pathlib import Path

_INSTALLED = False
# What a file writes when it expects a CUDA device.
_CUDA_USE = re.compile(r"\.cuda\(|device\s*=\s*['\"]cuda|\.to\(\s*['\"]cuda|\bis_cuda\b|torch\.cuda\.")


def mentions_cuda(path: str) -> bool:
    """Does this Python file place tensors on a CUDA device (and so relies on the mapping)?"""
    try:
        return bool(_CUDA_USE.search(Path(path).read_text(errors="replace")))
    except OSError:
        return False


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
    for name in ("synchronize", "empty_cache", "reset_peak_memory_stats", "manual_seed", "manual_seed_all"):
        if hasattr(torch.cuda, name):
            setattr(torch.cuda, name, lambda *a, **k: None)
    _INSTALLED = True
