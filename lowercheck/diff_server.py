"""A long-lived process that runs `lowercheck` command lines one after another, for `lowercheck
corpus`: the front ends' worker processes (torch, Triton, JAX imported) stay up between cases, so a
case pays for its own work, not for those imports. The runs still go to fresh child processes.

Protocol (`python -m lowercheck.diff_server`): one JSON list of arguments per line on stdin; one line
`{"exit": CODE}` per command on stdout, after the command has finished. The command's own output
goes to /dev/null (its JSON report to the file it names). `DiffServer` is the parent's handle: it
starts the process in its own session, so a command that overruns its time is stopped by killing
the whole process group (front-end workers and run children included) and the next command gets
a fresh server. The server ends when its parent does (a `lowercheck corpus` or a Ray worker killed
mid-case), the way the front ends' workers do, and everything it started ends with it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading


_GRACE_S = 5.0  # how long `DiffServer.close` waits for the server to end its command on SIGTERM


def serve() -> int:
    from lowercheck.cli import main
    from lowercheck.frontends.isolated import exit_with_parent

    from lowercheck.runners import deadline

    exit_with_parent(os.getppid())  # its own session keeps it out of a kill of its parent's group
    deadline.stop_on_signals()  # `DiffServer.close`'s SIGTERM: the command's runs and folders go first
    os.environ.setdefault("COLUMNS", "200")
    for line in sys.stdin:
        argv = json.loads(line)
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            code = main(argv, keep_workers=True)
        print(json.dumps({"exit": code}), flush=True)
    return 0


def exchange(process: subprocess.Popen, argv: list[str], limit_s: float) -> tuple[dict | None, str]:
    """Send one command line to a server `process` (this protocol, or another server's with the
    same framing) and read its one-line JSON answer: (the answer, "") or (None, why: the server died
    or did not answer within `limit_s`)."""
    answer: list[str] = []
    reader = threading.Thread(target=lambda: answer.append(process.stdout.readline()), daemon=True)
    try:
        process.stdin.write(json.dumps(argv) + "\n")
        process.stdin.flush()
    except BrokenPipeError:
        return None, "the server died"
    reader.start()
    reader.join(limit_s)
    if reader.is_alive():
        return None, "no answer within the limit"
    if not answer or not answer[0].strip():
        return None, "the server died"
    return json.loads(answer[0]), ""


class DiffServer:
    """One server process; `run(argv, timeout_s)` -> the exit code, or None when it overran."""

    def __init__(self) -> None:
        self._process: subprocess.Popen | None = None
        self._stopped = False  # `stop`: no command runs any more
        self._lock = threading.Lock()  # `stop` against a command starting the server

    def _start(self) -> subprocess.Popen:
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen([sys.executable, "-m", "lowercheck.diff_server"], stdin=subprocess.PIPE,
                                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                             start_new_session=True)
        return self._process

    def run(self, argv: list[str], timeout_s: float) -> int | None:
        with self._lock:
            if self._stopped:
                return None
            process = self._start()
        doc, _ = exchange(process, argv, timeout_s)
        if doc is None:
            self.close()  # overran or died: the next command starts a fresh server
            return None
        return int(doc["exit"])

    def stop(self) -> None:
        """Kill the server, and the command it runs, from another thread than the one waiting on it
        (which then gets None at once); no later command starts one again."""
        with self._lock:
            self._stopped = True
        self.close()

    def close(self) -> None:
        """SIGTERM first: the server ends its command as a terminated `lowercheck` does (its runs
        stopped, its temporary folders removed: `deadline.stop_on_signals`), and what it started
        ends as it finds the server gone; SIGKILL to its process group when it has not ended within
        `_GRACE_S`."""
        process = self._process  # one read: the thread that runs a command may close it too
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=_GRACE_S)  # what it started sees it gone and ends too
            except subprocess.TimeoutExpired:  # not reaped yet: its group is still its own
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        self._process = None


if __name__ == "__main__":
    sys.exit(serve())
