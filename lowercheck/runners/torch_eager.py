"""Run a PyTorch reference eagerly on the CPU, in its own dtypes or, as the oracle, in float64.

The runner imports the user's file by path (never a front end), builds the entry (`Model(*get_init_inputs())` after
`torch.manual_seed(0)`, as KernelBench does, or the function), calls it with tensors made from the
request's arrays in the order `options["params"]` gives, and returns each input tensor (to check it is unchanged) and the returned
tensors (`return0`, ...).

`options["shadow_f64"]`: the oracle run. Floating inputs, the module's parameters and buffers
are float64, and so is every returned tensor; everything else is the same call.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from lowercheck.runners.base import RunRequest, RunResult
from lowercheck.runners.torch_arrays import to_numpy, to_torch
from lowercheck.runners.user_code import UserFailure, describe, import_user_file

_ORACLE_DTYPES = ("float8_e4m3fn", "float8_e5m2", "float16", "bfloat16", "float32")


def warm_up() -> None:
    """Import torch now (the fork server calls this)."""
    import torch  # noqa: F401


def run(request: RunRequest) -> RunResult:
    start = time.monotonic()
    result = RunResult()
    try:
        _run(request, result)
    except UserFailure as failure:
        result.error, result.error_kind = str(failure), "user"
    result.wall_s = time.monotonic() - start
    return result


def _run(request: RunRequest, result: RunResult) -> None:
    import torch

    oracle = bool(request.options.get("shadow_f64"))
    params = list(request.options.get("params") or request.args)  # the entry's, in call order
    torch.set_num_threads(1)
    module = import_user_file(request.path)
    fn = getattr(module, request.entry, None)
    if fn is None:
        raise UserFailure(f"{request.path}: no entry `{request.entry}`")
    try:
        if isinstance(fn, type):  # a KernelBench Model class
            init = getattr(module, "get_init_inputs", None)
            args = list(init()) if callable(init) else []
            torch.manual_seed(0)
            fn = fn(*args).eval()
            if oracle:
                fn = fn.double()
    except Exception as err:  # noqa: BLE001 - the user's constructor failed
        raise UserFailure(describe(err, request.path)) from None
    tensors: dict[str, Any] = {}
    values = []
    for name in params:
        if name not in request.args:
            raise UserFailure(f"{request.path}: no value for the parameter `{name}` of `{request.entry}`")
        value = request.args[name]
        if isinstance(value, np.ndarray):
            tensor = to_torch(value)
            if oracle and str(tensor.dtype).removeprefix("torch.") in _ORACLE_DTYPES:
                tensor = tensor.double()
            tensors[name] = tensor
            values.append(tensor)
        elif isinstance(value, np.generic):
            values.append(value.item())
        else:
            values.append(value)
    try:
        with torch.no_grad():
            fixed = {k: request.args[k] for k in request.options.get("fixed", ())}
            # with values the spec fixes, every argument goes by name (a fixed one may come first)
            returned = fn(**{**dict(zip(params, values, strict=True)), **fixed}) if fixed else fn(*values)
    except Exception as err:  # noqa: BLE001 - the user's reference failed: report where
        raise UserFailure(describe(err, request.path)) from None
    for name, tensor in tensors.items():
        result.outputs[name] = to_numpy(tensor)
    for index, value in enumerate(_flatten(returned)):
        if isinstance(value, torch.Tensor):
            result.outputs[f"return{index}"] = to_numpy(value.double() if oracle and value.is_floating_point()
                                                        else value)


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flatten(v)]
    return [] if value is None else [value]
