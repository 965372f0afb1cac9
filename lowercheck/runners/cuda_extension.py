"""torch's `load_inline` on a machine without a GPU: each function of the extension runs on
lowercheck's CUDA emulator, called from the user's Python as the compiled one would be.

`load_inline` (and `load`) compiles C++ host functions and CUDA kernels when the user's code calls
it; here, inside a run's child, `installed` puts a stand-in in its place that compiles nothing and
returns an `Extension`. Calling one of its functions lowers that C++ host function with the CUDA
front end at the call's own shapes, dtypes and values (every size concrete, so every host branch
is decided), runs the entry on the SIMT emulator (`runners/simt.py`) with the call's tensors as
its buffers, writes back what the launches wrote into the caller's tensors (in-place semantics),
and returns the function's result as the C++ return type says (a tensor, a list or tuple of them,
or None). This is the one runner that uses a front end: `load_inline` is a compiler invoked by
the program at run time, and lowering is lowercheck's compiler.

What the emulator reports (out-of-bounds accesses, races, barriers, uninitialised reads) is kept
per call, its buffers named by the tensors the caller passed (`out_of_bounds`, `events`). A host
function that lowercheck cannot lower is `EngineLimit` (inconclusive), never the kernel's fault;
a C++ error is the solution's (`UserFailure` at its line).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import ml_dtypes
import numpy as np

from lowercheck.runners import poison
from lowercheck.runners.base import OutOfBounds, RunEvent, RunRequest
from lowercheck.runners.user_code import UserFailure

_TORCH_DTYPES = ("float32", "float16", "bfloat16", "float64", "int8", "uint8", "int16", "int32", "int64", "bool")


class EngineLimit(Exception):
    """lowercheck's CUDA front end or emulator cannot run this host function."""


@dataclass
class _Call:
    """One call's emulator findings, each buffer named by the storage of the caller's tensor."""

    storages: dict[str, int]  # host parameter -> storage address of the tensor it received
    oob: list[OutOfBounds] = field(default_factory=list)
    events: list[RunEvent] = field(default_factory=list)


@dataclass(frozen=True)
class _Lowered:
    """A host function lowered for one call signature: the IR, and the buffers it returns."""

    ir: str
    returned: list[tuple[str, tuple[int, ...], str]]  # name, shape, numpy dtype name
    kernels: list[str]  # the kernels it launches, in order
    steps: list[str]  # the ATen operators its host code runs, in order
    # A launch past the device's limits (at these or at the task's sizes): what, and where.
    refused: tuple[str, tuple[str, int, int] | None] | None = None


@dataclass
class Extensions:
    """The extensions the user's file built in this child, and what their calls found."""

    path: str  # the user's file (where `load_inline`'s sources are)
    calls: list[_Call] = field(default_factory=list)
    launched: list[str] = field(default_factory=list)  # each kernel launch of each call, in order
    steps: list[str] = field(default_factory=list)  # each ATen operator the host code of each call ran
    skip: bool = False  # kernels are counted, not run (the integrity checks' no-op kernels)
    inside: bool = False  # a function of the extension runs now
    # The run's sizes and the task's own (unscaled) sizes: a launch's geometry is also checked at the
    # task's sizes, where a grid past the device's limits fails on a GPU (`real_shapes`).
    sizes: dict[str, int] = field(default_factory=dict)
    task_sizes: dict[str, int] = field(default_factory=dict)
    _lowered: dict[tuple, _Lowered] = field(default_factory=dict)

    def out_of_bounds(self, names: dict[int, str]) -> list[OutOfBounds]:
        found = []
        for call in self.calls:
            for event in call.oob:
                storage = call.storages.get(event.buffer)
                found.append(replace(event, buffer=names.get(storage, event.buffer) if storage else event.buffer))
        return found

    def events(self) -> list[RunEvent]:
        return [event for call in self.calls for event in call.events]

    def limit_of(self, err: BaseException) -> str | None:
        return str(err) if isinstance(err, EngineLimit) else None

    # --- a call ----------------------------------------------------------------------------------

    def call(self, function: str, args: tuple[Any, ...]) -> Any:
        self.inside = True
        try:
            return self._call(function, args)
        finally:
            self.inside = False

    def _call(self, function: str, args: tuple[Any, ...]) -> Any:
        import torch

        from lowercheck.runners import simt
        from lowercheck.runners.torch_arrays import numpy_view, to_torch

        params, returns = _signature(self.path, function)
        if len(args) != len(params):
            raise TypeError(f"{function}(): expected {len(params)} arguments, got {len(args)}")
        key = (function, tuple(_key(a) for a in args))
        if key not in self._lowered:
            self._lowered[key] = self._lower(function, params, args)
        lowered = self._lowered[key]
        arrays: dict[str, Any] = {}
        storages: dict[str, int] = {}
        flat: dict[str, Any] = {}
        for name, value in zip(params, args, strict=True):
            if isinstance(value, torch.Tensor):
                memory = _memory(value)
                flat[name] = memory
                arrays[name] = numpy_view(memory).copy() if memory.numel() else np.zeros(0, _np(memory))
                storages[name] = value.untyped_storage().data_ptr()
            elif isinstance(value, (bool, int, float)):
                arrays[name] = value
        for name, shape, dtype in lowered.returned:  # what the function allocates and returns: poisoned
            arrays[name] = poison.fill(np.empty(shape, np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else dtype))
        self.launched += lowered.kernels
        self.steps += lowered.steps
        request = RunRequest(language="cuda", path=self.path, entry=function, ir=lowered.ir, args=arrays,
                             options={"sizes": {}, "skip_launches": self.skip})
        result = simt.run(request)
        # a launch the device refuses ("invalid configuration argument"), here or at the task's sizes
        refused = [RunEvent("LC102", lowered.refused[0], location=lowered.refused[1])] if lowered.refused else []
        self.calls.append(_Call(storages, result.oob, result.events + refused))
        with torch.no_grad():
            for name, memory in flat.items():  # what the launches wrote into the caller's tensors
                if name in result.outputs:
                    memory.copy_(to_torch(np.ascontiguousarray(result.outputs[name]).reshape(-1))
                                 .view(memory.dtype).reshape(memory.shape))
        if result.error is not None:
            raise EngineLimit(f"lowercheck's CUDA emulator could not run `{function}`: {result.error}")
        tensors = [to_torch(np.asarray(result.outputs[name]).reshape(shape)) for name, shape, _ in lowered.returned]
        return _shaped(returns, tensors)

    def _lower(self, function: str, params: list[str], args: tuple[Any, ...]) -> _Lowered:
        import torch

        from lowercheck import ir
        from lowercheck.errors import LowercheckError, Unsupported, UserError
        from lowercheck.frontends import cuda
        from lowercheck.frontends.base import Binding, NeedsConcreteSizes, TensorArg, ValueArg

        binding: dict[str, Any] = {}
        for name, value in zip(params, args, strict=True):
            if isinstance(value, torch.Tensor):
                dtype = str(value.dtype).removeprefix("torch.")
                if dtype not in _TORCH_DTYPES:
                    raise EngineLimit(f"`{function}` receives a tensor of {dtype}, which lowercheck's CUDA "
                                      "emulator does not hold yet")
                binding[name] = TensorArg(tuple(int(d) for d in value.shape), dtype)
            elif value is None or isinstance(value, (bool, int, float)):
                binding[name] = ValueArg(value)
            else:
                raise EngineLimit(f"`{function}` receives a {type(value).__name__}, which lowercheck passes to no "
                                  "C++ host function yet")
        try:
            module = cuda.lower(self.path, function, Binding(args=binding, sizes={}))
        except UserError as err:  # the C++ does not compile, or calls what no CUDA toolchain has
            raise UserFailure(err.render()) from None
        except (Unsupported, NeedsConcreteSizes, LowercheckError) as err:
            raise EngineLimit(f"lowercheck cannot run `{function}` of the extension: "
                              f"{err.render() if hasattr(err, 'render') else err}") from None
        from lowercheck import symbolic
        from lowercheck.runners.simt import dtype_of

        returned = []
        for param in _entry(module).params:
            if param.pname.startswith("return"):
                shape = tuple(int(symbolic.parse(d.data)) for d in param.shape.data)
                returned.append((param.pname, shape, dtype_of(param.element_type).name))
        kernels = [op.callee.root_reference.data for op in _entry(module).launches]
        steps = [op.target.data.removeprefix("aten.") for op in _entry(module).operators]
        refused = _refused(module, "")
        real = None if refused else real_shapes(binding, self.sizes, self.task_sizes)
        if real is not None:  # the same call at the task's own sizes: lowered for its launches only
            try:
                refused = _refused(cuda.lower(self.path, function, Binding(args=real, sizes={})),
                                   f" at the task's sizes ({', '.join(f'{k}={v}' for k, v in self.task_sizes.items())})")
            except Exception:  # noqa: BLE001 - what lowers at the run's shapes and not at these: nothing said
                refused = None
        return _Lowered(ir.print_ir(module), returned, kernels, steps, refused)


def _refused(module, where: str) -> tuple[str, tuple[str, int, int] | None] | None:
    """The first launch of the lowered host function that the device refuses: in words, and where."""
    from lowercheck import symbolic
    from lowercheck.compare.accesses import location_of
    from lowercheck.compare.resources import launch_problems
    from lowercheck.hardware import ARCHES, DEFAULT_ARCH

    arch = ARCHES[DEFAULT_ARCH]
    for launch in _entry(module).launches:
        values = []
        for exprs in (launch.block_exprs, launch.grid_exprs):
            parsed = [symbolic.parse(e) for e in exprs]
            values.append([int(v) if v.is_Integer else None for v in parsed])
        problems = launch_problems(values[0], values[1], arch) if launch.block_exprs else []
        if problems:
            loc = location_of(launch)
            return (f"the launch of `{launch.callee.root_reference.data}`{where} is past {arch.name}'s limits: "
                    f"{'; '.join(problems)} (a GPU refuses it: invalid configuration argument)",
                    (loc.file, loc.line, loc.column) if loc is not None else None)
    return None


def real_shapes(binding: dict[str, Any], sizes: dict[str, int], task: dict[str, int]) -> dict[str, Any] | None:
    """The call's binding at the task's own sizes, where the run's sizes are a scaled copy of them
    (`plan.solution_sweep`): each extent equal to exactly one scaled size becomes that size's task
    value. None where nothing is scaled, or where an extent could stand for two sizes of different
    task values (the mapping would be a guess)."""
    from lowercheck.frontends.base import TensorArg

    scaled = {name: value for name, value in sizes.items() if name in task and task[name] != value}
    # only the run at the task's sizes (scaled congruent modulo 1024): a batch of one maps no extent
    if not scaled or any(value % 1024 != task[name] % 1024 for name, value in scaled.items()):
        return None
    by_value: dict[int, set[int]] = {}
    for name, value in sizes.items():
        if name in task:
            by_value.setdefault(value, set()).add(task[name])
    if any(len(targets) > 1 for value, targets in by_value.items() if value in scaled.values()):
        return None
    real = {}
    for name, arg in binding.items():
        if isinstance(arg, TensorArg):
            real[name] = TensorArg(tuple(next(iter(by_value[d])) if d in scaled.values() else d for d in arg.shape),
                                   arg.dtype)
        else:
            real[name] = arg
    return real


def _entry(module):
    from lowercheck.dialects.kernel import EntryOp

    return next(op for op in module.ops if isinstance(op, EntryOp))


def _key(value: Any) -> Any:
    """What a call's lowering depends on: a tensor's shape and dtype, a value itself."""
    import torch

    if isinstance(value, torch.Tensor):
        return ("tensor", tuple(value.shape), str(value.dtype))
    return ("value", type(value).__name__, value)


def _memory(tensor):
    """The elements a kernel reads through `data_ptr()`, in memory order: the tensor itself when it is
    contiguous, else the dense block it is a permutation of (a transposed view, read as the GPU
    would read it: in the order of memory, not of the view)."""
    if tensor.is_contiguous():
        return tensor.reshape(-1) if tensor.dim() != 1 else tensor
    order = sorted(range(tensor.dim()), key=lambda d: tensor.stride(d))
    expected = 1
    for d in order:
        if tensor.shape[d] > 1 and tensor.stride(d) != expected:
            raise EngineLimit("a tensor with gaps between its elements (a slice of a larger one) reaches a "
                              "host function's data_ptr; lowercheck's emulator reads only dense tensors")
        expected *= tensor.shape[d]
    return tensor.as_strided((tensor.numel(),), (1,))


def _np(tensor):
    from lowercheck.runners.torch_arrays import numpy_view

    return numpy_view(tensor.reshape(-1)[:0]).dtype


def _shaped(returns: str, tensors: list[Any]) -> Any:
    if returns == "void":
        return None
    if returns == "tensor":
        return tensors[0] if tensors else None
    return tuple(tensors) if returns == "tuple" else list(tensors)


_SIGNATURES: dict[tuple[str, str], tuple[list[str], str]] = {}


def _signature(path: str, function: str) -> tuple[list[str], str]:
    """The host function's parameters (those a Python call passes) and what it returns: "tensor",
    "list", "tuple" or "void"."""
    if (path, function) not in _SIGNATURES:
        from lowercheck.errors import LowercheckError
        from lowercheck.frontends import cuda

        try:
            _SIGNATURES[(path, function)] = cuda.python_signature(path, function)
        except LowercheckError as err:
            raise UserFailure(err.render()) from None
    return _SIGNATURES[(path, function)]


class Extension:
    """What `load_inline` returns: `ext.NAME(*args)` calls the C++ function NAME on the emulator."""

    def __init__(self, extensions: Extensions, name: str, functions: list[str]) -> None:
        self._extensions = extensions
        self._name = name
        self._functions = functions

    def __getattr__(self, function: str):
        if function.startswith("__") or (self._functions and function not in self._functions):
            raise AttributeError(f"module '{self._name}' has no attribute '{function}'")

        def call(*args):
            return self._extensions.call(function, args)

        call.__name__ = function
        return call


@contextlib.contextmanager
def installed(path: str, sizes: dict[str, int] | None = None,
              task_sizes: dict[str, int] | None = None) -> Iterator[Extensions]:
    """Within the block, `torch.utils.cpp_extension.load_inline` and `load` return `Extension`s whose
    functions run the CUDA in `path` on the emulator (`sizes`: the run's, `task_sizes`: the task's own)."""
    import torch.utils.cpp_extension as cpp_extension

    extensions = Extensions(os.path.abspath(path), sizes=dict(sizes or {}), task_sizes=dict(task_sizes or {}))
    saved = cpp_extension.load_inline, cpp_extension.load

    def load_inline(name, cpp_sources=None, cuda_sources=None, functions=None, *args, **kwargs):
        listed = [functions] if isinstance(functions, str) else list(functions or [])
        if isinstance(functions, dict):
            listed = list(functions)
        return Extension(extensions, name, listed)

    def load(name, sources=None, *args, **kwargs):
        raise UserFailure(f"{path}: `torch.utils.cpp_extension.load` compiles files from disk; lowercheck runs "
                          "the CUDA of `load_inline` only")

    cpp_extension.load_inline, cpp_extension.load = load_inline, load
    try:
        yield extensions
    finally:
        cpp_extension.load_inline, cpp_extension.load = saved
