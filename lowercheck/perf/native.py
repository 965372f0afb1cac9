"""Both sides of a pair as native GPU calls, for the benchmark harness (`harness.measure`).

- A CUDA side: the .cu file compiled by nvcc into a shared library, with a C wrapper that calls the
  entry (the host launcher) with device pointers and sizes, loaded with ctypes. Its `<<<...>>>`
  launches go to the legacy default stream: torch's current stream, on which the harness records
  its events, as long as nobody changes it (the harness does not).
- A Triton side: the user's file imported in this process with `TRITON_INTERPRET` unset, its entry
  called with torch CUDA tensors: Triton compiles and launches the kernels natively.
- Other languages (Pallas, PyTorch references) are not timed natively yet: `NativeUnavailable`.

Both sides get the values `lowercheck diff` runs them on (`arguments.plan_arguments`: the same values on both
sides, outputs poisoned), copied to the device; every input set is drawn from a new seed. The input
set is one flat tuple (source arguments, then target arguments) so the harness can rotate it and the
caching detector (LC403) can overwrite it in place. Each side's call returns its outputs.
Nothing here runs the emulator or an interpreter: a time measured through these calls is the
kernels' own.
"""

from __future__ import annotations

import ctypes
import inspect
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lowercheck.perf.occupancy import Occupancy, occupancy
from lowercheck.perf.targets import SmLimits

NVCC_TIMEOUT_S = 300
_RETURNED = re.compile(r"^(return|temp)\d+$")
# element type -> (C type, ctypes type of a scalar argument)
_C_TYPES: dict[str, tuple[str, Any]] = {
    "f16": ("__half", None), "bf16": ("__nv_bfloat16", None), "f32": ("float", ctypes.c_float),
    "f64": ("double", ctypes.c_double), "i1": ("bool", ctypes.c_bool), "i8": ("signed char", ctypes.c_byte),
    "i16": ("short", ctypes.c_short), "i32": ("int", ctypes.c_int), "i64": ("long long", ctypes.c_longlong),
}


class NativeUnavailable(Exception):
    """A side cannot be run natively here; the message says why (shown instead of a timing)."""


@dataclass(frozen=True)
class Param:
    """One entry parameter as the native call needs it: name, buffer or scalar, element type, role."""

    name: str
    kind: str  # buffer | scalar
    element_type: str  # f32, i32, ...
    role: str


@dataclass
class NativePair:
    """The harness's inputs: one call per side on a shared flat input tuple, and its generator."""

    source: Callable[..., Any]
    target: Callable[..., Any]
    make_inputs: Callable[[], tuple[Any, ...]]
    bytes_moved: dict[str, int]  # per side: the least it must read and write (each argument buffer once)
    notes: list[str] = field(default_factory=list)
    python_modules: dict[str, Any] = field(default_factory=dict)  # side -> the imported user module

    def compiled_occupancy(self, limits: SmLimits) -> dict[str, list[Occupancy]]:
        """Per Python side, the occupancy of every Triton kernel it compiled so far (call after
        running it): registers and shared memory as the loaded kernel reports them."""
        return {side: triton_occupancy(module, limits) for side, module in self.python_modules.items()}


# --- CUDA: nvcc into a shared library ------------------------------------------------------------


def wrapper_source(cu_path: str, entry: str, params: Sequence[Param]) -> str:
    """C++ that includes the user's .cu and exports `lowercheck_call`: the entry called with the
    same arguments, returning `cudaGetLastError()` (a launch that failed says so)."""
    declared, passed = [], []
    for index, p in enumerate(params):
        c_type = _C_TYPES.get(p.element_type, (None, None))[0]
        if c_type is None:
            raise NativeUnavailable(f"parameter `{p.name}` has element type {p.element_type}: no C type for it")
        declared.append(f"{c_type}{'*' if p.kind == 'buffer' else ''} a{index}")
        passed.append(f"a{index}")
    return (f'#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include "{os.path.realpath(cu_path)}"\n\n'
            f'extern "C" int lowercheck_call({", ".join(declared)}) {{\n'
            f"    {entry}({', '.join(passed)});\n"
            f"    return (int)cudaGetLastError();\n}}\n")


def compile_cuda(cu_path: str, entry: str, params: Sequence[Param], arch: str, folder: str) -> Callable[..., int]:
    """`lowercheck_call` of the library nvcc builds from `wrapper_source` for `arch` ("sm_90"),
    with ctypes argument types set; NativeUnavailable without nvcc or when it fails."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise NativeUnavailable("nvcc not found: the CUDA side cannot be compiled for a native run")
    wrapper = Path(folder) / "lowercheck_wrapper.cu"
    library = Path(folder) / "lowercheck_native.so"
    wrapper.write_text(wrapper_source(cu_path, entry, params))
    command = [nvcc, "-shared", "-Xcompiler", "-fPIC", "-O3", f"-arch={arch}", "-o", str(library), str(wrapper)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=NVCC_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise NativeUnavailable(f"nvcc took over {NVCC_TIMEOUT_S} s on {cu_path}") from None
    if done.returncode != 0:
        first = next((line for line in done.stderr.splitlines() if "error" in line), done.stderr.strip()[:300])
        raise NativeUnavailable(f"nvcc could not build {cu_path} for a native run: {first.strip()}")
    function = ctypes.CDLL(str(library)).lowercheck_call
    function.restype = ctypes.c_int
    function.argtypes = [ctypes.c_void_p if p.kind == "buffer" else _C_TYPES[p.element_type][1] for p in params]
    return function


def cuda_call(launcher: Callable[..., int], params: Sequence[Param],
              positions: Mapping[str, int]) -> Callable[..., Any]:
    """A side call for a compiled CUDA entry: picks its arguments from the flat input tuple by
    `positions`, passes buffers as device pointers, raises when the launch failed, and returns
    its output buffers (role out or inout)."""
    outputs = [p.name for p in params if p.kind == "buffer" and p.role in ("out", "inout")]

    def call(*inputs: Any) -> tuple[Any, ...]:
        args = [inputs[positions[p.name]] for p in params]
        status = launcher(*[a.data_ptr() if p.kind == "buffer" else a for p, a in zip(params, args)])
        if status != 0:
            raise RuntimeError(f"the CUDA side's launch failed (cudaError {status})")
        return tuple(inputs[positions[name]] for name in outputs)

    return call


# --- Python entries (Triton) ---------------------------------------------------------------------


def python_call(entry: Callable[..., Any], positions: Mapping[str, int], outputs: Sequence[str]) -> Callable[..., Any]:
    """A side call for a Python entry (a Triton wrapper): keyword arguments from the flat input
    tuple (those the entry takes), and the returned tensors plus its output arguments as outputs."""
    accepted = inspect.signature(entry).parameters
    names = [name for name in positions if name in accepted]

    def call(*inputs: Any) -> tuple[Any, ...]:
        returned = entry(**{name: inputs[positions[name]] for name in names})
        return (*_flatten(returned), *(inputs[positions[name]] for name in outputs if name in positions))

    return call


def triton_occupancy(module: Any, limits: SmLimits) -> list[Occupancy]:
    """Occupancy of each kernel the `@triton.jit` functions of `module` compiled and loaded:
    Triton 3.x keeps them in `JITFunction.device_caches[device][0]` (key -> CompiledKernel), with
    `n_regs` from the loaded binary and `metadata.shared` / `metadata.num_warps` from the compiler."""
    from triton.runtime.jit import JITFunction

    out = []
    for value in vars(module).values():
        while not isinstance(value, JITFunction) and hasattr(value, "fn"):  # @autotune, @heuristics
            value = value.fn
        if not isinstance(value, JITFunction):
            continue
        for caches in value.device_caches.values():
            for compiled in caches[0].values():
                registers = getattr(compiled, "n_regs", None)
                metadata = compiled.metadata
                out.append(occupancy(limits, metadata.num_warps * limits.warp_size, registers, metadata.shared,
                                     kernel=f"{value.__name__} ({getattr(metadata, 'name', '?')})",
                                     unknown={} if registers is not None else {"registers": "kernel not loaded"}))
    return out


def import_entry(path: str, entry: str) -> Callable[..., Any]:
    """The entry function of a Python file, imported here; refused when Triton would interpret."""
    from lowercheck.runners.user_code import UserFailure, import_user_file

    if os.environ.get("TRITON_INTERPRET") == "1":
        raise NativeUnavailable("TRITON_INTERPRET=1 is set: Triton would interpret the kernels, not launch them")
    try:
        module = import_user_file(path)
    except UserFailure as failure:
        raise NativeUnavailable(f"importing {path} failed: {failure}") from None
    function = getattr(module, entry, None)
    if function is None:
        raise NativeUnavailable(f"{path}: no function `{entry}`")
    return function


# --- the pair ------------------------------------------------------------------------------------


def params_of(side: Any) -> list[Param]:
    """A `diff.SideInfo`'s entry parameters, with the roles the comparison gave them."""
    return [Param(p.pname, p.kind.data, str(p.element_type), side.roles.get(p.pname, p.role.data))
            for p in side.params()]


def correspondence(source: Any, target: Any) -> dict[str, str]:
    """Target parameter -> source parameter, as `lowercheck diff` binds an untyped side to a typed
    one: the non-size parameters in order (all of them, or the typed side's inputs only), then the
    tensors a Python entry returns to the typed side's outputs. Two typed sides match by position."""
    typed, other = (source, target) if source.language == "cuda" or target.language != "cuda" else (target, source)
    typed_params = [p for p in params_of(typed) if p.role != "size"]
    typed_inputs = [p for p in typed_params if p.role in ("in", "inout", "scalar")]
    other_params = [p for p in params_of(other) if p.role != "size"]
    passed = [p for p in other_params if not _RETURNED.match(p.name)]
    if len(passed) == len(typed_params):
        partners = typed_params
    elif len(passed) == len(typed_inputs):
        partners = typed_inputs
    else:
        raise NativeUnavailable(f"cannot match the parameters of {other.entry} with those of {typed.entry}")
    match = {p.name: q.name for p, q in zip(passed, partners)}
    returned = [p.name for p in other_params if p.name.startswith("return")]
    typed_outputs = [p.name for p in typed_params if p.role in ("out", "inout") and p.name not in match.values()]
    match.update(zip(returned, typed_outputs))
    return match if other is target else {t: s for s, t in match.items()}


def native_pair(report: Any, sizes: Mapping[str, int], seed: int, arch: str, folder: str,
                to_device: Callable[[np.ndarray], Any]) -> NativePair:
    """Native calls for the two sides of a `diff` report at `sizes`, and their input generator.
    `to_device` turns one numpy array into a device tensor (torch.from_numpy(...).cuda())."""
    from lowercheck.arguments import plan_arguments
    from lowercheck.runners.draws import Draw

    sides = {"source": report.source, "target": report.target}
    for name, side in sides.items():
        if side.language not in ("cuda", "triton"):
            raise NativeUnavailable(f"the {name} is {side.language}: only CUDA and Triton sides run natively so far")
    mapping = correspondence(report.source, report.target)
    views = {name: side.at(sizes) for name, side in sides.items()}

    def plan(draw: int) -> dict[str, dict[str, Any]]:
        return plan_arguments(views, mapping, sizes, seed + draw)

    first = plan(0)
    order = [(name, arg) for name in ("source", "target") for arg in first[name]]
    positions = {name: {arg: i for i, (side, arg) in enumerate(order) if side == name} for name in sides}
    draws = iter(range(1, 2**31))

    def make_inputs(values: dict[str, dict[str, Any]] | None = None) -> tuple[Any, ...]:
        values = values or plan(next(draws))
        made = [values[side][arg].make() if isinstance(values[side][arg], Draw) else values[side][arg]
                for side, arg in order]  # the recipes (`runners.draws`), made here: a native run's own process
        return tuple(to_device(value) if isinstance(value, np.ndarray) else value for value in made)

    calls: dict[str, Callable[..., Any]] = {}
    modules: dict[str, Any] = {}
    notes = []
    for name, side in sides.items():
        params = params_of(views[name])
        if side.language == "cuda":
            build = tempfile.mkdtemp(prefix=f"{name}-", dir=folder)
            launcher = compile_cuda(side.path, side.entry, params, arch, build)
            calls[name] = cuda_call(launcher, params, positions[name])
            notes.append(f"{name}: {side.path} compiled by nvcc for {arch}, `{side.entry}` called through ctypes")
        else:
            outputs = [p.name for p in params if p.kind == "buffer" and p.role in ("out", "inout")
                       and not _RETURNED.match(p.name)]
            function = import_entry(side.path, side.entry)
            modules[name] = sys.modules[function.__module__]
            calls[name] = python_call(function, positions[name], outputs)
            notes.append(f"{name}: {side.path} imported, `{side.entry}` launching Triton kernels natively")
    # Both sides compute one function, so both must move at least the larger of their arguments'
    # bytes (a Python entry's returned tensors are not among its arguments).
    moved = max(sum(int(first[name][p.name].nbytes) for p in params_of(views[name])
                    if p.kind == "buffer" and p.name in first[name] and p.role in ("in", "out", "inout"))
                for name in sides)
    return NativePair(calls["source"], calls["target"], make_inputs, {"source": moved, "target": moved}, notes,
                      modules)


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [item for inner in value for item in _flatten(inner)]
    return [] if value is None else [value]


__all__ = ["NativePair", "NativeUnavailable", "Param", "compile_cuda", "correspondence", "cuda_call",
           "import_entry", "native_pair", "python_call", "triton_occupancy", "wrapper_source"]
