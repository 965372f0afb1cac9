"""The sandbox's fork server: children are forked from a process that has run the runner's
`warm_up()`, a server is reused by the next batch, each child is its own process group, and a
child does not outlive its server."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from lowercheck.runners.sandbox import run_isolated, run_isolated_batch, stop_servers

from test_sandbox import fake, writable_folder


@pytest.fixture(autouse=True)
def fresh_servers():
    stop_servers()
    yield
    stop_servers()


def processes(**options) -> dict[str, int]:
    result = run_isolated(fake("processes", **options))
    assert result.error is None, result.error
    return {name: int(value[0]) for name, value in result.outputs.items()}


def test_the_child_is_forked_from_a_warmed_up_server():
    """The server forks the child (its own process group: a timeout kills all of it), which runs
    the request in the PID namespace the server holds (`confine.hold`): one fork per batch."""
    seen = processes()
    assert seen["warmed_in"] == seen["parent"] != os.getpid()
    assert seen["group"] == seen["pid"]
    assert seen["pid_inside"] != seen["pid"]  # numbered inside a PID namespace


def test_the_next_batch_reuses_the_server():
    first, second = processes(), processes()
    assert first["parent"] == second["parent"]
    assert first["pid"] != second["pid"]


def test_another_environment_gets_another_server():
    first = processes()
    request = fake("processes")
    request.options["env"]["LOWERCHECK_TEST_MARK"] = "other"
    other = run_isolated(request)
    assert int(other.outputs["parent"][0]) != first["parent"]


def test_a_volatile_variable_keeps_the_server_and_reaches_the_child(monkeypatch):
    first = processes()
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "another test")
    request = fake("env", name="PYTEST_CURRENT_TEST")
    result = run_isolated(request)
    assert bytes(result.outputs["PYTEST_CURRENT_TEST"]) == b"another test"
    assert processes()["parent"] == first["parent"]


def test_one_batch_runs_in_one_child():
    results = run_isolated_batch([fake("processes"), fake("processes")])
    assert results[0].outputs["pid"][0] == results[1].outputs["pid"][0]


def test_a_server_that_dies_takes_its_child_along_and_the_run_fails(tmp_path: Path):
    outcome = {}
    request = fake("sleep")
    pidfile = writable_folder(request, tmp_path) / "pids"
    request.options["pidfile"] = str(pidfile)
    thread = threading.Thread(target=lambda: outcome.update(result=run_isolated(request, timeout_s=120)))
    thread.start()
    deadline = time.monotonic() + 60
    while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    child, server = (int(v) for v in pidfile.read_text().split())
    os.kill(server, signal.SIGKILL)
    thread.join(30)
    assert not thread.is_alive()
    assert outcome["result"].error_kind in ("crash", "oom")  # killed by SIGKILL, no result
    for _ in range(100):
        if not Path(f"/proc/{child}").exists() or "Z" in _state(child):
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the child {child} outlived its server")
    assert processes()["parent"] != server  # the next run gets a new server


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"
