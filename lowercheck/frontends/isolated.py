"""Front ends that execute user code (the Triton wrapper is imported and run to capture its
launches) run in a worker process: the user's import-time side effects, hangs and crashes stay
there, and the worker's heavy imports (torch, Triton) overlap with the main process's own work.

`IsolatedFrontend(language)` has the front-end API (`entries`, `lower`); `lower` returns the module
parsed back from the MLIR text the worker printed (locations included). Results are cached by
content (`lowercheck.cache`), so an unchanged file is not imported again: the worker starts only
when something is missing.

The worker is untrusted: the verdict and the exit code come only from the main process. The
worker runs in a session of its own (a signal to its process group does not reach ours), its stdout
and stderr go to a log (a printed "verdict: equivalent" never reaches the report), and whatever
stops it before it hands over its result (`sys.exit`, `os._exit`, `KeyboardInterrupt`, a signal,
a hang) becomes `UserCodeStopped`: a finding about that side (LC902, exit 1), never our exit.
"""

from __future__ import annotations

import concurrent.futures
import importlib
import json
import multiprocessing
import os
import resource
import signal
import tempfile
from concurrent.futures.process import BrokenProcessPool

from xdsl.dialects.builtin import ModuleOp

from lowercheck import cache, cuda_on_cpu
from lowercheck.errors import LowercheckError, SourceLocation, UserCodeStopped
from lowercheck.frontends.base import Binding, EntryCandidate, EntryParam, user_frame

MEMORY_MB = 8192
_LOG_TAIL = 2000
_INIT_FAILED = "Exception in initializer"  # what concurrent.futures logs when `_init` raises


def _init(language: str, memory_mb: int, log_path: str, parent: int) -> None:
    os.setsid()  # the user's os.killpg(0, ...) reaches this worker's group, not lowercheck's
    _exit_with_parent(parent)
    log = os.open(log_path, os.O_WRONLY | os.O_APPEND)
    os.dup2(log, 1)  # what the user's code prints stays out of the report
    os.dup2(log, 2)
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    module = importlib.import_module(f"lowercheck.frontends.{language}")
    getattr(module, "warm_up", lambda: None)()  # start the heavy imports (torch, Triton) now


def _exit_with_parent(parent: int) -> None:
    """End this worker when `parent`, the process that started it, is gone (also when it was gone
    before this worker got here): its own session keeps it out of
    a kill of lowercheck's process group (a `lowercheck corpus` server stopped on a timeout), and no
    process of ours may outlive the command. A thread that watches the parent, not
    PR_SET_PDEATHSIG (the run children's way, `runners/forkserver.py`): that signal follows the
    thread that started the worker, which may end long before the process does."""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="lowercheck-parent-watch").start()


def _guarded(func, language: str, path: str, gpu: str, *args):
    """`func(language, path, *args)` in the worker, its device queries answered as `gpu`
    (`cuda_on_cpu`); what the user's code raises to stop the process (SystemExit,
    KeyboardInterrupt) comes back as `UserCodeStopped` at the user's line, instead of crossing into
    the main process, where concurrent.futures would raise it again."""
    cuda_on_cpu.set_target(gpu)
    try:
        return func(language, path, *args)
    except Exception:
        raise
    except BaseException as err:  # noqa: BLE001 - the user's code tried to stop the process
        raise UserCodeStopped(f"the file {_stop_text(err)} while lowercheck imported or captured it",
                              user_frame(err, path, path), path=path,
                              hint="a kernel file must not exit or interrupt the process that imports it; "
                                   "lowercheck ignores the status it asked for") from None


def _stop_text(err: BaseException) -> str:
    if isinstance(err, SystemExit):
        return f"called sys.exit({err.code!r})"
    return f"raised {type(err).__name__}"


def _entries(language: str, path: str) -> list[EntryCandidate]:
    return importlib.import_module(f"lowercheck.frontends.{language}").entries(path)


def _lower(language: str, path: str, entry: str, binding: Binding) -> str:
    from lowercheck import ir

    module = importlib.import_module(f"lowercheck.frontends.{language}").lower(path, entry, binding)
    return ir.print_ir(module, debuginfo=True)


def _migrate(language: str, path: str, entry: str, binding: Binding, sweep: list[dict[str, int]],
             platforms: list[dict]) -> str:
    facts = importlib.import_module(f"lowercheck.frontends.{language}").migrate(path, entry, binding, sweep, platforms)
    return json.dumps(facts)


def _entries_to_json(found: list[EntryCandidate]) -> str:
    return json.dumps([{"name": c.name, "location": [c.location.file, c.location.line, c.location.column],
                        "params": [[p.name, p.kind, p.dtype] for p in c.params], "launches": list(c.launches),
                        "instance_of": c.instance_of, "calls": c.calls, "preferred": c.preferred,
                        "kernel": c.kernel}
                       for c in found])


def _entries_from_json(text: str) -> list[EntryCandidate]:
    return [EntryCandidate(c["name"], SourceLocation(*c["location"]),
                           tuple(EntryParam(*p) for p in c["params"]), tuple(c["launches"]),
                           c.get("instance_of"), c.get("calls"), c.get("preferred", False), c.get("kernel", False))
            for c in json.loads(text)]


class IsolatedFrontend:
    """A front end whose calls run in one worker process, started on the first cache miss."""

    def __init__(self, language: str, timeout_s: float = 300.0, memory_mb: int = MEMORY_MB):
        self.language = language
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._processes: list = []  # the worker's multiprocessing.Process, for its exit status
        self._log: str | None = None

    def _key(self, path: str, *more: str) -> str:
        """A cache key of `path`'s content and of the path itself (as given and resolved): the IR's
        locations name the file, so a copy elsewhere is another file."""
        return cache.key(self.language, path, os.path.realpath(path), cache.source_digest(path),
                         cuda_on_cpu.target_name(), *more)

    def warm_up(self, path: str) -> None:
        """Start the worker now unless `path` was lowered before (its imports then overlap ours)."""
        if cache.get("entries", self._key(path)) is None:
            self._start()

    def _start(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            handle, self._log = tempfile.mkstemp(prefix=f"lowercheck-{self.language}-worker-", suffix=".log")
            os.close(handle)
            context = multiprocessing.get_context("spawn")
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=1, mp_context=context, initializer=_init,
                initargs=(self.language, self.memory_mb, self._log, os.getpid()))
            self._pool.submit(int)  # makes the worker start (and import) right away
            self._processes = list(getattr(self._pool, "_processes", {}).values())
        return self._pool

    def _call(self, func, path: str, *args, what: str):
        future = self._start().submit(_guarded, func, self.language, path, cuda_on_cpu.target_name(), *args)
        done, _ = concurrent.futures.wait([future], timeout=self.timeout_s)
        if not done:
            self.close(kill=True)
            raise UserCodeStopped(f"{what} did not finish in {self.timeout_s:g} s (killed)", path=path,
                                  hint="the file may hang at import or while capturing the launch")
        try:
            return future.result()
        except BrokenProcessPool:
            how, log = self._death(), self._log_tail()
            self.close(kill=True)
            if _INIT_FAILED in log:  # our own imports failed: no user code had run yet
                raise LowercheckError(f"the {self.language} front end's worker failed to start: "
                                      f"{log.strip().splitlines()[-1] if log.strip() else 'no output'}",
                                      hint="set LOWERCHECK_DEBUG=1 and report it") from None
            raise UserCodeStopped(f"{what}: the worker process {how} before it handed over its result"
                                  + (f"; its last output: {log.strip().splitlines()[-1][:300]}" if log.strip() else ""),
                                  path=path, hint="run the file alone with python to see what stops it") from None

    def _death(self) -> str:
        """How the worker ended: its exit status or the signal that killed it."""
        for process in self._processes:
            process.join(timeout=5)
            code = process.exitcode
            if code is None:
                continue
            if code < 0:
                try:
                    return f"was killed by {signal.Signals(-code).name}"
                except ValueError:
                    return f"was killed by signal {-code}"
            return f"exited with status {code}"
        return "ended (its exit status was not known in time)"

    def _log_tail(self) -> str:
        try:
            with open(self._log or "", "rb") as handle:
                handle.seek(0, os.SEEK_END)
                handle.seek(max(0, handle.tell() - _LOG_TAIL))
                return handle.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def entries(self, path: str) -> list[EntryCandidate]:
        key = self._key(path)
        if (text := cache.get("entries", key)) is not None:
            return _entries_from_json(text)
        found = self._call(_entries, path, what=f"reading {path}")
        cache.put("entries", key, _entries_to_json(found))
        return found

    def lower(self, path: str, entry: str, binding: Binding) -> ModuleOp:
        from lowercheck import ir

        key = self._key(path, entry, repr(binding))
        text = cache.get("lowered", key)
        if text is None:
            text = self._call(_lower, path, entry, binding, what=f"lowering {path}:{entry}")
            cache.put("lowered", key, text)
        return ir.parse(text, path)

    def migrate(self, path: str, entry: str, binding: Binding, sweep: list[dict[str, int]],
                platforms: list[dict]) -> dict:
        """The migration facts of `entry` (a front end with a `migrate`: Pallas), cached like `lower`."""
        key = self._key(path, entry, repr(binding), json.dumps(sweep), json.dumps(platforms, sort_keys=True))
        text = cache.get("migration", key)
        if text is None:
            text = self._call(_migrate, path, entry, binding, sweep, platforms,
                              what=f"checking {path}:{entry} for {', '.join(p['name'] for p in platforms)}")
            cache.put("migration", key, text)
        return json.loads(text)

    def close(self, kill: bool = False) -> None:
        if self._pool is None:
            return
        if kill:
            for process in self._processes + list(getattr(self._pool, "_processes", {}).values()):
                _kill_session(process)
        self._pool.shutdown(wait=True, cancel_futures=True)  # processes killed first: a quick wait
        self._pool, self._processes = None, []
        if self._log:
            try:
                os.unlink(self._log)
            except OSError:
                pass
            self._log = None


def _kill_session(process) -> None:
    """Kill the worker and whatever the user's code started in its session (it leads its own)."""
    if process.pid is None:
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.kill()
    except (ProcessLookupError, AttributeError, ValueError):
        pass
