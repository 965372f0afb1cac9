"""A fork server for the sandbox: a long-lived process that has already imported a runner's heavy
modules (torch, Triton, JAX, the emulator's xDSL) and forks one child per batch of runs.

Starting a fresh interpreter per batch spends seconds importing torch and Triton before the first
kernel runs; a fork of a process that has imported them starts in milliseconds with the same
modules. The child is what the sandbox always ran (`lowercheck.runners.child.main`), so isolation
is unchanged: it runs in its own session (the sandbox kills its whole process group on a timeout),
confined (`confine.enter`: Landlock, no capabilities, the address-space limit, no core dumps),
with stdout and stderr in the batch's log, and it dies with its server (PR_SET_PDEATHSIG). The
server makes the namespaces once, before its imports (`confine.hold`: the process started here
waits outside as the watcher, its child serves as PID 1 of new PID, network and user namespaces),
so that a batch costs one fork; when a child has exited, the server ends every process left in its
namespace (`confine.sweep`) before it answers: a daemon the user's code started never outlives
its batch.

Protocol, one line each way per batch. The client writes a JSON object
`{"request": PATH, "result": PATH, "log": PATH, "memory_mb": N | null, "env": {...}, "writable": [PATH, ...],
"readable": [PATH, ...]}` (the sandbox's places, `confine.Box`; the child's
whole environment: the server was started with the same one, up to `VOLATILE` variables); the server answers
`started PID` once it has forked (the child's PID as lowercheck's process numbers it, outside the
namespace) and `exited CODE` when the child and whatever it left are gone (CODE as Popen's
`returncode`: negative for a signal). The server exits at end of input, i.e. when its client closes
the pipe or dies, and serves one batch at a time: the sandbox keeps a pool of servers per
environment (`ForkServerPool`).

    python -m lowercheck.runners.forkserver LANGUAGE
"""

from __future__ import annotations

import collections
import ctypes
import importlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_PR_SET_PDEATHSIG = 1
# Variables that change from call to call and that no import reads: a server started under other
# values serves the call (its child gets the call's values). pytest names the current test in one.
VOLATILE = frozenset({"PYTEST_CURRENT_TEST", "COLUMNS", "LINES"})


# --- the server -----------------------------------------------------------------------------------


def serve(language: str) -> int:
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)  # whatever an import prints must not reach the protocol pipe
    from lowercheck.runners import confine

    confine.hold()  # single-threaded still, before the imports: returns in PID 1, which serves
    _warm_up(language)
    for line in sys.stdin:
        job = json.loads(line)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            protocol.close()
            os.close(read)
            _child(job, devnull, write)  # never returns
        os.close(write)
        outside = os.read(read, 32)
        os.close(read)
        protocol.write(f"started {int(outside) if outside.isdigit() else 0}\n")
        _, status = os.waitpid(pid, 0)
        confine.sweep()  # what the batch left running goes before the next one starts
        protocol.write(f"exited {_returncode(status)}\n")
    return 0


def _warm_up(language: str) -> None:
    """Import the runner and let it import its heavy modules (`warm_up()`, where it has one).
    Best effort: a module that fails to import here fails again, with its message, in the child."""
    from lowercheck.runners import child

    try:
        runner = importlib.import_module(child.runners()[language])
        getattr(runner, "warm_up", lambda: None)()
    except Exception:  # noqa: BLE001 - the child reports it
        pass


def _child(job: dict, devnull: int, report: int) -> None:
    code = 1
    try:
        os.write(report, str(_outside_pid()).encode())  # what lowercheck's process kills on a timeout
        os.close(report)
        os.setsid()  # its own process group: the sandbox kills the whole group on a timeout
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        log = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(devnull, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.closerange(3, 1 << 16)  # the server's (the log's copy, devnull): the user's code gets 0, 1, 2 only
        os.environ.clear()
        os.environ.update(job["env"])
        from lowercheck.runners import child, confine

        confine.adopt_caches()
        confine.enter(confine.Box(writable=tuple(job["writable"]), readable=tuple(job["readable"]),
                                  memory_mb=job["memory_mb"]))

        code = child.main([job["request"], job["result"]])
    except BaseException:  # noqa: BLE001 - the parent reads the log's tail
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)  # no interpreter shutdown: a runner's leftover threads must not keep it alive


def _outside_pid() -> int:
    """This process's PID outside the PID namespace: /proc is the one mounted there."""
    try:
        return int(os.readlink("/proc/self"))
    except (OSError, ValueError):
        return os.getpid()


def _returncode(status: int) -> int:
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


# --- the client -----------------------------------------------------------------------------------


class ServerGone(Exception):
    """The fork server exited or broke the protocol."""


class ForkServer:
    """One server process (started with `env`), and its current child."""

    def __init__(self, language: str, env: dict[str, str]):
        self.process = subprocess.Popen([sys.executable, "-m", "lowercheck.runners.forkserver", language],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        env=env, cwd=REPO)
        self._buffer = b""
        self.broken = False  # it broke the protocol or exited: never handed out again

    def start(self, request: Path, result: Path, log: Path, memory_mb: int | None,
              env: dict[str, str], writable: list[str], readable: list[str]) -> ForkedChild:
        job = {"request": str(request), "result": str(result), "log": str(log), "memory_mb": memory_mb, "env": env,
               "writable": writable, "readable": readable}
        try:
            self.process.stdin.write((json.dumps(job) + "\n").encode())
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as err:
            self.broken = True
            raise ServerGone(f"the fork server is gone ({err})") from None
        word, value = self._line(None).split()
        if word != "started":
            raise ServerGone(f"unexpected answer from the fork server: {word} {value}")
        return ForkedChild(self, int(value))

    def _line(self, timeout: float | None) -> str:
        """The server's next line; subprocess.TimeoutExpired after `timeout` seconds."""
        fd = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                raise subprocess.TimeoutExpired(self.process.args, timeout or 0)
            chunk = os.read(fd, 4096)
            if not chunk:
                self.broken = True
                raise ServerGone("the fork server exited")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()

    def alive(self) -> bool:
        """Running and usable: a server seen to exit is dead even before the kernel has reaped it."""
        return not self.broken and self.process.poll() is None

    def stop(self) -> None:
        if self.alive():
            self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            try:
                pipe.close()
            except OSError:
                pass


class ForkedChild:
    """A child of a fork server, waited for like a `subprocess.Popen`."""

    def __init__(self, server: ForkServer, pid: int):
        self.server, self.pid, self.returncode = server, pid, None

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            try:
                word, value = self.server._line(timeout).split()
            except ServerGone:  # the child died with it (PR_SET_PDEATHSIG)
                self.returncode = -signal.SIGKILL
            else:
                if word != "exited":
                    raise ServerGone(f"unexpected answer from the fork server: {word} {value}")
                self.returncode = int(value)
        return self.returncode


class ForkServerPool:
    """Idle fork servers by (language, environment). A batch takes one (starting one when none is
    idle: the two sides of a diff run at once), and gives it back when its child has exited. At
    most `keep` idle servers stay; the least recently used goes first."""

    def __init__(self, keep: int = 6):
        self.keep = keep
        self._idle: collections.OrderedDict[int, tuple[tuple, ForkServer]] = collections.OrderedDict()
        self._lock = threading.Lock()

    def take(self, language: str, env: dict[str, str]) -> ForkServer:
        key = _key(language, env)
        with self._lock:
            for ident, (k, server) in list(self._idle.items()):
                if k == key:
                    del self._idle[ident]
                    if server.alive():
                        return server
                    server.stop()
        return ForkServer(language, env)

    def give_back(self, language: str, env: dict[str, str], server: ForkServer) -> None:
        if not server.alive():
            server.stop()
            return
        key = _key(language, env)
        with self._lock:
            self._idle[id(server)] = (key, server)
            while len(self._idle) > self.keep:
                _, (_, oldest) = self._idle.popitem(last=False)
                oldest.stop()

    def stop(self) -> None:
        with self._lock:
            servers = [server for _, server in self._idle.values()]
            self._idle.clear()
        for server in servers:
            server.stop()


def _key(language: str, env: dict[str, str]) -> tuple:
    return language, tuple(sorted((k, v) for k, v in env.items() if k not in VOLATILE))


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1]))
