"""Run a `RunRequest` in a child process, so a runner that crashes, hangs or eats memory cannot take
lowercheck with it.

The requests are pickled to a temporary folder and `lowercheck.runners.child` runs them in a child
process forked by a fork server that has already imported the runner's heavy modules
(`lowercheck.runners.forkserver`): in its own process group, in the sandbox (`confine`: no
network, the batch's folder and its side's own tool caches its only writable places, every
process it starts killed with it), under an address-space limit (RLIMIT_AS) and without core dumps. Its results are
read without trusting them (`handover`). The caller always gets a `RunResult`; failures are in
`error`/`error_kind`:

- "timeout": the child ran past `timeout_s`, or past the command's time limit (`deadline`); its
  whole process tree is killed;
- "deadline": not run, the command's time limit had passed (inconclusive, not the kernel's fault);
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
import signal
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from time import perf_counter

import numpy as np

from lowercheck.runners import deadline, handover
from lowercheck.runners.confine import CACHE_DIRS, REPO, source_caches
from lowercheck.runners.base import RunRequest, RunResult
from lowercheck.runners.draws import Draw
from lowercheck.runners.forkserver import ForkedChild, ForkServer, ForkServerPool, ServerGone

_OUTPUT_TAIL = 4000
SERVERS = ForkServerPool()  # kept between batches; `stop_servers` ends them
# Messages of allocators that abort instead of raising MemoryError.
_OOM_MARKS = ("MemoryError", "std::bad_alloc", "Cannot allocate memory", "out of memory")


def run_isolated(request: RunRequest, timeout_s: float = 60, memory_mb: int | None = 4096) -> RunResult:
    """Run `request` in a child process with a wall-clock and a memory limit. Never raises.

    memory_mb bounds the child's address space (RLIMIT_AS); None lifts the bound, which a run on a
    GPU needs (the CUDA driver reserves far more address space than it uses).
    """
    return run_isolated_batch([request], timeout_s, memory_mb)[0]


def run_isolated_batch(requests: list[RunRequest], timeout_s: float = 60,
                       memory_mb: int | None = 4096,
                       on_result: Callable[[int], None] | None = None) -> list[RunResult]:
    """Run several requests of one language in one child, in order. Never raises; one result per request.

    `timeout_s` is per request. If the child dies or times out during request k, requests before k
    keep their results, k gets the failure, and the rest run in a fresh child, except, after a
    timeout, those with at least as many array elements as request k: they would only wait out
    the same limit again (a kernel that spins forever does at every size)."""
    results: list[RunResult] = []
    while len(results) < len(requests):
        if deadline.spent():
            results += [RunResult(error=f"not run: {deadline.text()} had passed", error_kind="deadline")
                        for _ in requests[len(results):]]
            break
        previous = results[-1] if results else None
        if previous is not None and previous.error_kind == "timeout":
            timed_out = _elements(requests[len(results) - 1])
            if _elements(requests[len(results)]) >= timed_out:
                results.append(RunResult(error=f"not run: a run of this side with as many elements timed out "
                                         f"({timeout_s:g} s)", error_kind="timeout"))
                continue
        remaining = requests[len(results):]
        start = perf_counter()
        try:
            with tempfile.TemporaryDirectory(prefix="lowercheck-batch-") as folder:
                offset = len(results)
                done, failure = _run_batch(remaining, Path(folder), timeout_s, memory_mb, start,
                                           (lambda i: on_result(offset + i)) if on_result else None)
        except Exception as err:  # noqa: BLE001 - the sandbox itself failed
            done, failure = [], RunResult(error=f"the sandbox failed: {type(err).__name__}: {err}",
                                          error_kind="crash", wall_s=perf_counter() - start)
        results += done
        if failure is not None and len(results) < len(requests):
            results.append(failure)
    return results


def _elements(request: RunRequest) -> int:
    return sum(value.size for value in request.args.values() if isinstance(value, (np.ndarray, Draw)))


def _run_batch(requests: list[RunRequest], folder: Path, timeout_s: float, memory_mb: int | None,
               start: float, on_result: Callable[[int], None] | None = None) -> tuple[list[RunResult], RunResult | None]:
    """Results of the requests that finished, and the failure of the one that did not (if any)."""
    request_path, result_path, log_path = folder / "request.pkl", folder / "result.pkl", folder / "log"
    with open(request_path, "wb") as out:
        pickle.dump(list(requests), out, protocol=pickle.HIGHEST_PROTOCOL)
    failure: RunResult | None = None
    code: int | None = None
    language, env = requests[0].language, child_environment(requests[0])
    # The child's caches are its side's own (`confine.source_caches`); the server's are the shared ones.
    job_env = {**env, **source_caches(env, requests[0].path)} if requests[0].path else env
    places = (sandbox_places(folder, job_env), user_folders(requests))
    server = SERVERS.take(language, env)
    try:
        try:
            child = server.start(request_path, result_path, log_path, memory_mb, job_env, *places)
        except ServerGone:  # an idle server that died meanwhile: once more, with a fresh one
            server.stop()
            server = ForkServer(language, env)
            child = server.start(request_path, result_path, log_path, memory_mb, job_env, *places)
        try:
            code, limit = _wait_per_request(child, result_path, len(requests), timeout_s, on_result)
            if code is None:
                _kill_group(child.pid)
                child.wait()
                failure = RunResult(error=f"the run did not finish in {limit:g} s (killed"
                                    f"{'; ' + deadline.text() + ' ran out' if limit < timeout_s else ''})\n"
                                    f"{_tail(log_path)}", error_kind="timeout", wall_s=limit)
        finally:
            _kill_group(child.pid)  # grandchildren (compilers, worker pools) go too
        SERVERS.give_back(language, env, server)
    except BaseException:
        server.stop()
        raise
    done: list[RunResult] = []
    for index in range(len(requests)):
        path = Path(f"{result_path}.{index}")
        if not path.exists():
            break
        try:
            with open(path, "rb") as handle:
                done.append(handover.load(handle))
        except (handover.Forged, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError) as err:
            # The user's code wrote it, not the runner: the side's fault, like a child that died.
            failure = RunResult(error=f"the run handed over something that is not a result ({err})",
                                error_kind="crash", wall_s=perf_counter() - start)
            break
    if len(done) < len(requests) and failure is None:
        failure = _died(code if code is not None else -9, _tail(log_path), perf_counter() - start, memory_mb)
    return done, failure


def _wait_per_request(child: ForkedChild, result_path: Path, count: int, timeout_s: float,
                      on_result: Callable[[int], None] | None = None) -> tuple[int | None, float]:
    """Wait for the child's exit status, and the limit the last request had; None when one request
    ran past `timeout_s` or the command's time limit (`deadline`; the clock restarts whenever
    another result file appears; `on_result` hears of each)."""
    finished = 0
    limit = deadline.clamp(timeout_s)
    end = perf_counter() + limit
    while True:
        try:
            code = child.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            code = None
        now_finished = sum(Path(f"{result_path}.{i}").exists() for i in range(finished, count)) + finished
        if on_result is not None:
            for index in range(finished, now_finished):
                on_result(index)
        if code is not None:
            return code, limit
        if now_finished > finished:
            limit = deadline.clamp(timeout_s)
            finished, end = now_finished, perf_counter() + limit
        elif perf_counter() > end or deadline.spent():  # the latter: the command is being ended
            return None, limit


def stop_servers() -> None:
    """End the idle fork servers (the CLI does at exit, unless its caller keeps its workers)."""
    SERVERS.stop()


def child_environment(request: RunRequest) -> dict[str, str]:
    env = dict(os.environ)
    for name, sub in CACHE_DIRS.items():
        env.setdefault(name, str(REPO / ".cache" / sub))
    extra = request.options.get("env", {}) if isinstance(request.options, dict) else {}
    env.update({str(k): str(v) for k, v in extra.items()})
    return env


def sandbox_places(folder: Path, env: dict[str, str]) -> list[str]:
    """Where a batch's child may write: a private temporary folder inside the batch's folder
    (first: its TMPDIR), the batch's folder (its result files) and the tool caches of `env` (its
    side's own, `confine.source_caches`)."""
    return [str(folder / "tmp"), str(folder), *(env[name] for name in CACHE_DIRS if env.get(name))]


def user_folders(requests: list[RunRequest]) -> list[str]:
    """The folders of the user's files the requests name (what an import reads, in a home folder too)."""
    from lowercheck.runners.user_code import package_of

    found = []
    for request in requests:
        problem = request.options.get("problem") if isinstance(request.options, dict) else None
        for path in (request.path, problem):  # a solution module's run imports its problem's file too
            if path:
                folder = os.path.dirname(os.path.realpath(path))
                package = package_of(path)
                found.append(package[0] if package else folder)
    return list(dict.fromkeys(found))


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
    if pid <= 1:  # unknown (the server could not say): never our own group nor every process
        return
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
