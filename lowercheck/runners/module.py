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
INTEGRITY = "integrity"  # the facts key of the integrity probe (`integrity_probe`), option `integrity`


def warm_up() -> None:
    """Import torch now, and Triton when the fork server's environment asks for its interpreter."""
    import torch  # noqa: F401 - imported for its import's time

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
        (_integrity if request.options.get("integrity") else _run)(request, result, engines)
    except UserFailure as failure:
        result.error, result.error_kind = str(failure), "user"
    except _EngineLimit as limit:
        result.error, result.error_kind = str(limit), "runner"
    result.wall_s = time.monotonic() - start
    return result


class _EngineLimit(Exception):
    """An engine of lowercheck's could not run what the solution's own compiler accepts."""


def _reference(request: RunRequest) -> tuple[list[Any], Any]:
    """The problem's init inputs and its `Model` built from them after the seed (None without one)."""
    problem_path = request.options["problem"]
    problem = import_user_file(problem_path)
    init = kernelbench.init_inputs(problem, problem_path)
    reference_class = getattr(problem, "Model", None)
    reference = (kernelbench.construct(reference_class, init, problem_path, "the reference's `Model`")
                 if reference_class is not None else None)
    return init, reference


def _run(request: RunRequest, result: RunResult, engines: set[str]) -> None:
    import torch

    torch.set_num_threads(1)
    init, reference = _reference(request)
    with _engines(engines, request) as instruments:
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


def _call(model: Any, inputs: list[Any], seed: int) -> list[Any]:
    """One call of the solution's forward on fresh copies of `inputs`, its randomness seeded."""
    import torch

    torch.manual_seed(seed)
    with torch.no_grad():
        returned = model(*[v.clone() if isinstance(v, torch.Tensor) else v for v in inputs])
    return _flatten(returned)


def _integrity(request: RunRequest, result: RunResult, engines: set[str]) -> None:
    """The integrity probe (`runners/integrity_probe.py`): the solution called the ways harnesses
    call it, its behaviour as facts (`INTEGRITY`)."""
    import torch

    from lowercheck.runners import draws, integrity_probe as probe
    from lowercheck import cuda_on_cpu

    torch.set_num_threads(1)
    init, reference = _reference(request)
    params = request.options.get("params") or list(request.args)
    alternate, _ = draws.made(request.options.get("alternate") or {})

    def values(args: dict[str, Any]) -> list[Any]:
        return [to_torch(args[n]) if isinstance(args[n], np.ndarray) else
                (args[n].item() if isinstance(args[n], np.generic) else args[n]) for n in params]

    facts: dict[str, Any] = {}
    with _engines(engines, request) as instruments:
        cuda_on_cpu.install()  # lowercheck's own stand-in, before the snapshot: the solution's import would install it
        before = probe.Globals(reference)
        threads = probe.threads_now()
        streams = dict(cuda_on_cpu.SIDE_STREAMS)
        reads: list[str] = []  # environment variables its own code reads (its folder's files)
        folder = os.path.dirname(os.path.abspath(request.path)) + os.sep
        own = lambda file: os.path.abspath(file).startswith(folder) and "site-packages" not in file  # noqa: E731
        with probe.environment_reads(reads, own):
            solution = import_user_file(request.path)
        cls = getattr(solution, request.entry, None)
        if cls is None:
            raise UserFailure(f"{request.path}: no class `{request.entry}`")
        model = kernelbench.construct(cls, init, request.path, f"the solution's `{request.entry}`")
        if reference is not None:
            kernelbench.align_state(model, reference)
        inputs, other = values(request.args), values(alternate) if alternate else None
        ops: list[tuple[str, tuple[str, ...]]] = []
        try:
            with probe.torch_ops(ops, lambda: not instruments.inside), probe.environment_reads(reads, own):
                first = _call(model, inputs, request.seed)
            facts["launches"] = instruments.launched()[:64]
            host = [(step, ()) for step in (instruments.cuda.steps if instruments.cuda is not None else [])]
            facts["torch_ops"] = probe.compute_ops(ops + host)
            reference_bits = probe.bits(first)
            kept = probe.kept(first)
            facts["lazy"] = sorted({type(t).__name__ for t in first if isinstance(t, torch.Tensor)
                                    and type(t) is not torch.Tensor})
            # Only the first call where the verdict is already settled (option "first-call"): what
            # ran (kernels, torch's operators and their precision), not how it behaves over calls.
            if request.options.get("integrity") != "first-call":
                for call in range(2, probe.CALLS + 1):
                    if not probe.agree(_call(model, inputs, request.seed), kept):
                        facts["calls"] = call
                        break
                for caller in probe.CALLERS:
                    if not probe.agree(caller(lambda: _call(model, inputs, request.seed)), kept):
                        facts["caller"] = caller.__name__
                        break
                for name in reads[:8]:
                    with probe.toggled(name) as how:
                        if not probe.agree(_call(model, inputs, request.seed), kept):
                            facts["environment"] = how
                            break
                if other is not None:  # an input changed in place, same storage: the output must follow it
                    held = [v.clone() if isinstance(v, torch.Tensor) else v for v in inputs]
                    torch.manual_seed(request.seed)
                    with torch.no_grad():
                        before_change = probe.kept(_flatten(model(*held)))
                        for mine, new in zip(held, other):
                            if isinstance(mine, torch.Tensor) and isinstance(new, torch.Tensor) \
                                    and mine.shape == new.shape:
                                mine.copy_(new)
                        changed = [v.clone() if isinstance(v, torch.Tensor) else v for v in held]
                        torch.manual_seed(request.seed)
                        after_change = probe.kept(_flatten(model(*held)))
                    fresh = _call(model, changed, request.seed)
                    # the reference says whether the change matters: then the output must move, and as a call
                    # on fresh copies of the new values moves (a cache keyed on pointers, whole or in part,
                    # or on shapes replays)
                    moved = reference is None or not probe.agree(_call(reference, inputs, request.seed),
                                                                 _call(reference, changed, request.seed))
                    facts["stale"] = moved and (probe.agree(after_change, before_change)
                                                or not probe.agree(after_change, fresh))
                # after calls on other inputs, and once the threads it started have ended (for a while at
                # most): a returned tensor that a later call or a late worker wrote into has changed
                facts["threads"] = len(probe.threads_now() - threads)
                probe.join_threads(threads, probe.THREAD_WAIT_S)
                facts["deferred"] = not probe.agree(first, kept)
                if facts["launches"]:
                    launched = len(instruments.launched())
                    with instruments.skipping():
                        skipped = probe.bits(_call(model, inputs, request.seed))
                    # a call that launched nothing (a replayed result) says nothing about the kernels
                    facts["ghost"] = len(instruments.launched()) > launched and skipped == reference_bits
            else:
                facts["threads"] = len(probe.threads_now() - threads)
        except Exception as err:  # noqa: BLE001 - the solution failed: say where
            instruments.raise_limit(err)
            raise UserFailure(describe(err, request.path)) from None
        facts["streams"] = {k: cuda_on_cpu.SIDE_STREAMS[k] - streams.get(k, 0) for k in streams}
        facts["globals"] = before.changed(probe.Globals(reference))
    result.facts[INTEGRITY] = facts


class _Instruments:
    """What the engines saw while the forward ran: out-of-bounds accesses and other events."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.triton = None  # triton_interp.Bounds while Triton's interpreter is installed
        self.cuda = None  # cuda_extension.Extensions while the load_inline stand-in is installed

    @property
    def inside(self) -> bool:
        """Whether an engine runs a kernel now (torch operations it makes are not the solution's)."""
        return bool((self.cuda is not None and self.cuda.inside) or (self.triton is not None and self.triton.inside))

    def launched(self) -> list[str]:
        """The kernels launched so far: Triton's by name, a CUDA extension's as `function/kernel`."""
        return [*(self.triton.launched if self.triton is not None else []),
                *(self.cuda.launched if self.cuda is not None else [])]

    @contextlib.contextmanager
    def skipping(self):
        """Within the block, kernel launches are counted but not run."""
        engines = [e for e in (self.triton, self.cuda) if e is not None]
        for engine in engines:
            engine.skip = True
        try:
            yield
        finally:
            for engine in engines:
                engine.skip = False

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
def _engines(engines: set[str], request: RunRequest):
    path = request.path
    instruments = _Instruments(path)
    with contextlib.ExitStack() as stack:
        from lowercheck.runners import triton_interp

        stack.enter_context(triton_interp.poisoned_allocations())
        if "triton" in engines:
            instruments.triton = stack.enter_context(triton_interp.instrumented(path))
        if "cuda" in engines:
            from lowercheck.runners import cuda_extension

            instruments.cuda = stack.enter_context(cuda_extension.installed(
                path, request.options.get("sizes"), request.options.get("task_sizes")))
        yield instruments


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flatten(v)]
    return [] if value is None else [value]
