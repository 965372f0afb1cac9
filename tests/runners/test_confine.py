"""The sandbox's namespaces held once per server (`confine.hold`), swept between stages, and what a
stage left running (`confine.left_behind`, LC903)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest

from lowercheck.runners import confine
from lowercheck.runners.sandbox import run_isolated, run_isolated_batch, stop_servers

from test_sandbox import fake, writable_folder


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
    request = fake("daemon")
    pidfile = writable_folder(request, tmp_path) / "daemon"
    request.options["pidfile"] = str(pidfile)
    result = run_isolated(request)
    assert result.error is None, result.error
    [event] = result.events
    assert event.code == "LC903" and "1 process (sleep)" in event.message and event.where == {"processes": 1}
    daemon = int(pidfile.read_text())
    assert not _alive(daemon), "the daemon outlived its batch"


def test_each_run_of_a_batch_names_only_what_it_left(tmp_path: Path):
    requests = [fake("daemon") for k in range(2)] + [fake("double")]
    for k, request in enumerate(requests):
        request.options["pidfile"] = str(writable_folder(request, tmp_path) / f"daemon{k}")
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


def test_a_run_writes_its_own_caches_and_no_other_file_s(tmp_path: Path):
    """A port may write its tool caches (Triton compiles into its own), but no entry the stage of
    another file reads: each file's caches are a folder of their own (`confine.source_caches`)."""
    shared = {name: str(tmp_path / "caches" / name) for name in ("TRITON_CACHE_DIR", "JAX_COMPILATION_CACHE_DIR")}
    requests = []
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(f"# the port {name}\n")
        request = replace(fake("plant", shared=shared), path=str(tmp_path / name))
        request.options["env"].update(shared)
        requests.append(request)
    for request in requests:
        result = run_isolated(request)
        assert result.error is None, result.error
        assert {k: int(v[0]) for k, v in result.outputs.items()} == {
            "TRITON_CACHE_DIR:own": 1, "TRITON_CACHE_DIR:shared": 0,
            "JAX_COMPILATION_CACHE_DIR:own": 1, "JAX_COMPILATION_CACHE_DIR:shared": 0}
    own = [confine.source_caches(shared, r.path)["TRITON_CACHE_DIR"] for r in requests]
    assert own[0] != own[1] and all((Path(folder) / "planted").exists() for folder in own)
    assert sorted(p.name for p in Path(shared["TRITON_CACHE_DIR"]).iterdir()) == [confine.SOURCE_CACHES]


def test_a_stage_s_jax_reads_its_own_cache_folder(tmp_path: Path):
    """JAX reads its compilation cache's folder at import, in the fork server, before a stage's own
    folder is known: `adopt_caches` points it at the stage's (`source_caches`)."""
    own = tmp_path / "own"
    script = textwrap.dedent(f"""
        import os
        import jax
        from lowercheck.runners import confine
        os.environ["JAX_COMPILATION_CACHE_DIR"] = {str(own)!r}
        confine.adopt_caches()
        print(jax.config.jax_compilation_cache_dir)
    """)
    env = {**os.environ, "JAX_COMPILATION_CACHE_DIR": str(tmp_path / "shared")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(own)

