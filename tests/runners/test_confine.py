"""The sandbox's namespaces held once per server (`confine.hold`), swept between stages, and what a
stage left running (`confine.left_behind`, LC903)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from lowercheck.runners import confine
from lowercheck.runners.sandbox import run_isolated, run_isolated_batch, stop_servers

from test_sandbox import fake


@pytest.fixture(autouse=True)
def fresh_servers():
    stop_servers()
    yield
    stop_servers()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in "ZX"


def test_left_behind_names_new_processes_once():
    seen: set = set()
    confine.left_behind(seen)  # whatever this process runs already
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        assert confine.left_behind(seen) == ["sleep"]
        assert confine.left_behind(seen) == []  # seen: said once
    finally:
        sleeper.kill()
        sleeper.wait()


def test_describe_counts_the_commands():
    assert confine.describe(["sleep"]) == "1 process (sleep)"
    assert confine.describe(["python3", "sleep", "python3"]) == "3 processes (python3 x2, sleep)"


def test_a_daemon_started_by_a_run_is_an_event_and_ends_with_its_batch(tmp_path: Path):
    pidfile = tmp_path / "daemon"
    request = fake("daemon", pidfile=str(pidfile))
    request.options["env"]["XDG_CACHE_HOME"] = str(tmp_path)  # a cache: writable in the sandbox
    result = run_isolated(request)
    assert result.error is None, result.error
    [event] = result.events
    assert event.code == "LC903" and "1 process (sleep)" in event.message and event.where == {"processes": 1}
    daemon = int(pidfile.read_text())
    assert not _alive(daemon), "the daemon outlived its batch"


def test_each_run_of_a_batch_names_only_what_it_left(tmp_path: Path):
    requests = [fake("daemon", pidfile=str(tmp_path / f"daemon{k}")) for k in range(2)] + [fake("double")]
    for request in requests:
        request.options["env"]["XDG_CACHE_HOME"] = str(tmp_path)
    results = run_isolated_batch(requests)
    assert [len(r.events) for r in results] == [1, 1, 0]
    assert all("1 process (sleep)" in r.events[0].message for r in results[:2])


def test_a_run_that_leaves_nothing_has_no_event():
    assert run_isolated(fake("double")).events == []


def test_stages_of_one_server_share_its_namespaces():
    """One fork per stage: the child of the server runs in the PID and network namespaces the
    server holds (made once), not in namespaces of its own."""
    first, second = (run_isolated(fake("namespaces")) for _ in range(2))
    ours = {name: os.readlink(f"/proc/self/ns/{name}") for name in ("pid", "net")}
    for result in (first, second):
        assert result.error is None, result.error
    seen = [{name: bytes(result.outputs[name]).decode() for name in ("pid", "net")} for result in (first, second)]
    assert seen[0] == seen[1]  # the server's, held once
    assert seen[0]["pid"] != ours["pid"] and seen[0]["net"] != ours["net"]


HOLDER = textwrap.dedent('''
    import os, time
    from lowercheck.runners import confine

    assert confine.hold() == [] and os.getpid() == 1  # PID 1 of the held namespaces; the caller waits outside
    pid = os.fork()
    if pid == 0:  # a stage: a daemon in a session of its own, then the stage ends
        confine.enter(confine.Box(writable=()))
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                print(os.readlink("/proc/self"), flush=True)
                time.sleep(600)
            os._exit(0)
        os.wait()
        time.sleep(0.5)
        os._exit(0)
    os.waitpid(pid, 0)
    confine.sweep()
    print("swept", os.readlink("/proc/self"), flush=True)
    time.sleep(600)
''')


def test_a_sweep_ends_what_a_stage_left_and_pid_one_ends_with_its_watcher():
    if confine.shortfall():
        pytest.skip(f"the sandbox is not whole here: {confine.shortfall()}")
    watcher = subprocess.Popen([sys.executable, "-c", HOLDER], stdout=subprocess.PIPE, text=True)
    try:
        daemon = int(watcher.stdout.readline())
        word, init = watcher.stdout.readline().split()
        assert word == "swept" and not _alive(daemon)
        assert _alive(int(init))  # PID 1, kept for the next stage
    finally:
        watcher.kill()
        watcher.wait()
    end = time.monotonic() + 10
    while _alive(int(init)) and time.monotonic() < end:
        time.sleep(0.05)
    assert not _alive(int(init)), "PID 1 outlived its watcher"
