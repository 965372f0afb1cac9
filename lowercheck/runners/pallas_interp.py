"""Run a Pallas entry for real on the CPU with JAX's Pallas interpreter (`interpret=True`).

The runner imports the user's file by path (never a front end), calls the entry with JAX arrays made
from the request's arrays, and returns each input array and the returned arrays (`return0`, ...).

- CPU only: `JAX_PLATFORMS=cpu` is set before JAX is first imported, and every `pallas_call` runs
  with `interpret=True` whatever the file asks (a kernel written for a TPU runs here too).
- Outputs: JAX arrays are values, so there is no output buffer to poison before the run. The
  interpreter starts each output from `uninitialized_value` (a plain NaN) and pads partial blocks
  with it; the runner makes that value the poison pattern of `lowercheck.runners.poison`, so an
  output element no program writes still reads as "never written" (LC303), not as a computed NaN.
- Inputs cannot change (JAX arrays are immutable, and input_output_aliases is refused by the front
  end); they are returned as received so the unchanged-input check has something to compare.
- Bounds: the interpreter clamps a block window that lies outside the array (`dynamic_slice`
  semantics) instead of faulting, so out-of-bounds windows are not seen here; the static check
  reports them (LC201).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from lowercheck.spec import constructed
from lowercheck.runners.base import RunRequest, RunResult
from lowercheck.runners.poison import fill
from lowercheck.runners.user_code import UserFailure, describe, import_user_file, pack_tuples


def warm_up() -> None:
    """Import JAX and Pallas now (the fork server calls this); no backend starts here, so the fork
    that runs the kernel is still a single-threaded process."""
    import jax.numpy  # noqa: F401
    from jax.experimental import pallas  # noqa: F401


def run(request: RunRequest) -> RunResult:
    start = time.monotonic()
    result = RunResult()
    for key, value in (request.options.get("env") or {}).items():
        os.environ.setdefault(key, str(value))
    if "jax" in sys.modules and os.environ.get("JAX_PLATFORMS", "cpu") != "cpu":
        result.error, result.error_kind = "JAX was imported before JAX_PLATFORMS=cpu was set", "crash"
        return result
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    try:
        _run(request, result)
    except UserFailure as failure:
        result.error, result.error_kind = str(failure), "user"
    result.wall_s = time.monotonic() - start
    return result


def _run(request: RunRequest, result: RunResult) -> None:
    import jax

    wide = any(isinstance(v, np.ndarray) and v.dtype.itemsize == 8 for v in request.args.values())
    if wide:
        jax.config.update("jax_enable_x64", True)
    values: dict[str, Any] = {}
    arrays: dict[str, np.ndarray] = {}
    for name, value in request.args.items():
        if isinstance(value, np.ndarray):
            arrays[name] = value
            values[name] = jax.numpy.asarray(value)
        elif isinstance(value, np.generic):
            values[name] = value.item()
        else:
            values[name] = value
    pack_tuples(values, request.options.get("tuples"))
    with _interpreted(), _poisoned_outputs():
        module = import_user_file(request.path, first_line=True)
        entry = getattr(module, request.entry, None)
        if entry is None:
            raise UserFailure(f"{request.path}: no function `{request.entry}`")
        params = inspect.signature(entry).parameters
        values = {k: constructed(v, entry) for k, v in values.items()}  # the spec's `construct`
        try:
            returned = entry(**{k: v for k, v in values.items() if k in params})
            returned = jax.block_until_ready(returned)
        except Exception as err:  # noqa: BLE001 - the user's code failed: report where
            raise UserFailure(describe(err, request.path, first_line=True)) from None
    for name, array in arrays.items():
        result.outputs[name] = array.copy()
    for index, value in enumerate(_flatten(returned)):
        result.outputs[f"return{index}"] = np.asarray(value).copy()


@contextlib.contextmanager
def _interpreted() -> Iterator[None]:
    """Every `pallas_call` (also one the file imported by name, since the file is imported inside)
    runs in the interpreter."""
    from jax.experimental import pallas

    real = pallas.pallas_call

    @functools.wraps(real)
    def interpreted(*args, **kwargs):
        kwargs["interpret"] = True
        return real(*args, **kwargs)

    pallas.pallas_call = interpreted
    try:
        yield
    finally:
        pallas.pallas_call = real


@contextlib.contextmanager
def _poisoned_outputs() -> Iterator[None]:
    """The interpreter's uninitialised value (initial outputs, padding) becomes the poison pattern."""
    import jax.numpy as jnp
    from jax._src.pallas import primitives  # the interpreter reads it from here, at call time

    real = primitives.uninitialized_value

    def poisoned(shape, dtype):
        if not (jnp.issubdtype(dtype, jnp.floating) or jnp.issubdtype(dtype, jnp.integer)):
            return real(shape, dtype)
        return jnp.asarray(fill(np.empty(shape, dtype=dtype)))

    primitives.uninitialized_value = poisoned
    try:
        yield
    finally:
        primitives.uninitialized_value = real


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flatten(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _flatten(v)]
    return [] if value is None else [value]

