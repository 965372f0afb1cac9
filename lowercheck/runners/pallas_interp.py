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
  reports them (LC201). A TPU kernel (`is_tpu_kernel`: Mosaic TPU compiler params, or scalars
  prefetched for its index maps) runs in JAX's TPU interpret mode instead, which simulates the
  TPU's memories, DMAs and semaphores and raises on any access outside a buffer: that run stops
  there, with the access as an out-of-bounds event (LC201) and the run failed (LC902). So for TPU
  kernels the runs do check bounds, and the static checks leave data-dependent accesses to them
  (`access.indirect`, as for CUDA and Triton).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import re
import sys
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from lowercheck.spec import constructed
from lowercheck.runners.base import OutOfBounds, RunRequest, RunResult
from lowercheck.runners.poison import fill
from lowercheck.runners.user_code import UserFailure, describe, import_user_file, pack_tuples


def is_tpu_kernel(compiler_params: Any, scalar_prefetch: int) -> bool:
    """Whether a pallas_call is a TPU kernel: its compiler params are Mosaic TPU's
    (`pltpu.CompilerParams`, or a dict of them under "mosaic"/"mosaic_tpu"), or its grid spec
    prefetches scalars (`pltpu.PrefetchScalarGridSpec`, which only Mosaic TPU has). The front end
    asks the same of the pallas_call it lowers, so that both agree on how its runs check bounds."""
    from jax._src.pallas.mosaic.core import CompilerParams

    if scalar_prefetch:
        return True
    values = compiler_params.items() if isinstance(compiler_params, dict) else [(None, compiler_params)]
    return any(isinstance(value, CompilerParams) or key in ("mosaic", "mosaic_tpu") for key, value in values)


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
            outside = _out_of_bounds(err, arrays)
            if outside is not None:
                result.oob.append(outside)
                result.oob_total = 1
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
        prefetch = getattr(kwargs.get("grid_spec"), "num_scalar_prefetch", 0) or 0
        if is_tpu_kernel(kwargs.get("compiler_params"), prefetch):
            from jax.experimental.pallas import tpu as pltpu

            kwargs["interpret"] = pltpu.InterpretParams(out_of_bounds_reads="raise")
        else:
            kwargs["interpret"] = True
        return real(*args, **kwargs)

    pallas.pallas_call = interpreted
    try:
        yield
    finally:
        pallas.pallas_call = real


# TPU interpret mode's messages: `Out-of-bounds read of (0 0 hbm 101): reading [(0, 40, slice(0, 16,
# 1))] but buffer has shape (2, 32, 16)`, `Out-of-bounds block index (3,) for input "x" ...`.
_OUTSIDE = re.compile(r"Out-of-bounds (?:masked )?(read|write|swap|block index).*?"
                      r"(?:for (?:input|output) \"(?P<name>[^\"]*)\".*?)?"
                      r"(?:reading|writing|swapping) \[(?P<range>.*?)\] but (?:buffer|input|output) has shape "
                      r"\((?P<shape>[^)]*)\)", re.S)


def _out_of_bounds(err: BaseException, arrays: dict[str, np.ndarray]) -> OutOfBounds | None:
    """The access TPU interpret mode stopped at, as an out-of-bounds event: its buffer (the entry's
    one array of that shape, else the kernel's name for it, else the shape), the flat index of the
    first element it names, the buffer's extent."""
    found = _OUTSIDE.search(str(err))
    if found is None:
        return None
    kind = "write" if found.group(1) in ("write", "swap") else "read"
    shape = tuple(int(d) for d in found.group("shape").replace(" ", "").split(",") if d)
    starts = [int(m.group(1) if m.group(1) is not None else m.group(2))
              for m in re.finditer(r"slice\((-?\d+)[^)]*\)|(-?\d+)", found.group("range"))]
    starts = starts[:len(shape)] if len(starts) >= len(shape) else [0] * len(shape)
    index = 0
    for start, extent in zip(starts, shape):
        index = index * extent + start
    named = [name for name, array in arrays.items() if array.shape == shape]
    buffer = named[0] if len(named) == 1 else found.group("name") or f"an array of shape {list(shape)}"
    return OutOfBounds(buffer, kind, index, int(np.prod(shape)) if shape else 1, {})


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

    from jax._src.pallas.mosaic.interpret import utils as tpu_interpret  # TPU interpret mode's outputs

    real_array = tpu_interpret.get_uninitialized_array

    def poisoned_array(shape, dtype, uninitialized_memory):
        if not (jnp.issubdtype(dtype, jnp.floating) or jnp.issubdtype(dtype, jnp.integer)):
            return real_array(shape, dtype, uninitialized_memory)
        return jnp.asarray(fill(np.empty(shape, dtype=dtype)))

    primitives.uninitialized_value = poisoned
    tpu_interpret.get_uninitialized_array = poisoned_array
    try:
        yield
    finally:
        primitives.uninitialized_value = real
        tpu_interpret.get_uninitialized_array = real_array


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flatten(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _flatten(v)]
    return [] if value is None else [value]

