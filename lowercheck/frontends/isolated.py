"""Front ends that execute user code (the Triton wrapper is imported and run to capture its
launches) run in a worker process: the user's import-time side effects, hangs and crashes stay
there, and the worker's heavy imports (torch, Triton) overlap with the main process's own work.

`IsolatedFrontend(language)` has the front-end API (`entries`, `lower`); `lower` returns the module
parsed back from the MLIR text the worker printed (locations included). Results are cached by
content (`lowercheck.cache`), so an unchanged file is not imported again: the worker starts only
when something is missing.

The user's code never runs in the worker itself: the worker forks a call server when it starts,
which makes the sandbox's user, network and PID namespaces once (`confine.hold`: it is PID 1 of
them) and imports the heavy modules; each call forks a child of that server (milliseconds), which
enters the sandbox (`lowercheck.runners.confine`: its own session, Landlock with a private
temporary folder and the tool caches as the only writable places, no descriptor but stdio and its
result pipe) and hands its result back through a pipe, read without trusting it
(`runners.handover`). The server waits at most the stage's limit (`timeout_s`, and what is left
of the command's time: `runners.deadline`), then kills the child; after every call it ends every
process left in its namespace (`confine.sweep`). What the user's code left running when its call was done (a daemon started at
import: `confine.left_behind`) comes back with the result, and the front end keeps it for the
report (`IsolatedFrontend.stage_findings`, LC903).
The verdict and the exit code come only from the main process: the worker's stdout and stderr go
to a log (a printed "verdict: equivalent" never reaches the report), and whatever stops the child
before it hands over its result (`sys.exit`, `os._exit`, `KeyboardInterrupt`, a signal, a hang,
a forged result) becomes `UserCodeStopped`: a finding about that side (LC902, exit 1), never our
exit. Each call starts from the worker's state after its imports, so a port's import-time changes
(monkey-patching torch, a global) never leak into the next call. What a call's child imported
from the packages the server holds (torch._dynamo, which liger-kernel imports at its top), the
server imports after the call (`import_installed`), so the next calls do not import it again;
never a module of the user's.
"""

from __future__ import annotations

import concurrent.futures
import importlib
import json
import multiprocessing
import os
import pickle
import resource
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

from lowercheck import cache, cuda_on_cpu
from lowercheck.errors import LowercheckError, SourceLocation, UserCodeStopped
from lowercheck.findings import Evidence, Finding
from lowercheck.frontends.base import (
    CAPTURE_ENV,
    Binding,
    EntryCandidate,
    EntryParam,
    NeedsConcreteSizes,
    NeedsThoroughCall,
    user_frame,
)
from lowercheck.runners import confine, deadline, handover
from lowercheck.runners.confine import CACHE_DIRS, REPO

if TYPE_CHECKING:  # xDSL's builtin dialect (0.15 s) stays out of the start of the command and of each worker
    from xdsl.dialects.builtin import ModuleOp

MEMORY_MB = 8192
_MARGIN_S = 15.0  # how much longer than a call's limit the main process waits for the worker itself
_LOG_TAIL = 2000
_LOG_NAME = "log"  # in the worker's folder (`IsolatedFrontend._start`)
_INIT_FAILED = "Exception in initializer"  # what concurrent.futures logs when `_init` raises


_SERVER: tuple[int, int] | None = None  # in the worker: the pipes to and from its call server


def _init(language: str, memory_mb: int, folder: str, parent: int) -> None:
    os.setsid()  # the user's os.killpg(0, ...) reaches this worker's group, not lowercheck's
    log = os.open(os.path.join(folder, _LOG_NAME), os.O_WRONLY | os.O_APPEND)
    os.dup2(log, 1)  # what the user's code prints stays out of the report
    os.dup2(log, 2)
    confine.use_temporary_folder(folder)  # each call's folder, what torch and Triton make at import: gone at close
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for name, sub in CACHE_DIRS.items():  # inside the checkout, and writable in the sandbox
        os.environ.setdefault(name, str(REPO / ".cache" / sub))
    _start_call_server(language, os.getpid())  # before any thread of this worker
    exit_with_parent(parent, folder)


def _start_call_server(language: str, worker: int) -> None:
    """Fork the worker's call server: it makes the sandbox's namespaces once (`confine.hold`: the
    process forked here waits outside them, PID 1 of them serves), imports the front end's heavy
    modules (torch, Triton) and runs each call (`_sandboxed`: one fork per call, into those
    namespaces). Why not the worker itself: a process whose children go to another PID namespace
    may start no thread, and the worker's queues need threads."""
    global _SERVER
    requests, requests_in = os.pipe()
    answers_out, answers = os.pipe()
    if os.fork() == 0:
        code = 1
        try:
            os.close(requests_in)
            os.close(answers_out)
            _close_all_but(requests, answers)  # the worker's queues are not the server's business
            confine.die_with_parent(worker)
            confine.hold()  # returns in PID 1 of the new namespaces
            if os.environ.get(CAPTURE_ENV) != "fake":  # a fast path that falls short: called again (`_answered`)
                os.environ[CAPTURE_ENV] = "fresh"
            try:
                module = importlib.import_module(f"lowercheck.frontends.{language}")
                getattr(module, "warm_up", lambda: None)()  # the heavy imports (torch, Triton), once
            except Exception:  # noqa: BLE001 - best effort: a call that needs the module says why
                traceback.print_exc()
            _serve_calls(requests, answers)
            code = 0
        except BaseException:  # noqa: BLE001 - the worker's calls then say that the server ended
            traceback.print_exc()
        finally:
            os._exit(code)
    os.close(requests)
    os.close(answers)
    _SERVER = (requests_in, answers_out)


def _serve_calls(requests: int, answers: int) -> None:
    """In the call server: each call the worker sends, run (`_sandboxed`), its outcome sent back;
    then what the call's child imported from the packages this server holds, imported here
    (`import_installed`) for the next calls' children."""
    while (call := _receive(requests)) is not None:
        imported: list[str] = []
        try:
            outcome, imported = _answered(*call)
            data = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as err:  # noqa: BLE001 - lowercheck's own failure: the main process says so
            traceback.print_exc()
            data = pickle.dumps(("failed", f"{type(err).__name__}: {err}", []))
        _send(answers, data)
        import_installed(imported, call[2])


def import_installed(names: list[str], path: str) -> None:
    """In the call server, after a call on the file `path`: import those of `names` (the modules the
    call's child imported, in its order) that are submodules of a package this server has imported.
    A port's package may import, at its top, parts of torch the front end never
    needs (liger-kernel imports torch._dynamo and torch.distributed: 0.9 s in the child of every
    call, twelve calls for a spec of twelve sizes); imported here once, every later child has them.
    Never a module of the user's: a package of theirs is not imported here; the file's own package
    is left to the child, also where it is part of an installed one (jax's Pallas ops: the file
    registers a PRNG at import, and must find it unregistered in the next child); and a submodule
    is looked up in the folders of the package this server imported (a name the child made up, or
    put in that package's path, is not found)."""
    from lowercheck.runners.user_code import package_of

    found = package_of(path)
    own = found[1].rpartition(".")[0] + "." if found else None
    for name in names:
        top = sys.modules.get(name.partition(".")[0]) if "." in name else None
        if not hasattr(top, "__path__") or name in sys.modules or (own and (name + ".").startswith(own)):
            continue
        try:
            importlib.import_module(name)
        except ModuleNotFoundError:  # made up, or put in a package's path by the user's code
            pass
        except Exception:  # noqa: BLE001 - best effort: a child that needs it imports it itself
            traceback.print_exc()


def _through_server(func, language: str, path: str, gpu: str, end: float, *args) -> tuple:
    """In the worker: `_sandboxed(...)`, run by the worker's call server (or here, outside a worker)."""
    if _SERVER is None:
        return _answered(func, language, path, gpu, end, *args)[0]
    requests, answers = _SERVER
    try:
        _send(requests, pickle.dumps((func, language, path, gpu, end, *args), protocol=pickle.HIGHEST_PROTOCOL))
        answer = _receive(answers)
    except OSError:
        answer = None
    return answer if answer is not None else ("failed", "the front end's call server ended", [])


def _answered(func, language: str, path: str, gpu: str, end: float, *args) -> tuple[tuple, list[str]]:
    """`_sandboxed(...)`; when the front end's fast path fell short in it (`NeedsThoroughCall`: the
    Triton capture on shape tensors), made again, once, in a fresh child with `CAPTURE_ENV` "fake",
    after this process imported what that path needs (so later calls find it imported)."""
    outcome, imported = _sandboxed(func, language, path, gpu, end, *args)
    if outcome[0] != "raised" or not isinstance(outcome[1], NeedsThoroughCall):
        return outcome, imported
    print(f"lowercheck: {path}: {outcome[1]}: called again on the thorough path", flush=True)  # the worker's log
    try:
        getattr(importlib.import_module(f"lowercheck.frontends.{language}"), "warm_up_thorough", lambda: None)()
    except Exception:  # noqa: BLE001 - best effort: the call says what it misses
        traceback.print_exc()
    saved = os.environ.get(CAPTURE_ENV)
    os.environ[CAPTURE_ENV] = "fake"
    try:
        outcome, again = _sandboxed(func, language, path, gpu, end, *args)
        return outcome, imported + again
    finally:
        if saved is None:
            os.environ.pop(CAPTURE_ENV, None)
        else:
            os.environ[CAPTURE_ENV] = saved


def _send(fd: int, data: bytes) -> None:
    view = memoryview(len(data).to_bytes(8, "little") + data)
    while view:
        view = view[os.write(fd, view):]


def _receive(fd: int):
    """The next object a trusted process of ours sent (`_send`), or None at end of file."""
    header = _read_exactly(fd, 8)
    data = _read_exactly(fd, int.from_bytes(header, "little")) if header is not None else None
    return pickle.loads(data) if data is not None else None


def _read_exactly(fd: int, count: int) -> bytes | None:
    chunks, left = [], count
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _close_all_but(*keep: int) -> None:
    """Close every descriptor above stdio but `keep` (a child must not inherit pipes it could write
    forged messages into)."""
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)


def exit_with_parent(parent: int, folder: str | None = None) -> None:
    """End this worker when `parent`, the process that started it, is gone (also when it was gone
    before this worker got here), and remove its temporary `folder`, which the parent would have
    removed: its own session keeps it out of
    a kill of lowercheck's process group (a `lowercheck corpus` server stopped on a timeout), and no
    process of ours may outlive the command. A thread that watches the parent, not
    PR_SET_PDEATHSIG (the run children's way, `runners/forkserver.py`): that signal follows the
    thread that started the worker, which may end long before the process does."""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="lowercheck-parent-watch").start()


def _sandboxed(func, language: str, path: str, gpu: str, end: float, *args) -> tuple[tuple, list[str]]:
    """In the call server: `_guarded(func, ...)` in a confined child forked for this call, waited for
    until `end` (`time.monotonic()`, one clock for every process of the machine: the worker may
    have been busy with its own imports when the call was made). The outcome: ("ok", value, left)
    | ("raised", LowercheckError, left) | ("failed", text, left): lowercheck's own error, with
    `left` the command names of the processes the call left running | ("stopped", how the child
    ended without a result) | ("timeout",); and the names of the modules the child imported, in
    its order (for `import_installed`; untrusted, as the whole answer)."""
    places = _places(path)
    try:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(read)
            _confined_call(write, places, func, language, path, gpu, *args)
        os.close(write)
        data, status = _collect(pid, read, end)
        confine.sweep()  # what the call left running goes before the next call
    finally:
        shutil.rmtree(places[0][0], ignore_errors=True)
    if status is None:
        return ("timeout",), []
    if not data:
        return ("stopped", _status_text(status)), []
    try:
        outcome = handover.loads(data)
    except Exception as err:  # noqa: BLE001 - whatever the child wrote, it is no result
        return ("stopped", f"handed over something that is not a result ({type(err).__name__})"), []
    if not isinstance(outcome, tuple) or len(outcome) != 4 or outcome[0] not in ("ok", "raised", "failed") \
            or not all(isinstance(names, list) and all(isinstance(name, str) for name in names)
                       for names in outcome[2:]):
        return ("stopped", "handed over something that is not a result"), []
    return outcome[:3], outcome[3]


def _confined_call(write: int, places: tuple[list[str], list[str], dict[str, str]], func, language: str,
                   path: str, gpu: str, *args) -> None:
    before = set(sys.modules)
    try:
        _close_all_but(write)  # the call server's pipes, and any other: the user's code gets stdio only
        os.setsid()  # the call server kills this child's group on its limit
        writable, readable, caches = places
        os.environ.update(caches)
        confine.adopt_caches()
        confine.enter(confine.Box(writable=tuple(writable), readable=tuple(readable)))
        try:
            outcome: tuple = ("ok", _guarded(func, language, path, gpu, *args))
        except (LowercheckError, NeedsConcreteSizes, NeedsThoroughCall) as err:  # the latter two: called again
            outcome = ("raised", err)
        except Exception as err:  # noqa: BLE001 - lowercheck's own failure: the main process says so
            traceback.print_exc()
            outcome = ("failed", f"{type(err).__name__}: {err}")
        left = confine.left_behind()
        imported = [name for name in list(sys.modules) if name not in before]
        try:
            data = pickle.dumps((*outcome, left, imported), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as err:  # noqa: BLE001 - e.g. an error holding an object of the user's
            data = pickle.dumps(("failed", f"an unpicklable result: {type(err).__name__}: {err}", left, imported))
        view = memoryview(data)
        while view:
            view = view[os.write(write, view):]
    except BaseException:  # noqa: BLE001 - no result: the worker says how the child ended
        traceback.print_exc()
    finally:
        os._exit(0)


def _collect(pid: int, read: int, end: float) -> tuple[bytes, int | None]:
    """What the child wrote and its wait status; status None when it ran past `end` (then its
    process group is killed, and with its PID namespace every process it started)."""
    chunks: list[bytes] = []
    status: int | None = None
    os.set_blocking(read, False)
    try:
        while True:
            ready, _, _ = select.select([read], [], [], max(0.0, min(0.05, end - time.monotonic())))
            eof = False
            if ready:
                eof = not _drain(read, chunks)
            if status is None:
                done, found = os.waitpid(pid, os.WNOHANG)
                if done:
                    status = found
            if status is not None and (eof or not ready):
                _drain(read, chunks)
                return b"".join(chunks), status
            if time.monotonic() > end:
                _kill_group(pid)
                os.waitpid(pid, 0)
                return b"", None
    finally:
        os.close(read)


def _drain(read: int, chunks: list[bytes]) -> bool:
    """Read what is there; False at end of file."""
    while True:
        try:
            chunk = os.read(read, 1 << 20)
        except BlockingIOError:
            return True
        if not chunk:
            return False
        chunks.append(chunk)


def _status_text(status: int) -> str:
    if os.WIFSIGNALED(status):
        try:
            return f"was killed by {signal.Signals(os.WTERMSIG(status)).name}"
        except ValueError:
            return f"was killed by signal {os.WTERMSIG(status)}"
    return f"exited with status {os.WEXITSTATUS(status)}"


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


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
        self._folder: str | None = None  # the worker's temporary folder: its log and its TMPDIR
        # Per file (real path): each call that left processes running, and their command names.
        self._left: dict[str, list[tuple[str, list[str]]]] = {}

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
            self._folder = tempfile.mkdtemp(prefix=f"lowercheck-{self.language}-worker-")
            os.close(os.open(os.path.join(self._folder, _LOG_NAME), os.O_CREAT | os.O_WRONLY, 0o600))
            context = multiprocessing.get_context("spawn")
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=1, mp_context=context, initializer=_init,
                initargs=(self.language, self.memory_mb, self._folder, os.getpid()))
            self._pool.submit(int)  # makes the worker start (and import) right away
            self._processes = list(getattr(self._pool, "_processes", {}).values())
        return self._pool

    def _call(self, func, path: str, *args, what: str):
        limit = deadline.clamp(self.timeout_s)
        cut = limit < self.timeout_s
        late = UserCodeStopped(f"{what} did not finish in {limit:g} s (killed"
                               f"{'; ' + deadline.text() + ' ran out' if cut else ''})", path=path,
                               hint="the file may hang at import or while capturing the launch"
                                    + ("; or give the diff more time (--timeout)" if cut else ""))
        if limit <= 0:
            raise late
        future = self._start().submit(_through_server, func, self.language, path, cuda_on_cpu.target_name(),
                                      time.monotonic() + limit, *args)
        done, _ = concurrent.futures.wait([future], timeout=limit + _MARGIN_S)
        if not done:  # the worker itself is stuck: it goes, and whatever it started with it
            self.close(kill=True)
            raise late
        try:
            outcome = future.result()
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
        if outcome[0] == "raised" and isinstance(outcome[1], NeedsThoroughCall):  # the retry's own: forged
            outcome = ("stopped", "handed over something that is not a result")
        kind = outcome[0]
        if kind in ("ok", "raised", "failed") and outcome[2]:
            self._left.setdefault(os.path.realpath(path), []).append((what, outcome[2]))
        if kind == "ok":
            return outcome[1]
        if kind == "raised":
            raise outcome[1]
        if kind == "failed":
            raise RuntimeError(f"{what}: {outcome[1]}")
        if kind == "timeout":
            raise late
        log = self._log_tail().strip()
        raise UserCodeStopped(f"{what}: the process that ran it {outcome[1]} before it handed over its result"
                              + (f"; its last output: {log.splitlines()[-1][:300]}" if log else ""),
                              path=path, hint="run the file alone with python to see what stops it")

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
        if self._folder is None:  # closed: nothing to read (not a `log` of the working folder)
            return ""
        try:
            with open(os.path.join(self._folder, _LOG_NAME), "rb") as handle:
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

    def stage_findings(self, path: str, side: str | None = None) -> list[Finding]:
        """An LC903 warning about `path` when a call on it left processes running (its import
        started a daemon, ...): the sandbox ended them, the lowering stands. One finding naming
        every such call."""
        calls = self._left.get(os.path.realpath(path), [])
        if not calls:
            return []
        names = [name for _, found in calls for name in found]
        stages = "; ".join(f"{what}: {confine.describe(found)}" for what, found in calls)
        return [Finding("LC903", f"{path} left processes running when lowercheck's "
                        f"{'call on it was' if len(calls) == 1 else 'calls on it were'} done ({stages}); the "
                        "sandbox ended them", side=side,
                        witness={"processes": len(names), "commands": sorted(set(names)),
                                 "stages": [what for what, _ in calls]},
                        hint="wait for the processes the file starts, or start none when it is imported",
                        evidence=str(Evidence.OBSERVED))]

    def close(self, kill: bool = True) -> None:
        """End the worker. Killed by default: it holds nothing to save (user code never ran in it,
        its log goes), and an interpreter that imported torch and Triton takes a while to exit."""
        if self._pool is None:
            return
        if kill:
            for process in self._processes + list(getattr(self._pool, "_processes", {}).values()):
                _kill_session(process)
        self._pool.shutdown(wait=True, cancel_futures=True)  # processes killed first: a quick wait
        self._pool, self._processes = None, []
        if self._folder:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


def _places(path: str) -> tuple[list[str], list[str], dict[str, str]]:
    """In the worker, the sandbox's places for a call on `path` (`confine.Box`): writable, a fresh
    private temporary folder (removed after the call) and the file's own tool caches
    (`confine.source_caches`, by variable: the third item); readable, the file's folder (its
    package's root)."""
    from lowercheck.runners.user_code import package_of

    private = tempfile.mkdtemp(prefix="lowercheck-capture-")
    caches = confine.source_caches(os.environ, path)
    package = package_of(path)
    return [private, *caches.values()], [package[0] if package else os.path.dirname(os.path.realpath(path))], caches


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
