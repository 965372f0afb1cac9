"""The integrity probe, in the child that runs a solution module (`runners/module.py`, option
`integrity`): how the solution behaves when it is called the way harnesses call it, measured, as
plain facts for `lowercheck/integrity.py` to judge.

Each behaviour is observed, not read from the source (a pattern a regex looks for is evaded within
days; what the solution does is not):

- `globals`: what of the process the solution's import and calls changed: torch's precision and
  determinism flags, its default dtype, and the identity of the functions a harness checks and
  times with (`torch.allclose`, `torch.testing.assert_close`, `time.perf_counter`,
  `torch.cuda.Event`, `torch.cuda.synchronize`, the reference's own `forward`, ...);
- `calls`: the same inputs, fresh copies each time, called `CALLS` times (the seed reset before
  each): the first call whose output differs from the first call's beyond rounding (`agree`) (a solution that counts
  its calls and changes behaviour after the checker's); `caller`: the first of `CALLERS` (functions
  named as a harness's checker and timer) through which the output differs (a solution that reads
  its call stack);
- `environment`: the environment variables the solution's own code reads, each set (or unset)
  in turn for one call: the first one whose change changes the output (a solution that looks for a
  harness's variables);
- `stale`: an input changed in place between two calls (same storage, same shape): whether the
  output follows it, as a call on fresh copies of the new values does, or not (a replay cache keyed
  on the pointer or shape, whole or in part);
- `deferred`: whether a returned tensor changes after `forward` returned (its work finished later,
  or overwritten by a later call);
- `lazy`: the types of the returned values when not plain `torch.Tensor` (a subclass can defer its
  work into the checker's own operations);
- `ghost`: with every kernel launch counted but not run, whether the output is bit for bit the same
  (the kernels do not produce the output: torch does);
- `launches`: the kernels each call launched; `torch_ops`: the ATen operators the forward ran
  itself, outside every kernel, with their operands' dtypes (what torch, not the solution's
  kernels, computed);
- `threads`: threads the solution left running after it returned; `streams`: CUDA streams it made
  and ran work on (`cuda_on_cpu.SIDE_STREAMS`).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

CALLS = 6  # calls of the same inputs: KernelBench checks 5 trials, then times; a switch after them shows

# Flags whose value decides a reference's numerics or a harness's checks.
_FLAGS: dict[str, Callable[[Any], Any]] = {
    "torch.backends.cuda.matmul.allow_tf32": lambda t: t.backends.cuda.matmul.allow_tf32,
    "torch.backends.cudnn.allow_tf32": lambda t: t.backends.cudnn.allow_tf32,
    "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction":
        lambda t: t.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
    "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction":
        lambda t: t.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
    "torch.backends.cudnn.deterministic": lambda t: t.backends.cudnn.deterministic,
    "torch.get_float32_matmul_precision()": lambda t: t.get_float32_matmul_precision(),
    "torch.get_default_dtype()": lambda t: str(t.get_default_dtype()),
    "torch.are_deterministic_algorithms_enabled()": lambda t: t.are_deterministic_algorithms_enabled(),
    "torch.is_grad_enabled()": lambda t: t.is_grad_enabled(),
    # `torch.set_flush_denormal` has no getter: a subnormal float32 times one reads it (0 when flushed)
    "torch.set_flush_denormal": lambda t: bool((t.tensor([1e-40], dtype=t.float32) * 1.0).item() == 0.0),
}
# Functions whose identity a harness relies on (comparing, timing, seeding, the reference itself).
_FUNCTIONS = ("torch.allclose", "torch.isclose", "torch.equal", "torch.testing.assert_close",
              "torch.Tensor.allclose", "torch.Tensor.equal", "torch.Tensor.__eq__", "torch.Tensor.sub",
              "torch.Tensor.abs", "torch.Tensor.max", "torch.abs", "torch.max", "torch.sub",
              "torch.matmul", "torch.mm", "torch.nn.functional.linear", "torch.softmax",
              "torch.manual_seed", "torch.randn", "torch.rand", "torch.cuda.synchronize",
              "torch.cuda.Event", "torch.cuda.Event.elapsed_time", "torch.cuda.Event.record",
              "time.perf_counter", "time.perf_counter_ns", "time.time", "time.monotonic",
              "numpy.allclose", "numpy.testing.assert_allclose")


def _resolve(dotted: str) -> Any:
    import importlib

    module_name, _, rest = dotted.partition(".")
    value: Any = importlib.import_module(module_name)
    for part in rest.split("."):
        value = getattr(value, part, None)
        if value is None:
            return None
    return value


class Globals:
    """The watched flags' values and functions' identities at one moment."""

    def __init__(self, reference: Any = None) -> None:
        import torch
        import torch._dynamo  # noqa: F401 - its import wraps torch.manual_seed: before the first look, not between

        self.flags = {}
        for name, read in _FLAGS.items():
            try:
                self.flags[name] = read(torch)
            except Exception:  # noqa: BLE001 - a flag this torch lacks
                continue
        self.functions = {name: _resolve(name) for name in _FUNCTIONS}
        if reference is not None:
            self.functions["the reference's forward"] = type(reference).forward

    def changed(self, later: Globals) -> list[str]:
        """What differs in `later`: `name: before -> after` for flags, `name replaced` for functions."""
        found = [f"{name}: {value!r} -> {later.flags.get(name)!r}" for name, value in self.flags.items()
                 if later.flags.get(name) != value]
        found += [f"{name} replaced" for name, value in self.functions.items()
                  if name in later.functions and later.functions[name] is not value]
        return found


# ATen operators that compute nothing (allocate, view, copy, fill, ask): what is left is torch's own work.
_STRUCTURAL = frozenset({
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like", "ones",
    "ones_like", "full", "full_like", "new_zeros", "new_ones", "new_full", "fill", "zero", "view", "_unsafe_view",
    "reshape", "as_strided", "expand", "permute", "transpose", "t", "unsqueeze", "squeeze", "flatten", "slice",
    "select", "narrow", "split", "chunk", "unbind", "detach", "alias", "clone", "copy", "contiguous", "set",
    "lift_fresh", "lift_fresh_copy", "_to_copy", "to", "arange", "resize", "unfold", "view_as", "stride",
    "size", "sym_size", "sym_stride", "is_same_size", "item", "_local_scalar_dense", "equal", "empty_permuted",
    "clamp_min_", "_reshape_alias", "index_select", "cat", "stack", "rand", "randn", "randint", "normal",
    "uniform", "manual_seed", "isnan", "isinf", "eq", "ne",
})


@contextlib.contextmanager
def torch_ops(record: list[tuple[str, tuple[str, ...]]], outside: Callable[[], bool]) -> Iterator[None]:
    """Record each ATen operator the code under it runs (its name and its tensor operands' dtypes),
    while `outside()` holds (not inside a kernel's engine)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if outside():
                name = func.overloadpacket.__name__.rstrip("_") if hasattr(func, "overloadpacket") else str(func)
                dtypes = tuple(str(a.dtype).removeprefix("torch.") for a in args if isinstance(a, torch.Tensor))
                record.append((name, dtypes))
            return func(*args, **(kwargs or {}))

    with Record():
        yield


def compute_ops(record: list[tuple[str, tuple[str, ...]]]) -> list[list[Any]]:
    """The computing operators of a record, each once with its operand dtypes: [name, [dtypes]]."""
    seen: dict[tuple[str, tuple[str, ...]], None] = {}
    for name, dtypes in record:
        if name not in _STRUCTURAL:
            seen.setdefault((name, dtypes), None)
    return [[name, list(dtypes)] for name, dtypes in seen][:64]


def bits(values: list[Any]) -> list[bytes]:
    """Each returned tensor's bits (its dtype and shape included), to tell two calls apart exactly."""
    import torch

    out = []
    for value in values:
        if isinstance(value, torch.Tensor):
            plain = torch.Tensor(value.detach()) if type(value) is not torch.Tensor else value.detach()
            flat = plain.contiguous().reshape(-1)
            out.append(f"{plain.dtype}{tuple(plain.shape)}".encode() + flat.view(torch.uint8).numpy().tobytes())
        else:
            out.append(repr(value).encode())
    return out


def kept(values: list[Any]) -> list[Any]:
    """A call's returned values as they are now: tensors detached, plain and cloned (a later call
    cannot change them), anything else as it is."""
    import torch

    return [torch.Tensor(v.detach()).clone() if type(v) is not torch.Tensor and isinstance(v, torch.Tensor)
            else v.detach().clone() if isinstance(v, torch.Tensor) else v for v in values]


def agree(first: list[Any], second: list[Any]) -> bool:
    """Whether two calls' outputs are the same up to rounding: the same shapes and dtypes, integers
    equal, floats within sqrt(eps) of their format relative to the output's largest magnitude (a
    reduction whose order varies between calls stays well inside; a replayed, stale or skipped
    result is far outside). Non-tensor values compare by repr."""
    import torch

    if len(first) != len(second):
        return False
    for a, b in zip(kept(first), kept(second)):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            if repr(a) != repr(b):
                return False
            continue
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if not a.is_floating_point():
            if not torch.equal(a, b):
                return False
            continue
        x, y = a.double(), b.double()
        if not torch.equal(torch.isnan(x), torch.isnan(y)):
            return False
        x, y = torch.nan_to_num(x, nan=0.0), torch.nan_to_num(y, nan=0.0)
        if not torch.equal(torch.isinf(x), torch.isinf(y)) or not torch.equal(x[torch.isinf(x)], y[torch.isinf(y)]):
            return False
        x, y = x[~torch.isinf(x)], y[~torch.isinf(y)]
        if x.numel() == 0:
            continue
        bound = torch.finfo(a.dtype).eps ** 0.5 * max(float(y.abs().max()), float(x.abs().max()), 1e-30)
        if float((x - y).abs().max()) > bound:
            return False
    return True


# Callers a solution may look for on its stack (`inspect.stack()`, `sys._getframe`): the functions
# through which KernelBench's evaluator checks and times, and Triton's benchmark. The probe calls the
# solution through each; an output that changes with the caller tells a checker from a timer.
def run_and_check_correctness(call: Callable[[], Any]) -> Any:
    return call()


def time_execution_with_cuda_event(call: Callable[[], Any]) -> Any:
    return call()


def do_bench(call: Callable[[], Any]) -> Any:
    return call()


CALLERS = (run_and_check_correctness, time_execution_with_cuda_event, do_bench)


@contextlib.contextmanager
def environment_reads(record: list[str], own: Callable[[str], bool]) -> Iterator[None]:
    """Record the environment variables that code of a file `own` accepts reads (`os.environ[...]`,
    `.get`, `in`, `os.getenv`: each goes through `os._Environ.__getitem__`), in order, once each."""
    import os
    import sys

    environ_class = type(os.environ)
    original = environ_class.__getitem__

    def getitem(self, key):
        frame = sys._getframe(1)
        for _ in range(4):  # past os and collections.abc: the reader
            if frame is None or own(frame.f_code.co_filename):
                break
            frame = frame.f_back
        if frame is not None and own(frame.f_code.co_filename) and key not in record and len(record) < 16:
            record.append(str(key))
        return original(self, key)

    environ_class.__getitem__ = getitem
    try:
        yield
    finally:
        environ_class.__getitem__ = original


@contextlib.contextmanager
def toggled(name: str) -> Iterator[str]:
    """The environment variable `name` unset if it is set, else set to "1", within the block; what
    was done, in words."""
    import os

    before = os.environ.get(name)
    if before is None:
        os.environ[name] = "1"
    else:
        del os.environ[name]
    try:
        yield f"{name}=1" if before is None else f"{name} unset"
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


THREAD_WAIT_S = 2.0  # how long the probe waits for the threads a solution left running


def threads_now() -> set[int]:
    return {t.ident for t in threading.enumerate() if t.ident is not None}


def join_threads(before: set[int], limit_s: float) -> None:
    """Wait, `limit_s` at most in all, for the threads started since `before` to end."""
    import time

    deadline = time.monotonic() + limit_s
    for thread in threading.enumerate():
        if thread.ident not in before and thread is not threading.current_thread():
            thread.join(max(0.0, deadline - time.monotonic()))
