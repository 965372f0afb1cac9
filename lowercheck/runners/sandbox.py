"""Run a `RunRequest` in a child process, so a runner that crashes, hangs or eats memory cannot take
lowercheck with it.

The request is pickled to a temporary folder and `python -m lowercheck.runners.child REQ RES` runs
it in its own process group, under an address-space limit (RLIMIT_AS) and without core dumps. The
caller always gets a `RunResult`; failures are in `error`/`error_kind`:

- "timeout": the child ran past `timeout_s` (its whole process group is killed);
- "oom": it ran out of memory under the limit (a `MemoryError`, or an allocator's abort);
- "crash": an exception in the runner (with its traceback), or a signal / a missing result (with
  the signal's name and the tail of the child's output);
- "user": the runner rejected the request (`UserError`).

The child's environment is the caller's, with the tool caches kept inside the checkout (`.cache/`,
unless already set) and `request.options["env"]` on top (e.g. TRITON_INTERPRET=1 for the Triton
interpreter, which reads it at import time).
"""

from __future__ import annotations

import os
import pickle
import resource
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from time import perf_counter

from lowercheck.runners.base import RunRequest, RunResult

REPO = Path(__file__).resolve().parents[2]
# Caches stay inside the checkout, never in ~ (the Makefile sets the same).
CACHE_DIRS = {
    "TRITON_CACHE_DIR": "triton",
    "TRITON_HOME": "triton-home",
    "JAX_COMPILATION_CACHE_DIR": "jax",
    "XDG_CACHE_HOME": "xdg",
}
_OUTPUT_TAIL = 4000
# Messages of allocators that abort instead of raising MemoryError.
_OOM_MARKS = ("MemoryError", "std::bad_alloc", "Cannot allocate memory", "out of memory")


def run_isolated(request: RunRequest, timeout_s: float = 60, memory_mb: int | None = 4096) -> RunResult:
    """Run `request` in a child process with a wall-clock and a memory limit. Never raises.

    memory_mb bounds the child's address space (RLIMIT_AS); None lifts the bound, which a run on a
    GPU needs (the CUDA driver reserves far more address space than it uses).
    """
    start = perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="lowercheck-run-") as folder:
            return _run(request, Path(folder), timeout_s, memory_mb, start)
    except Exception as err:  # noqa: BLE001 - the sandbox itself failed (pickling, fork, disk)
        return RunResult(error=f"the sandbox failed: {type(err).__name__}: {err}", error_kind="crash",
                         wall_s=perf_counter() - start)


def run_isolated_batch(requests: list[RunRequest], timeout_s: float = 60,
                       memory_mb: int | None = 4096) -> list[RunResult]:
    """Run several requests of one language in one child, in order, paying its start-up (importing
    torch and Triton) once. Never raises; one result per request.

    `timeout_s` is per request. If the child dies or times out during request k, requests before k
    keep their results, k gets the failure, and the rest run in a fresh child."""
    results: list[RunResult] = []
    while len(results) < len(requests):
        remaining = requests[len(results):]
        start = perf_counter()
        try:
            with tempfile.TemporaryDirectory(prefix="lowercheck-batch-") as folder:
                done, failure = _run_batch(remaining, Path(folder), timeout_s, memory_mb, start)
        except Exception as err:  # noqa: BLE001 - the sandbox itself failed
            done, failure = [], RunResult(error=f"the sandbox failed: {type(err).__name__}: {err}",
                                          error_kind="crash", wall_s=perf_counter() - start)
        results += done
        if failure is not None and len(results) < len(requests):
            results.append(failure)
    return results


def _run_batch(requests: list[RunRequest], folder: Path, timeout_s: float, memory_mb: int | None,
               start: float) -> tuple[list[RunResult], RunResult | None]:
    """Results of the requests that finished, and the failure of the one that did not (if any)."""
    request_path, result_path, log_path = folder / "request.pkl", folder / "result.pkl", folder / "log"
    with open(request_path, "wb") as out:
        pickle.dump(list(requests), out, protocol=pickle.HIGHEST_PROTOCOL)
    command = [sys.executable, "-m", "lowercheck.runners.child", str(request_path), str(result_path)]
    failure: RunResult | None = None
    with open(log_path, "wb") as log:
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                 env=child_environment(requests[0]), cwd=REPO, start_new_session=True)
        try:
            _limit(child.pid, memory_mb)
            code = _wait_per_request(child, result_path, len(requests), timeout_s)
            if code is None:
                _kill_group(child.pid)
                child.wait()
                failure = RunResult(error=f"the run did not finish in {timeout_s:g} s (killed)\n"
                                    f"{_tail(log_path)}", error_kind="timeout", wall_s=timeout_s)
        finally:
            _kill_group(child.pid)
    done: list[RunResult] = []
    for index in range(len(requests)):
        path = Path(f"{result_path}.{index}")
        if not path.exists():
            break
        with open(path, "rb") as handle:
            done.append(pickle.load(handle))
    if len(done) < len(requests) and failure is None:
        failure = _died(code if code is not None else -9, _tail(log_path), perf_counter() - start, memory_mb)
    return done, failure


def _wait_per_request(child: subprocess.Popen, result_path: Path, count: int, timeout_s: float) -> int | None:
    """Wait for the child's exit status; None when one request ran past `timeout_s` (the clock
    restarts whenever another result file appears)."""
    finished = 0
    deadline = perf_counter() + timeout_s
    while True:
        try:
            return child.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            pass
        now_finished = sum(Path(f"{result_path}.{i}").exists() for i in range(finished, count)) + finished
        if now_finished > finished:
            finished, deadline = now_finished, perf_counter() + timeout_s
        elif perf_counter() > deadline:
            return None


def child_environment(request: RunRequest) -> dict[str, str]:
    env = dict(os.environ)
    for name, sub in CACHE_DIRS.items():
        env.setdefault(name, str(REPO / ".cache" / sub))
    extra = request.options.get("env", {}) if isinstance(request.options, dict) else {}
    env.update({str(k): str(v) for k, v in extra.items()})
    return env


def _limit(pid: int, memory_mb: int | None) -> None:
    """Bound the child's address space and forbid core dumps.

    Set from here with prlimit, right after the child starts (it is still starting Python, long
    before it loads a runner), not in a `preexec_fn`: `lowercheck diff` starts the two sides from
    two threads, and Python documents `preexec_fn` as unsafe when threads exist.
    """
    try:
        if memory_mb is not None:
            limit = memory_mb * 1024 * 1024
            resource.prlimit(pid, resource.RLIMIT_AS, (limit, limit))
        resource.prlimit(pid, resource.RLIMIT_CORE, (0, 0))
    except ProcessLookupError:  # already gone: its exit status tells the rest
        pass


def _run(request: RunRequest, folder: Path, timeout_s: float, memory_mb: int | None,
         start: float) -> RunResult:
    request_path, result_path, log_path = folder / "request.pkl", folder / "result.pkl", folder / "log"
    with open(request_path, "wb") as out:
        pickle.dump(request, out, protocol=pickle.HIGHEST_PROTOCOL)
    command = [sys.executable, "-m", "lowercheck.runners.child", str(request_path), str(result_path)]
    with open(log_path, "wb") as log:
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                 env=child_environment(request), cwd=REPO, start_new_session=True)
        try:
            _limit(child.pid, memory_mb)
            code = child.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(child.pid)
            child.wait()
            return RunResult(error=f"the run did not finish in {timeout_s:g} s (killed)\n"
                             f"{_tail(log_path)}", error_kind="timeout", wall_s=perf_counter() - start)
        finally:
            _kill_group(child.pid)  # grandchildren (compilers, worker pools) go too
    wall = perf_counter() - start
    if result_path.exists():
        try:
            with open(result_path, "rb") as handle:
                result = pickle.load(handle)
        except Exception as err:  # noqa: BLE001 - a truncated or foreign result file
            return RunResult(error=f"unreadable result from the child: {err}\n{_tail(log_path)}",
                             error_kind="crash", wall_s=wall)
        if not result.wall_s:
            result.wall_s = wall
        return result
    return _died(code, _tail(log_path), wall, memory_mb)


def _died(code: int, output: str, wall: float, memory_mb: int | None) -> RunResult:
    """A child that left no result: killed by a signal, or exited early."""
    if code < 0:
        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = f"exited with status {code} without a result"
    limit = f"the memory limit of {memory_mb} MiB" if memory_mb is not None else "the machine's memory"
    if any(mark in output for mark in _OOM_MARKS):
        return RunResult(error=f"the run {how}: out of {limit}\n{output}", error_kind="oom", wall_s=wall)
    if code == -signal.SIGKILL:  # not our timeout: most likely the kernel's OOM killer
        return RunResult(error=f"the run {how}, most likely out of {limit}\n{output}", error_kind="oom",
                         wall_s=wall)
    return RunResult(error=f"the run {how}\n{output}", error_kind="crash", wall_s=wall)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _tail(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data[-_OUTPUT_TAIL:].decode("utf-8", "replace")
