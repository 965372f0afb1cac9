"""Run a Triton wrapper for real on the CPU with Triton's interpreter (`TRITON_INTERPRET=1`).

The runner imports the user's file by path (never a front end), calls the entry with torch tensors
made from the request's arrays, and returns every tensor parameter's final value and the returned
tensors (`return0`, ...). Two instruments make bugs visible instead of silent:

- poison: tensors the wrapper allocates with `torch.empty*` start filled with the poison pattern of
  `lowercheck.runners.poison`, so an element no kernel writes shows up in the comparison;
- bounds: every load/store/atomic of the interpreter is checked, address by address, against the
  tensors the launch received; an access outside all of them is recorded as `OutOfBounds` and
  masked off, so the interpreter never touches memory it does not own (it would read garbage or
  make glibc abort).

`TRITON_INTERPRET` must be set before `triton` is first imported: the sandbox sets it from
`request.options["env"]`; `run` sets it itself when triton is not imported yet, and refuses otherwise.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import sys
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lowercheck.spec import constructed
from lowercheck.runners.base import OutOfBounds, RunRequest, RunResult
from lowercheck.runners.poison import fill
from lowercheck.runners.torch_arrays import numpy_view, to_numpy, to_torch
from lowercheck.runners.user_code import UserFailure, describe, entry_callable, import_user_file, pack_tuples

MAX_EVENTS = 256  # out-of-bounds events kept per run (one per access op and program at most)


def warm_up() -> None:
    """Import torch and Triton now (the fork server calls this; TRITON_INTERPRET=1 is already set)."""
    if os.environ.get("TRITON_INTERPRET") == "1":
        import torch  # noqa: F401
        import triton.language  # noqa: F401
        from triton.runtime import interpreter  # noqa: F401


def run(request: RunRequest) -> RunResult:
    start = time.monotonic()
    result = RunResult()
    problem = interpreter_ready(request)
    if problem:
        result.error, result.error_kind = problem, "crash"
        return result
    try:
        _run(request, result)
    except InterpreterLimit as limit:
        result.error, result.error_kind = str(limit), "runner"
    except UserFailure as failure:
        result.error, result.error_kind = str(failure), "user"
    result.wall_s = time.monotonic() - start
    return result


def interpreter_ready(request: RunRequest) -> str | None:
    """Why Triton's interpreter cannot run here (None: TRITON_INTERPRET=1 is set, before triton's import)."""
    for key, value in (request.options.get("env") or {}).items():
        if "triton" not in sys.modules:
            os.environ.setdefault(key, str(value))
    if os.environ.get("TRITON_INTERPRET") == "1":
        if "triton" in sys.modules and not _imported_interpreted():
            return "triton was imported before TRITON_INTERPRET=1 was set"
        return None
    if "triton" in sys.modules:
        return "TRITON_INTERPRET=1 must be set before triton is imported (run each side in its own process)"
    os.environ["TRITON_INTERPRET"] = "1"
    return None


def _imported_interpreted() -> bool:
    from triton import knobs

    return bool(knobs.runtime.interpret)


def _launched(kernel, grid: tuple[int, ...]):
    """A kernel entry as a call: `kernel[grid](**args)`, with the kernel's own signature (through
    `@triton.autotune`/`@triton.heuristics`, whose `.fn` is the next layer down)."""
    import functools

    inner = kernel
    while hasattr(inner, "fn"):
        inner = inner.fn
    if not callable(getattr(kernel, "__getitem__", None)):
        raise UserFailure(f"`{getattr(inner, '__name__', kernel)}` is given a grid but is no Triton kernel")

    @functools.wraps(inner)
    def launch(**args):
        kernel[grid](**args)

    return launch


def _run(request: RunRequest, result: RunResult) -> None:
    import torch

    torch.manual_seed(request.seed)
    tensors: dict[str, torch.Tensor] = {}
    values: dict[str, Any] = {}
    for name, value in request.args.items():
        if isinstance(value, np.ndarray):
            tensors[name] = to_torch(value)
            values[name] = tensors[name]
        elif isinstance(value, np.generic):
            values[name] = value.item()
        else:
            values[name] = value

    from lowercheck.runners import triton_shims

    triton_shims.install()  # before the user's file: it may take a libdevice function at its import
    module = import_user_file(request.path)
    entry = entry_callable(module, request.entry)
    if entry is None:
        raise UserFailure(f"{request.path}: no function `{request.entry}`")
    grid = request.options.get("grid")
    if grid is not None:  # a kernel itself, launched on the spec's grid (`[launch]`)
        entry = _launched(entry, tuple(grid))
    params = inspect.signature(entry).parameters
    values = {k: constructed(v, entry) for k, v in values.items()}  # the spec's `construct`
    pack_tuples(values, request.options.get("tuples"))
    kwargs = {k: v for k, v in values.items() if k in params}

    with poisoned_allocations(), instrumented(request.path) as bounds:
        try:
            returned = entry(**kwargs)
        except Exception as err:  # noqa: BLE001 - the user's code failed: report where
            if inside_interpreted_kernel(err):
                raise InterpreterLimit(
                    f"Triton's CPU interpreter could not run a kernel that Triton's compiler accepts: "
                    f"{describe(err, request.path)}") from None
            raise UserFailure(describe(err, request.path)) from None

    returned_tensors = [t for t in _flatten(returned) if isinstance(t, torch.Tensor)]
    names = {_storage(t): name for name, t in tensors.items()}
    for index, tensor in enumerate(returned_tensors):
        names.setdefault(_storage(tensor), f"return{index}")
    result.oob = bounds.events(names)
    for name, tensor in tensors.items():
        result.outputs[name] = to_numpy(tensor)
    for index, tensor in enumerate(returned_tensors):
        result.outputs[f"return{index}"] = to_numpy(tensor)


class InterpreterLimit(Exception):
    """The interpreter failed inside a @triton.jit kernel that the front end compiled with Triton's
    own compiler: the interpreter's gap (seen: a libdevice call returning None, `.to()` on a Python
    float), reported as inconclusive, never as the kernel's fault."""


def inside_interpreted_kernel(err: BaseException) -> bool:
    """Did `err` come from executing a kernel body in the interpreter (its frames pass through
    triton/runtime/interpreter.py) rather than from the wrapper's own Python? A device-side
    assertion (`tl.device_assert`) is the kernel's own fault."""
    if isinstance(err, AssertionError):
        return False
    frames = traceback.extract_tb(err.__traceback__)
    return any(f.filename.replace(os.sep, "/").endswith("triton/runtime/interpreter.py") for f in frames)


@contextlib.contextmanager
def instrumented(path: str) -> Iterator[_Bounds]:
    """Triton's interpreter with lowercheck's shims (`triton_shims`: what its compiler accepts and it
    cannot run) and every access bounds-checked against the launch's tensors; `path` is the user's
    file, whose lines the events name."""
    from lowercheck.runners import triton_shims

    triton_shims.install()  # libdevice calls, which the interpreter cannot run by itself (idempotent)
    bounds = _Bounds(os.path.realpath(path))
    with bounds.installed():
        yield bounds


# --- bounds ---------------------------------------------------------------------------------------


@dataclass
class _Pending:
    storage: int  # storage address of the nearest tensor, named after the run
    kind: str
    index: int
    extent: int
    where: dict[str, int]


@dataclass
class _Bounds:
    path: str  # the user's file, resolved
    launch_tensors: list[Any] = field(default_factory=list)  # kept alive: addresses stay unique
    pending: list[_Pending] = field(default_factory=list)
    seen: set[tuple] = field(default_factory=set)
    temps: dict[int, int] = field(default_factory=dict)
    launched: list[str] = field(default_factory=list)  # each launch's kernel, in order
    skip: bool = False  # launches are counted, not run (the integrity checks' no-op kernels)
    inside: bool = False  # a kernel runs now

    def events(self, names: dict[int, str]) -> list[OutOfBounds]:
        out = []
        for event in self.pending:
            if event.storage not in names:
                names[event.storage] = f"temp{len(self.temps)}"
                self.temps[event.storage] = len(self.temps)
            out.append(OutOfBounds(names[event.storage], event.kind, event.index, event.extent, event.where))
        return out

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        from triton.runtime import interpreter as interp

        builder = interp.InterpreterBuilder
        executor = interp.GridExecutor
        saved = {name: getattr(builder, name) for name in
                 ("create_masked_load", "create_masked_store", "create_atomic_rmw", "create_atomic_cas")}
        saved_call = executor.__call__
        bounds = self

        def call(self, *args, **kwargs):
            bounds.launched.append(getattr(self.fn, "__name__", "kernel"))
            if bounds.skip:
                return None
            given = [getattr(a, "base", a) if type(a).__name__ == "TensorDescriptor" else a  # a TMA descriptor: its tensor
                     for a in (*args, *kwargs.values())]
            bounds.launch_tensors = [a for a in given if hasattr(a, "data_ptr")]
            bounds.inside = True
            try:
                return saved_call(self, *args, **kwargs)
            finally:
                bounds.inside = False

        def masked_load(self, ptrs, mask, other, cache_policy, is_volatile):
            mask = bounds.check(self, ptrs, mask, "read")
            return saved["create_masked_load"](self, ptrs, mask, other, cache_policy, is_volatile)

        def masked_store(self, ptrs, value, mask, cache_policy):
            mask = bounds.check(self, ptrs, mask, "write")
            return saved["create_masked_store"](self, ptrs, value, mask, cache_policy)

        def atomic_rmw(self, rmw_op, ptr, val, mask, sem, scope):
            mask = bounds.check(self, ptr, mask, "write")
            return saved["create_atomic_rmw"](self, rmw_op, ptr, val, mask, sem, scope)

        def atomic_cas(self, ptr, cmp, val, sem, scope):
            ptr = bounds.redirect(self, ptr, "write")
            return saved["create_atomic_cas"](self, ptr, cmp, val, sem, scope)

        executor.__call__ = call
        builder.create_masked_load, builder.create_masked_store = masked_load, masked_store
        builder.create_atomic_rmw, builder.create_atomic_cas = atomic_rmw, atomic_cas
        try:
            yield
        finally:
            executor.__call__ = saved_call
            for name, fn in saved.items():
                setattr(builder, name, fn)

    def _ranges(self) -> list[tuple[int, int, int, Any]]:
        """(first byte, end byte, element size, tensor) of each tensor of the current launch."""
        ranges = []
        for tensor in self.launch_tensors:
            size = tensor.element_size()
            span = 1 + sum((d - 1) * s for d, s in zip(tensor.shape, tensor.stride()) if d > 0)
            if tensor.numel() == 0:
                span = 0
            ranges.append((tensor.data_ptr(), tensor.data_ptr() + span * size, size, tensor))
        return ranges

    def _outside(self, addresses: np.ndarray, width: int) -> np.ndarray:
        inside = np.zeros(addresses.shape, dtype=bool)
        for first, end, _, _ in self._ranges():
            inside |= (addresses >= first) & (addresses + width <= end)
        return ~inside

    def check(self, builder, ptrs, mask, kind: str):
        """`mask` with the lanes whose address lies outside every launch tensor turned off."""
        from triton.runtime.interpreter import TensorHandle

        addresses = np.asarray(ptrs.data).astype(np.uint64)
        active = np.broadcast_to(np.asarray(mask.data, dtype=bool), addresses.shape)
        width = _element_width(ptrs)
        outside = self._outside(addresses, width) & active
        if not outside.any():
            return mask
        self._record(builder, addresses, outside, kind)
        return TensorHandle(np.asarray(active & ~outside), mask.dtype)

    def redirect(self, builder, ptr, kind: str):
        """For atomic_cas (no mask): point out-of-bounds lanes at a scratch word instead."""
        from triton.runtime.interpreter import TensorHandle

        addresses = np.asarray(ptr.data).astype(np.uint64)
        outside = self._outside(addresses, _element_width(ptr))
        if not outside.any():
            return ptr
        self._record(builder, addresses, outside, kind)
        scratch = np.zeros(16, dtype=np.uint64)
        self.launch_tensors.append(scratch)  # kept alive until the launch ends
        fixed = np.where(outside, np.uint64(scratch.ctypes.data), addresses)
        return TensorHandle(fixed.astype(np.asarray(ptr.data).dtype), ptr.dtype)

    def _kernel_line(self) -> int:
        """The line of the kernel's access being checked (its frame is in the user's file)."""
        frame = sys._getframe(2)
        while frame is not None and os.path.realpath(frame.f_code.co_filename) != self.path:
            frame = frame.f_back
        return frame.f_lineno if frame is not None else 0

    def _record(self, builder, addresses: np.ndarray, outside: np.ndarray, kind: str) -> None:
        flat = np.flatnonzero(outside.reshape(-1))
        lane = int(flat[0])
        address = int(addresses.reshape(-1)[lane])
        first, _, size, tensor = min(self._ranges(), key=lambda r: _distance(address, r[0], r[1]))
        pid = builder.grid_idx or (0, 0, 0)
        where = {"pid": int(pid[0]), "lane": lane}
        for axis in (1, 2):
            if builder.grid_dim[axis] > 1:
                where[f"pid{axis}"] = int(pid[axis])
        key = (_storage(tensor), kind, tuple(pid), self._kernel_line())
        if key in self.seen or len(self.pending) >= MAX_EVENTS:
            return
        self.seen.add(key)
        extent = tensor.untyped_storage().nbytes() // size
        self.pending.append(_Pending(_storage(tensor), kind, (address - first) // size, extent, where))


def _element_width(ptrs) -> int:
    return max(1, ptrs.get_element_ty().primitive_bitwidth // 8)


def _distance(address: int, first: int, end: int) -> int:
    if address < first:
        return first - address
    return max(0, address - end + 1)


def _storage(tensor) -> int:
    return tensor.untyped_storage().data_ptr()


# --- poison ---------------------------------------------------------------------------------------


@contextlib.contextmanager
def poisoned_allocations() -> Iterator[None]:
    """torch.empty, empty_like, empty_strided and Tensor.new_empty return poisoned tensors."""
    import torch

    originals = {"empty": torch.empty, "empty_like": torch.empty_like, "empty_strided": torch.empty_strided}
    new_empty = torch.Tensor.new_empty

    def poisoning(factory):
        def make(*args, **kwargs):
            return _poison(factory(*args, **kwargs))
        return make

    for name, factory in originals.items():
        setattr(torch, name, poisoning(factory))
    torch.Tensor.new_empty = poisoning(new_empty)
    try:
        yield
    finally:
        for name, factory in originals.items():
            setattr(torch, name, factory)
        torch.Tensor.new_empty = new_empty


def _poison(tensor):
    """Fill with `lowercheck.runners.poison`'s pattern (a NaN payload no arithmetic produces), so
    the comparison tells an element never written from a computed NaN."""
    fill(numpy_view(tensor))
    return tensor


# --- conversions and the user's file ------------------------------------------------------------


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flatten(v)]
    return [] if value is None else [value]

