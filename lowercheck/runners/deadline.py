"""The time limit of a whole command (`lowercheck diff --timeout`).

`diff` sets it for its duration (`bounded`); every stage that runs user code (a front end's import
and capture, `get_inputs()`, each run) waits at most what is left (`clamp`), and a stage that would
start after it has passed does not start (`spent`): the command ends with its report in time,
however many stages a hostile file makes hang. Process-wide: one command at a time per process
(the CLI, a `diff_server`), its threads sharing it.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator

_end: float | None = None
_seconds: float | None = None
_origin: float | None = None  # when the command started, where it is this whole process (`from_process_start`)
_stopped = False  # the command is being ended (`stop`)
# Kept back from a command's time for what follows its stages: the report, ending the workers.
RESERVE_S = 3.0


@contextlib.contextmanager
def bounded(seconds: float | None) -> Iterator[None]:
    """Within the block, the stages have `seconds` in all, less what the command needs after them
    (`RESERVE_S`, at most a tenth); None: no bound. Nested blocks keep the tighter end."""
    global _end, _seconds
    previous = _end, _seconds
    if seconds is not None:
        start = _origin if _origin is not None else time.monotonic()
        end = start + seconds - min(RESERVE_S, seconds / 10)
        if _end is None or end < _end:
            _end, _seconds = end, seconds
    try:
        yield
    finally:
        _end, _seconds = previous


def from_process_start() -> None:
    """The command is this process (`python -m lowercheck ...`): its time counts from the
    process's start, the interpreter's own start-up and imports included."""
    global _origin
    _origin = time.monotonic() - process_age()


def stop() -> None:
    """The command is being ended (`stop_on_signals`): from now on no time is left, so the stages
    waiting on user code in other threads stop waiting (they look again while they wait), and
    none starts."""
    global _stopped
    _stopped = True


def stop_on_signals() -> None:
    """In a process that is the command (the CLI, a diff server): SIGTERM (`timeout`, a cancelled CI
    job, a corpus stopping its server) and Ctrl-C end it as an exception does, at once: `stop`
    first, so that the runs waited for in other threads stop waiting (else the runs' executor
    would wait out a run that hangs, a minute or more); on the way out the workers and run
    servers are stopped and the temporary folders removed. SIGTERM keeps a terminated process's
    exit status, 128 + 15; Ctrl-C is a KeyboardInterrupt (the CLI: `interrupted`, exit 2). A
    SIGINT the process was started ignoring (a background job of a script) stays ignored."""
    import signal

    def terminate(signum: int, frame) -> None:
        stop()
        raise SystemExit(128 + signum)

    def interrupt(signum: int, frame) -> None:
        stop()
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, interrupt)


def remaining() -> float | None:
    """Seconds left (never negative), or None without a bound."""
    if _stopped:
        return 0.0
    return None if _end is None else max(0.0, _end - time.monotonic())


def clamp(limit: float) -> float:
    """`limit`, or what is left of the command's time when that is less."""
    left = remaining()
    return limit if left is None else min(limit, left)


def binds(limit: float) -> bool:
    """Whether the command's end comes before `limit` seconds from now."""
    left = remaining()
    return left is not None and left < limit


def spent() -> bool:
    left = remaining()
    return left is not None and left <= 0.0


def text() -> str:
    """How the reports name the limit."""
    return f"the command's time limit (--timeout {_seconds:g} s)" if _seconds is not None else "the time limit"


def process_age() -> float:
    """Seconds since this process started (its start-up included: the CLI bounds the whole
    command, imports too); 0 where /proc does not say."""
    try:
        with open("/proc/self/stat") as handle:
            start_ticks = int(handle.read().rsplit(")", 1)[1].split()[19])
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0
