"""The child process of `lowercheck.runners.sandbox`: `python -m lowercheck.runners.child REQ RES`.

It unpickles a `RunRequest` from REQ, makes its drawn inputs (`draws`), runs the runner registered
for its language, and pickles a `RunResult` to RES, with what it found of the inputs (changed,
their magnitude) in its facts. Processes its run left running (`confine.left_behind`: a daemon
the user's code started) are an event of that result (LC903). Whatever the runner does wrong
becomes a result, never an exception:
`MemoryError` -> error_kind "oom", `UserError` -> "user", `Unsupported` -> "runner" (a limit of
the runner: inconclusive), anything else -> "crash" with the traceback's tail. A crash of the interpreter itself (a signal) leaves no RES; the parent reports it.
"""

from __future__ import annotations

import importlib
import os
import pickle
import sys
import traceback
from dataclasses import replace
from time import perf_counter

from lowercheck.errors import Unsupported, UserError
from lowercheck.runners import confine, draws
from lowercheck.runners.base import RunEvent, RunRequest, RunResult

# language -> module with `run(request: RunRequest) -> RunResult`
RUNNERS: dict[str, str] = {
    "cuda": "lowercheck.runners.simt",
    "triton": "lowercheck.runners.triton_interp",
    "pallas": "lowercheck.runners.pallas_interp",
    "torch": "lowercheck.runners.torch_eager",
    "module": "lowercheck.runners.module",  # a solution module (KernelBench's ModelNew) run whole
    "triton-compile": "lowercheck.runners.triton_compile",  # `lowercheck audit`: compile for a target
    "task": "lowercheck.runners.task_probe",  # `lowercheck audit`: a task's reference under probes
}
# More runners from the environment, "language=module,language=module" (tests, plug-ins).
RUNNERS_ENV = "LOWERCHECK_RUNNERS"
_TRACEBACK_CHARS = 4000


def runners() -> dict[str, str]:
    """The registry, with the entries from $LOWERCHECK_RUNNERS added."""
    table = dict(RUNNERS)
    for item in os.environ.get(RUNNERS_ENV, "").split(","):
        language, _, module = item.partition("=")
        if language.strip() and module.strip():
            table[language.strip()] = module.strip()
    return table


def execute(request: RunRequest) -> RunResult:
    """Run `request` with its language's runner, turning every failure into a RunResult."""
    start = perf_counter()
    try:
        table = runners()
        if request.language not in table:
            raise UserError(f"no runner for the language `{request.language}` "
                            f"(known: {', '.join(sorted(table))})")
        runner = importlib.import_module(table[request.language])
        drawn = request.args
        args, kept = draws.made(drawn)  # the inputs are made here, under this child's limits
        result = runner.run(replace(request, args=args))
        if not isinstance(result, RunResult):
            raise TypeError(f"the {request.language} runner returned {type(result).__name__}, "
                            "not a RunResult")
        if result.error is None and any(isinstance(v, draws.Draw) for v in drawn.values()):
            result.facts[draws.FACTS] = draws.facts(drawn, kept, result.outputs,
                                                    bool(request.options.get(draws.KEEP_INPUTS)))
    except MemoryError:
        result = RunResult(error="MemoryError: the run ran out of memory", error_kind="oom")
    except UserError as err:
        result = RunResult(error=err.render(), error_kind="user")
    except Unsupported as err:  # the runner cannot run this construct: its limit, not the kernel's fault
        result = RunResult(error=err.render(), error_kind="runner")
    except BaseException:  # noqa: BLE001 - a runner's SystemExit or KeyboardInterrupt is a crash too
        result = RunResult(error=traceback.format_exc()[-_TRACEBACK_CHARS:], error_kind="crash")
    if not result.wall_s:
        result.wall_s = perf_counter() - start
    return result


def _write(result: RunResult, path: str) -> None:
    partial = path + ".part"
    with open(partial, "wb") as out:
        pickle.dump(result, out, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(partial, path)  # the parent never reads half a result


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m lowercheck.runners.child REQUEST.pkl RESULT.pkl", file=sys.stderr)
        return 2
    request_path, result_path = argv
    try:
        with open(request_path, "rb") as handle:
            loaded = pickle.load(handle)
    except BaseException:  # noqa: BLE001 - e.g. an unreadable request
        _save(RunResult(error=traceback.format_exc()[-_TRACEBACK_CHARS:], error_kind="crash"), result_path)
        return 0
    seen: set[tuple[int, int]] = set()
    if isinstance(loaded, list):  # a batch: one result file per request, written as each finishes
        for index, request in enumerate(loaded):
            _save(_with_left_behind(execute(request), seen), f"{result_path}.{index}")
    else:
        _save(_with_left_behind(execute(loaded), seen), result_path)
    return 0


def _with_left_behind(result: RunResult, seen: set[tuple[int, int]]) -> RunResult:
    """`result`, with an LC903 event when the run left processes running that no earlier run of the
    batch left (they keep running until the batch ends: a later run may use them)."""
    names = confine.left_behind(seen)
    if names:
        result.events.append(RunEvent("LC903", f"its code left {confine.describe(names)} running when its run "
                                      f"ended; the sandbox ended {'it' if len(names) == 1 else 'them'} with the batch",
                                      where={"processes": len(names)}))
    return result


def _save(result: RunResult, path: str) -> None:
    try:
        _write(result, path)
    except MemoryError:
        _write(RunResult(error="MemoryError while saving the result", error_kind="oom"), path)
    except Exception:  # noqa: BLE001 - e.g. an output numpy cannot pickle
        _write(RunResult(error=traceback.format_exc()[-_TRACEBACK_CHARS:], error_kind="crash"), path)


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip interpreter shutdown: a runner's leftover threads (Triton, JAX) must not keep us alive.
    os._exit(code)
