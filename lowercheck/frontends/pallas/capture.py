"""Trace a Pallas entry with `jax.make_jaxpr` at concrete shapes and find its pallas_calls.

JAX traces shapes as numbers, so the capture needs concrete sizes (`NeedsConcreteSizes` otherwise;
the caller then captures once per swept size). Every array a pallas_call touches is named by what
it is to the entry: a parameter, a returned array (`return0`, ...), or an array passed from one
pallas_call to another (`temp0`, ...). A reshape of a named array (`reshape`, `squeeze`, a
`broadcast_in_dim` that only adds unit dimensions) keeps its row-major layout, so it is the same
buffer under another shape and keeps the name, in both directions (an operand reshaped from a
parameter, a pallas_call result reshaped into the returned array). A broadcast of a named array
(`jnp.broadcast_to(m[..., None], (..., 128))`) is that buffer read with stride 0 along the repeated
dimensions (`Call.strides`). An operand computed by anything else in the entry (a pad, arithmetic)
cannot be named: `Unsupported`. A returned array that is one
of the entry's own parameters (residuals handed back unchanged), or that the entry computes itself
in plain JAX from the kernels' outputs (a split-K epilogue summing partial results), is no output of
the kernels: it gets no buffer, and the kernels' outputs it reads are temporaries (`temp0`, ...).
"""

from __future__ import annotations

import inspect
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lowercheck.spec import constructed
from lowercheck.errors import SourceLocation, Unsupported, UserCodeRaised, UserError
from lowercheck.frontends.base import Binding, NeedsConcreteSizes, ScalarArg, SizeArg, TensorArg, TupleArg, ValueArg, definition
from lowercheck.frontends.pallas.source import user_line

# Calls whose inner jaxpr is inlined (jax.jit inside the entry, custom derivatives).
_CALLS = {"jit": "jaxpr", "pjit": "jaxpr", "closed_call": "call_jaxpr", "core_call": "call_jaxpr",
          "custom_jvp_call": "call_jaxpr", "custom_vjp_call": "call_jaxpr", "remat": "jaxpr",
          "checkpoint": "jaxpr"}


def import_jax():
    """JAX on the CPU: tracing needs no accelerator, and probing for one is slow."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax

    return jax


@dataclass
class Call:
    """One pallas_call: its equation and the buffer name of each operand and result."""

    eqn: Any
    operands: list[str]
    results: list[str]
    location: SourceLocation | None
    # Per operand, its element strides into the named buffer where they are not row-major over the
    # operand's shape (a broadcast in the entry: stride 0 along the repeated dimensions), else None.
    strides: list[tuple[int, ...] | None] = field(default_factory=list)


@dataclass
class Capture:
    calls: list[Call]
    arrays: dict[str, Any]  # entry param -> its ShapeDtypeStruct
    returned: dict[str, Any]  # `returnN` -> its aval, for the returned arrays the pallas_calls compute
    values: dict[str, Any] = field(default_factory=dict)  # entry param -> the value it received
    temps: list[Any] = field(default_factory=list)  # avals of temp0, temp1, ...


def capture(fn: Callable, path: str, binding: Binding) -> Capture:
    """Trace `fn` with arguments from `binding` (concrete sizes) and list its pallas_calls."""
    if binding.sizes is None:
        raise NeedsConcreteSizes("JAX traces a Pallas entry at concrete shapes")
    jax = import_jax()
    values: dict[str, Any] = {}
    arrays: dict[str, Any] = {}
    tuples: dict[str, list[str | None]] = {}  # a tuple parameter -> its items' array names (None: a value)
    wide = any(isinstance(a, TensorArg) and a.dtype in ("float64", "int64") for a in binding.args.values())
    if wide:
        jax.config.update("jax_enable_x64", True)
    for pname, param in inspect.signature(fn).parameters.items():
        arg = binding.args.get(pname)
        if isinstance(arg, TensorArg):
            shape = tuple(_size(d, binding) for d in arg.shape)
            arrays[pname] = values[pname] = jax.ShapeDtypeStruct(shape, _dtype(arg.dtype))
        elif isinstance(arg, SizeArg):
            values[pname] = _size(arg.size, binding)
        elif isinstance(arg, ScalarArg):
            values[pname] = int(binding.sizes.get(pname, arg.value)) if arg.dtype.startswith(("int", "uint")) \
                else bool(arg.value) if arg.dtype == "bool" else float(arg.value)
        elif isinstance(arg, ValueArg):
            values[pname] = constructed(arg.value, fn)
        elif isinstance(arg, TupleArg):  # its arrays are parameters of their own: `res_0`, `res_1`, ...
            tuples[pname] = arg.item_names(pname)
            for item, name in zip(arg.items, tuples[pname], strict=True):
                if name is None:
                    continue
                assert isinstance(item, TensorArg)
                arrays[name] = jax.ShapeDtypeStruct(tuple(_size(d, binding) for d in item.shape), _dtype(item.dtype))
            values[pname] = tuple(constructed(item.value, fn) if isinstance(item, ValueArg) else None for item in arg.items)
        elif param.default is inspect.Parameter.empty:
            raise UserError(f"no binding for parameter `{pname}` of `{fn.__name__}`", definition(fn),
                            hint="bind every parameter: a tensor (shape, dtype), a size or a scalar")
    names = list(arrays)
    items = {n for found in tuples.values() for n in found if n is not None}

    def traced(*given):
        named = dict(zip(names, given, strict=True))
        packed = {p: tuple(named[n] if n is not None else v for n, v in zip(found, values[p], strict=True))
                  for p, found in tuples.items()}
        return fn(**{**values, **{n: a for n, a in named.items() if n not in items}, **packed})

    try:
        closed = jax.make_jaxpr(traced)(*arrays.values())
    except Exception as err:  # noqa: BLE001 - the user's code failed while tracing: report where
        raise UserCodeRaised(f"`{fn.__name__}` raised {type(err).__name__}: {_first_line(err)}", user_line(err, path)) \
            from None
    jaxpr = closed.jaxpr
    env = {var: name for var, name in zip(jaxpr.invars, names, strict=True)}
    returned = {}
    for index, var in enumerate(jaxpr.outvars):
        if hasattr(var, "aval") and not _is_literal(var) and var not in env:
            returned.setdefault(var, f"return{index}")
    result = Capture([], arrays, {}, values)
    strides: dict = {}
    _walk(jaxpr, env, strides, returned, result, path)
    computed = set(returned.values())
    for var in jaxpr.outvars:
        name = env.get(var)
        if name in computed and var not in strides:  # else a parameter handed back, or an epilogue
            result.returned.setdefault(name, var.aval)
    return result


def _walk(jaxpr, env: dict, strides: dict, returned: dict, result: Capture, path: str) -> None:
    """Name the arrays of `jaxpr` (`env`: var -> buffer name; `strides`: var -> its strides into that
    buffer, for the broadcast ones) and record its pallas_calls."""
    for eqn in reversed(jaxpr.eqns):  # a returned reshape's operand is the returned buffer
        if _is_relayout(eqn) and eqn.outvars[0] in returned and not _is_literal(eqn.invars[0]):
            returned.setdefault(eqn.invars[0], returned[eqn.outvars[0]])
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        source = eqn.invars[0] if eqn.invars and not _is_literal(eqn.invars[0]) else None
        if _is_relayout(eqn):
            if source in env and source not in strides:  # a broadcast view reshaped is no view
                env[eqn.outvars[0]] = env[source]
            continue
        if name == "broadcast_in_dim" and source in env:
            env[eqn.outvars[0]] = env[source]
            strides[eqn.outvars[0]] = _broadcast_strides(eqn, strides.get(source))
            continue
        if name in _CALLS and _CALLS[name] in eqn.params:
            inner = eqn.params[_CALLS[name]]
            inner = getattr(inner, "jaxpr", inner)
            pairs = [(iv, ov) for iv, ov in zip(inner.invars, eqn.invars, strict=True) if not _is_literal(ov)]
            inner_env = {iv: env[ov] for iv, ov in pairs if ov in env}
            inner_strides = {iv: strides[ov] for iv, ov in pairs if ov in strides}
            inner_returned = {iv: returned[ov] for iv, ov in zip(inner.outvars, eqn.outvars, strict=True)
                              if ov in returned and not _is_literal(iv)}
            _walk(inner, inner_env, inner_strides, inner_returned, result, path)
            for iv, ov in zip(inner.outvars, eqn.outvars, strict=True):
                if not _is_literal(iv) and iv in inner_env:
                    env[ov] = inner_env[iv]
                    if iv in inner_strides:
                        strides[ov] = inner_strides[iv]
            continue
        if _launches_on_mesh(eqn):
            raise Unsupported("a kernel launched on a mesh (`pl.kernel`, `plgpu.kernel`, `pl.core_map`: "
                              "Mosaic GPU's or the TPU's kernel language, whole refs with explicit copies "
                              "and barriers), which lowercheck does not model", location(eqn, path),
                              hint="lowercheck models kernels launched with pl.pallas_call and BlockSpecs")
        if name != "pallas_call":
            continue  # anything feeding a pallas_call or the result is caught below
        where = location(eqn, path)
        operands = []
        for var in eqn.invars:
            if _is_literal(var):
                raise Unsupported("a pallas_call operand is a constant of the entry", where,
                                  hint="pass the entry's arrays to pallas_call")
            if var not in env:  # computed by the entry (a sum, a transpose): an array of its own
                env[var] = f"temp{len(result.temps)}"
                result.temps.append(var.aval)
            operands.append(env[var])
        results = []
        for var in eqn.outvars:
            if var in returned:
                env[var] = returned[var]
            else:
                env[var] = f"temp{len(result.temps)}"
                result.temps.append(var.aval)
            results.append(env[var])
        result.calls.append(Call(eqn, operands, results, where, [strides.get(var) for var in eqn.invars]))


def _broadcast_strides(eqn, source_strides: tuple[int, ...] | None) -> tuple[int, ...]:
    """The strides of a `broadcast_in_dim`'s result into its operand's buffer: the operand's along
    the dimensions it keeps, 0 along the repeated ones."""
    source_shape = tuple(eqn.invars[0].aval.shape)
    shape = tuple(eqn.outvars[0].aval.shape)
    source_strides = source_strides or row_major(source_shape)
    out = [0] * len(shape)
    for source_axis, axis in enumerate(eqn.params["broadcast_dimensions"]):
        if source_shape[source_axis] == shape[axis]:
            out[axis] = source_strides[source_axis]
    return tuple(out)


def row_major(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Element strides of a row-major array of `shape`."""
    return tuple(math.prod(shape[axis + 1:]) for axis in range(len(shape)))


# What `plgpu.kernel`, `pl.kernel` and `pl.core_map` trace to (a kernel launched on a mesh).
_MESH_PRIMITIVES = ("core_map", "mpmd_map")


def _launches_on_mesh(eqn) -> bool:
    """Whether `eqn` is, or holds in a sub-jaxpr (`run_state`, a loop), a kernel launched on a mesh,
    even one a helper of another module launches."""
    if eqn.primitive.name in _MESH_PRIMITIVES:
        return True
    if eqn.primitive.name == "pallas_call":
        return False
    for value in eqn.params.values():
        for inner in value if isinstance(value, (tuple, list)) else (value,):
            inner = getattr(inner, "jaxpr", inner)
            if hasattr(inner, "eqns") and any(_launches_on_mesh(e) for e in inner.eqns):
                return True
    return False


def _is_relayout(eqn) -> bool:
    """A reshape that keeps the row-major order of the elements: the same buffer, another shape."""
    name = eqn.primitive.name
    if name == "reshape":
        return eqn.params.get("dimensions") is None
    if name == "squeeze":
        return True
    if name == "broadcast_in_dim":  # x[None] / expand_dims: unit dimensions added, nothing repeated
        operand, out = eqn.invars[0], eqn.outvars[0]
        return not _is_literal(operand) and math.prod(operand.aval.shape) == math.prod(out.aval.shape) \
            and list(eqn.params["broadcast_dimensions"]) == sorted(eqn.params["broadcast_dimensions"])
    return False


def location(eqn, path: str) -> SourceLocation | None:
    """The innermost frame of `eqn`'s trace in the user's file (1-based column). Every frame is
    looked at, not only those JAX calls the user's: a file inside jax's own package (its Pallas ops)
    is the user's file here."""
    from jax._src import source_info_util  # the one reader of a jaxpr's tracebacks

    traceback = eqn.source_info.traceback
    if traceback is None:
        return None
    real = os.path.realpath(path)
    code, lasti = traceback.raw_frames()
    for index in range(len(code)):  # innermost first
        if os.path.realpath(code[index].co_filename) == real:
            frame = source_info_util.raw_frame_to_frame(code[index], lasti[index])
            return SourceLocation(path, frame.start_line, frame.start_column + 1 if frame.start_column >= 0 else 0)
    return None


def _is_literal(var) -> bool:
    return type(var).__name__ == "Literal"


def _size(dim: str | int, binding: Binding) -> int:
    if isinstance(dim, int) or str(dim).lstrip("-").isdigit():
        return int(dim)
    if dim not in binding.sizes:
        raise UserError(f"no value for size `{dim}`", hint="give every size a value")
    return int(binding.sizes[dim])


def _dtype(name: str):
    import jax.numpy as jnp

    dtype = getattr(jnp, name, None)
    if dtype is None:
        raise UserError(f"unknown dtype `{name}`", hint="use a dtype name: float32, float16, int32, ...")
    return dtype


def _first_line(err: BaseException) -> str:
    return (str(err).strip().splitlines() or [""])[0]
