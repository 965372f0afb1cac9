"""Run a solution module (KernelBench's `ModelNew`) end to end on the CPU, as its author wrote it.

The solution is a program: its `forward` mixes torch operations with kernel launches, through
helpers, in any order, with weights held by the module. The runner runs that program itself, with
each kind of kernel on lowercheck's engine for it:

- torch operations eagerly, on the CPU;
- each Triton launch in Triton's interpreter, instrumented as the Triton runner instruments it
  (`triton_interp.instrumented`: allocations poisoned, every access bounds-checked);
- each call of a `load_inline` extension on lowercheck's CUDA emulator (`cuda_extension`): the C++
  host function lowered at the call's shapes, its ATen calls run by torch, its launches emulated.

The module is built as KernelBench builds it (`runners/kernelbench.py`): the problem's
`get_init_inputs()`, the same seed before the reference's construction and the solution's, and
the solution's state aligned with the reference's (said in the result's facts, `state`). Options:
`problem` (the problem file: its `Model` and `get_init_inputs`), `params` (forward's parameters, in
call order), `engines` (what the solution's file uses: "triton", "cuda"). Outputs: each input
tensor's final value (to check it is unchanged) and the returned tensors (`return0`, ...).
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import Any

import numpy as np

from lowercheck.runners import kernelbench
from lowercheck.runners.base import RunRequest, RunResult
from lowercheck.runners.torch_arrays import to_numpy, to_torch
from lowercheck.runners.user_code import UserFailure, describe, import_user_file

STATE = "state"  # the facts key of the state alignment (`kernelbench.Alignment.to_facts`)


def warm_up() -> None:
    """Import torch now, and Triton when the fork server's environment asks for its interpreter."""
    import torch  # noqa: F401

    if os.environ.get("TRITON_INTERPRET") == "1":
        from lowercheck.runners import triton_interp

        triton_interp.warm_up()


def run(request: RunRequest) -> RunResult:
    start = time.monotonic()
    result = RunResult()
    engines = set(request.options.get("engines") or ())
    if "triton" in engines:
        from lowercheck.runners import triton_interp

        problem = triton_interp.interpreter_ready(request)
        if problem:
            result.error, result.error_kind = problem, "crash"
            return result
    try:
        _run(request, result, engines)
    except UserFailure as failure:
        result.error, result.error_kind = str(failure), "user"
    except _EngineLimit as limit:
        result.error, result.error_kind = str(limit), "runner"
    result.wall_s = time.monotonic() - start
    return result


class _EngineLimit(Exception):
    """An engine of lowercheck's could not run what the solution's own compiler accepts."""


def _run(request: RunRequest, result: RunResult, engines: set[str]) -> None:
    import torch

    torch.set_num_threads(1)
    problem_path = request.options["problem"]
    problem = import_user_file(problem_path)
    init = kernelbench.init_inputs(problem, problem_path)
    reference_class = getattr(problem, "Model", None)
    reference = (kernelbench.construct(reference_class, init, problem_path, "the reference's `Model`")
                 if reference_class is not None else None)
    with _engines(engines, request.path) as instruments:
        solution = import_user_file(request.path)  # after the engines: its load_inline is lowercheck's
        cls = getattr(solution, request.entry, None)
        if cls is None:
            raise UserFailure(f"{request.path}: no class `{request.entry}`")
        model = kernelbench.construct(cls, init, request.path, f"the solution's `{request.entry}`")
        if reference is not None:
            result.facts[STATE] = kernelbench.align_state(model, reference).to_facts()
            del reference
        tensors: dict[str, Any] = {}
        values = []
        for name in request.options.get("params") or list(request.args):
            value = request.args[name]
            if isinstance(value, np.ndarray):
                tensors[name] = to_torch(value)
                values.append(tensors[name])
            else:
                values.append(value.item() if isinstance(value, np.generic) else value)
        try:
            with torch.no_grad():
                returned = model(*values)
        except Exception as err:  # noqa: BLE001 - the solution failed: say where
            instruments.raise_limit(err)
            raise UserFailure(describe(err, request.path)) from None
        names = instruments.names(tensors, model)
        returned_tensors = [t for t in _flatten(returned) if isinstance(t, torch.Tensor)]
        for index, tensor in enumerate(returned_tensors):
            names.setdefault(tensor.untyped_storage().data_ptr(), f"return{index}")
        result.oob = instruments.out_of_bounds(names)
        result.events = instruments.events()
    for name, tensor in tensors.items():
        result.outputs[name] = to_numpy(tensor)
    for index, tensor in enumerate(returned_tensors):
        result.outputs[f"return{index}"] = to_numpy(tensor)


class _Instruments:
    """What the engines saw while the forward ran: out-of-bounds accesses and other events."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.triton = None  # triton_interp.Bounds while Triton's interpreter is installed
        self.cuda = None  # cuda_extension.Extensions while the load_inline stand-in is installed

    def names(self, tensors: dict[str, Any], model: Any) -> dict[int, str]:
        """Storage address -> the name a report gives it: the inputs, then the module's state."""
        import torch

        names = {t.untyped_storage().data_ptr(): name for name, t in tensors.items()}
        if isinstance(model, torch.nn.Module):
            for name, value in model.state_dict(keep_vars=True).items():
                if isinstance(value, torch.Tensor):
                    names.setdefault(value.untyped_storage().data_ptr(), f"self.{name}")
        return names

    def out_of_bounds(self, names: dict[int, str]) -> list:
        found = []
        if self.triton is not None:
            found += self.triton.events(names)
        if self.cuda is not None:
            found += self.cuda.out_of_bounds(names)
        return found

    def events(self) -> list:
        return self.cuda.events() if self.cuda is not None else []

    def raise_limit(self, err: BaseException) -> None:
        """Raise `_EngineLimit` when `err` is an engine's gap, not the solution's fault."""
        if self.triton is not None:
            from lowercheck.runners import triton_interp

            if triton_interp.inside_interpreted_kernel(err):
                raise _EngineLimit("Triton's CPU interpreter could not run a kernel that Triton's compiler "
                                   f"accepts: {describe(err, self.path)}") from None
        if self.cuda is not None:
            limit = self.cuda.limit_of(err)
            if limit is not None:
                raise _EngineLimit(limit) from None


@contextlib.contextmanager
def _engines(engines: set[str], path: str):
    instruments = _Instruments(path)
    with contextlib.ExitStack() as stack:
        from lowercheck.runners import triton_interp

        stack.enter_context(triton_interp.poisoned_allocations())
        if "triton" in engines:
            instruments.triton = stack.enter_context(triton_interp.instrumented(path))
        if "cuda" in engines:
            from lowercheck.runners import cuda_extension

            instruments.cuda = stack.enter_context(cuda_extension.installed(path))
        yield instruments


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flatten(v)]
    return [] if value is None else [value]
