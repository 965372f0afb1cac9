"""Trace a Pallas entry with `jax.make_jaxpr` at concrete shapes and find its pallas_calls.

JAX traces shapes as numbers, so the capture needs concrete sizes (`NeedsConcreteSizes` otherwise;
the caller then captures once per swept size). Every array a pallas_call touches is named by what
it is to the entry: a parameter, a returned array (`return0`, ...), or an array passed from one
pallas_call to another (`temp0`, ...). An operand computed by anything else in the entry (a reshape,
a pad) cannot be named: `Unsupported`.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lowercheck.errors import SourceLocation, Unsupported, UserError
from lowercheck.frontends.base import Binding, NeedsConcreteSizes, ScalarArg, SizeArg, TensorArg, ValueArg
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


@dataclass
class Capture:
    calls: list[Call]
    arrays: dict[str, Any]  # entry param -> its ShapeDtypeStruct
    returned: list[Any]  # avals of the entry's returned arrays, in order
    values: dict[str, Any] = field(default_factory=dict)  # entry param -> the value it received
    temps: list[Any] = field(default_factory=list)  # avals of temp0, temp1, ...


def capture(fn: Callable, path: str, binding: Binding) -> Capture:
    """Trace `fn` with arguments from `binding` (concrete sizes) and list its pallas_calls."""
    if binding.sizes is None:
        raise NeedsConcreteSizes("JAX traces a Pallas entry at concrete shapes")
    jax = import_jax()
    values: dict[str, Any] = {}
    arrays: dict[str, Any] = {}
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
            values[pname] = arg.value
        elif param.default is inspect.Parameter.empty:
            raise UserError(f"no binding for parameter `{pname}` of `{fn.__name__}`",
                            hint="bind every parameter: a tensor (shape, dtype), a size or a scalar")
    names = list(arrays)

    def traced(*given):
        return fn(**{**values, **dict(zip(names, given, strict=True))})

    try:
        closed = jax.make_jaxpr(traced)(*arrays.values())
    except Exception as err:  # noqa: BLE001 - the user's code failed while tracing: report where
        raise UserError(f"`{fn.__name__}` raised {type(err).__name__}: {_first_line(err)}", user_line(err, path)) \
            from None
    jaxpr = closed.jaxpr
    env = {var: name for var, name in zip(jaxpr.invars, names, strict=True)}
    returned = {}
    for index, var in enumerate(jaxpr.outvars):
        if hasattr(var, "aval") and not _is_literal(var):
            returned.setdefault(var, f"return{index}")
    result = Capture([], arrays, [v.aval for v in jaxpr.outvars], values)
    _walk(jaxpr, env, returned, result, path)
    for index, var in enumerate(jaxpr.outvars):
        if not str(env.get(var, "")).startswith("return"):
            raise Unsupported(f"`{fn.__name__}` returns an array that no pallas_call computes "
                              f"(return value {index})", SourceLocation(path, fn.__code__.co_firstlineno),
                              hint="return the pallas_call's outputs themselves")
    return result


def _walk(jaxpr, env: dict, returned: dict, result: Capture, path: str) -> None:
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name in _CALLS and _CALLS[name] in eqn.params:
            inner = eqn.params[_CALLS[name]]
            inner = getattr(inner, "jaxpr", inner)
            inner_env = {iv: env[ov] for iv, ov in zip(inner.invars, eqn.invars, strict=True)
                         if not _is_literal(ov) and ov in env}
            inner_returned = {iv: returned[ov] for iv, ov in zip(inner.outvars, eqn.outvars, strict=True)
                              if ov in returned and not _is_literal(iv)}
            _walk(inner, inner_env, inner_returned, result, path)
            for iv, ov in zip(inner.outvars, eqn.outvars, strict=True):
                if not _is_literal(iv) and iv in inner_env:
                    env[ov] = inner_env[iv]
            continue
        if name != "pallas_call":
            continue  # anything feeding a pallas_call or the result is caught below
        where = location(eqn, path)
        operands = []
        for var in eqn.invars:
            if _is_literal(var) or var not in env:
                producer = next((e.primitive.name for e in jaxpr.eqns if var in e.outvars), "a constant")
                raise Unsupported(f"a pallas_call operand is computed in the entry by `{producer}`", where,
                                  hint="pass the entry's arrays to pallas_call directly")
            operands.append(env[var])
        results = []
        for var in eqn.outvars:
            if var in returned:
                env[var] = returned[var]
            else:
                env[var] = f"temp{len(result.temps)}"
                result.temps.append(var.aval)
            results.append(env[var])
        result.calls.append(Call(eqn, operands, results, where))


def location(eqn, path: str) -> SourceLocation | None:
    """The innermost frame of `eqn`'s trace in the user's file (1-based column)."""
    from jax._src import source_info_util  # the one reader of a jaxpr's tracebacks

    real = os.path.realpath(path)
    for frame in source_info_util.user_frames(eqn.source_info.traceback):  # innermost first
        if os.path.realpath(frame.file_name) == real:
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
