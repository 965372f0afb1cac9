"""`lowercheck corpus DIR --ray ADDRESS` (lowercheck/ray_corpus.py): the cases as Ray tasks on a local
cluster give the outcomes of the `-j 2` pool; a Ray worker killed mid-case has its case retried,
each case written once and nothing lost; a case the time limit stops is a timeout, not a retry; no
process of a cluster the command started outlives the command.

Every command or cluster here runs with a variable of its own in its environment (a marker, or the
cluster's RAY_AUTH_TOKEN), which Ray's processes, the workers' diff servers and their children
inherit: the test finds all of its processes, and only its own, by their environment."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from lowercheck import batch, ray_corpus

CORPUS = Path(__file__).parents[1] / "corpus"

# A port that waits, while a `<stem>.hold` file is beside it, in the process that imports it (the
# front end's, under a diff server, under a Ray worker).
HELD = '''import pathlib as _pathlib, time as _time
while _pathlib.Path(__file__).with_suffix(".hold").exists():
    _time.sleep(0.1)
'''

CASE = '''
[[case]]
source = "vadd.cu"
target = "{target}"
mode = "static"
verdict = "{verdict}"
codes = {codes}
args = {args}
description = "{target}"
'''

STATIC_CASES = {"vadd.py": ("equivalent", []), "vadd_no_mask.py": ("different", ["LC201"]),
                "vadd_floor_grid.py": ("different", ["LC202"])}


def make_corpus(root: Path, cases: dict[str, tuple[str, list[str]]], held: tuple[str, ...] = (),
                args: tuple[str, ...] = ()) -> Path:
    """A corpus of static vector_add cases; each name in `held` a copy of vadd.py that waits while
    its hold file exists (its content unique to this call, so no cached lowering answers for it);
    `args`: more `diff` options of every case."""
    folder = root / "vector_add"
    folder.mkdir(parents=True)
    shutil.copy(CORPUS / "vector_add" / "vadd.cu", folder)
    for name in cases:
        if name in held:
            (folder / name).write_text(HELD + f"# {secrets.token_hex(8)}\n" + (CORPUS / "vector_add" / "vadd.py").read_text())
        else:
            shutil.copy(CORPUS / "vector_add" / name, folder)
    (folder / "expected.toml").write_text("".join(CASE.format(target=name, verdict=verdict, codes=json.dumps(codes),
                                                              args=json.dumps(list(args)))
                                                  for name, (verdict, codes) in cases.items()))
    return root


def processes_with(variable: str, value: str) -> list[int]:
    """The processes whose environment holds `variable=value` (other than this one)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and entry.name != str(os.getpid()):
            try:
                if f"{variable}={value}".encode() in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def wait_until(condition, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout_s:g} s waiting for {what}")


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def corpus_command(root: Path, results: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "lowercheck", "corpus", str(root), "--json", str(results), *options]


def verdicts(results: Path) -> dict[str, tuple[str, list[str]]]:
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    keys = [line["key"] for line in lines]
    assert len(keys) == len(set(keys)), f"a case written twice: {keys}"
    return {line["key"]: (line["verdict"], line["codes"]) for line in lines}


def test_a_local_cluster_gives_the_pools_outcomes_and_leaves_nothing_running(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "corpus", STATIC_CASES)
    cases = batch.discover(root)
    pool = tmp_path / "pool.jsonl"
    batch.run_corpus(cases, pool, 2, baseline=False, limit_s=300, progress=False)

    mark = secrets.token_hex(8)  # in the environment of every process the command starts, so they can be found
    ray_results, summary = tmp_path / "ray.jsonl", tmp_path / "summary.md"
    sessions, home_token = set(ray_corpus.temp_dir().glob("session_2*")), Path.home() / ".ray" / "auth_token"
    home_before = home_token.stat().st_mtime_ns if home_token.exists() else None
    done = subprocess.run(corpus_command(root, ray_results, "--ray", "local", "-j", "2", "--markdown", str(summary)),
                          capture_output=True, text=True, timeout=300, env={**os.environ, "TEST_RAY_CORPUS_MARK": mark})
    assert done.returncode == 0, done.stdout + done.stderr
    wait_until(lambda: not processes_with("TEST_RAY_CORPUS_MARK", mark), 10, "the local cluster's processes to end")
    assert verdicts(ray_results) == verdicts(pool) and len(verdicts(pool)) == 3
    # The same detection table; and each Ray worker's throughput beside it.
    ray_outcomes, pool_outcomes = batch.load_results(ray_results), batch.load_results(pool)
    assert batch.markdown(cases, ray_outcomes, False, "today") == batch.markdown(cases, pool_outcomes, False, "today")
    text = summary.read_text()
    assert "on Ray (a local cluster of 2 CPUs)" in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and " pid " in line]
    assert rows and sum(int(row.split("|")[2]) for row in rows) == 3
    assert "| all (" in text and "cases per minute" in text
    # Ray's session folder (its logs) is under lowercheck's cache; nothing was written to ~/.ray.
    assert len(set(ray_corpus.temp_dir().glob("session_2*")) - sessions) == 1
    assert (home_token.stat().st_mtime_ns if home_token.exists() else None) == home_before


@dataclass
class Cluster:
    address: str
    env: dict[str, str]
    token: str


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def cluster():
    """A local Ray cluster started by the test (`ray start --head`, 2 CPUs), stopped at the end; none
    of its processes may remain."""
    token = secrets.token_hex(32)
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token, "RAY_USAGE_STATS_ENABLED": "0"}
    port = _free_port()
    head = subprocess.Popen([sys.executable, "-m", "ray.scripts.scripts", "start", "--head", f"--port={port}",
                             "--node-ip-address=127.0.0.1", "--num-cpus=2", f"--temp-dir={ray_corpus.temp_dir()}",
                             "--include-dashboard=false", "--block"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    started = threading.Event()
    output: list[str] = []

    def read() -> None:
        for line in head.stdout:
            output.append(line)
            if "Ray runtime started" in line:
                started.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        assert started.wait(90), "".join(output)
        yield Cluster(f"127.0.0.1:{port}", env, token)
    finally:
        head.send_signal(signal.SIGTERM)  # `ray start --block` stops the processes it started
        head.wait(60)
        wait_until(lambda: not processes_with("RAY_AUTH_TOKEN", token), 30, "the test's cluster to end")


@pytest.mark.xdist_group("ray-cluster")  # one cluster for both under `make test`
def test_a_worker_killed_mid_case_has_its_case_retried_once(tmp_path: Path, cluster: Cluster) -> None:
    cases = {"vadd_held.py": ("equivalent", []), "vadd_no_mask.py": ("different", ["LC201"])}
    root = make_corpus(tmp_path / "corpus", cases, held=("vadd_held.py",))
    hold = root / "vector_add" / "vadd_held.hold"
    hold.touch()
    results, summary = tmp_path / "results.jsonl", tmp_path / "summary.md"
    command = subprocess.Popen(corpus_command(root, results, "--ray", cluster.address, "--markdown", str(summary)),
                               env=cluster.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        # The other case done, the held one is the only case running: its worker is the one Ray
        # titles with the task (an idle worker is `ray::IDLE`).
        wait_until(lambda: results.exists() and len(results.read_text().splitlines()) == 1, 120, "the other case")
        (worker,) = wait_until(lambda: [pid for pid in processes_with("RAY_AUTH_TOKEN", cluster.token)
                                        if cmdline(pid).startswith(b"ray::_judge")], 30, "the held case's worker")
        servers = [pid for pid in processes_with("RAY_AUTH_TOKEN", cluster.token)
                   if b"lowercheck.diff_server" in cmdline(pid) and parent(pid) == worker]
        assert servers, "the worker runs its cases in a diff server"
        os.kill(worker, signal.SIGKILL)  # mid-case
        wait_until(lambda: not any(alive(pid) for pid in servers), 10, "the killed worker's diff server to end")
        hold.unlink()
        output, _ = command.communicate(timeout=240)
    finally:
        command.kill()
    assert command.returncode == 0, output
    found = verdicts(results)  # each case once, none lost
    assert sorted(found.values()) == sorted(cases.values())
    # The held case's verdict came from another worker: Ray ran the case again.
    text = summary.read_text()
    rows = [row for row in text.splitlines() if row.startswith("| ") and " pid " in row]
    assert f"pid {worker} " not in text and sum(int(row.split("|")[2]) for row in rows) == 2


@pytest.mark.xdist_group("ray-cluster")  # one cluster for both under `make test`
def test_a_case_past_its_time_limit_is_a_timeout_not_a_retry(tmp_path: Path, cluster: Cluster) -> None:
    # the diff's own limit (--timeout bounds the whole diff) past the case's: the case's limit stops it
    root = make_corpus(tmp_path / "corpus", {"vadd_held.py": ("equivalent", [])}, held=("vadd_held.py",),
                       args=("--timeout", "600"))
    port = root / "vector_add" / "vadd_held.py"
    port.with_suffix(".hold").touch()  # never released
    results = tmp_path / "results.jsonl"
    done = subprocess.run(corpus_command(root, results, "--ray", cluster.address, "--case-timeout", "8"),
                          env=cluster.env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr  # not judged: neither a miss nor a false positive
    ((verdict, _),) = verdicts(results).values()
    assert verdict == "timeout"
    rows = [row for row in done.stdout.splitlines() if row.startswith("| ") and " pid " in row]
    assert [int(row.split("|")[2]) for row in rows] == [1]  # one run, whose worker lived to return it: no retry


def test_without_ray_the_option_says_how_to_install_it(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "corpus", {"vadd.py": ("equivalent", [])})
    blocker = tmp_path / "no_ray"
    blocker.mkdir()
    (blocker / "ray.py").write_text("raise ImportError('no ray here')\n")  # `import ray` fails as if not installed
    done = subprocess.run(corpus_command(root, tmp_path / "r.jsonl", "--ray", "local"), capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(blocker)})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "pip install 'lowercheck[ray]'" in done.stderr and "Traceback" not in done.stderr


def test_an_address_where_no_cluster_answers_is_bad_input(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "corpus", {"vadd.py": ("equivalent", [])})
    address = f"127.0.0.1:{_free_port()}"  # nothing listens there
    results = tmp_path / "r.jsonl"
    earlier = json.dumps({"key": "an earlier run's", "tool": "lowercheck", "verdict": "equivalent"}) + "\n"
    results.write_text(earlier)
    done = subprocess.run(corpus_command(root, results, "--ray", address), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"cannot join the Ray cluster at {address}: nothing answers there" in done.stderr
    assert "--ray local" in done.stderr and "Traceback" not in done.stderr
    assert results.read_text() == earlier  # the results file is kept as it was (no error report written over it)


def test_ray_sessions_go_to_the_cache_unless_its_path_is_too_long_for_a_socket(tmp_path: Path, monkeypatch) -> None:
    short = Path(tempfile.gettempdir()).resolve() / "lc"
    monkeypatch.setenv("LOWERCHECK_CACHE_DIR", str(short))
    assert ray_corpus.temp_dir() == short / "ray"
    deep = tmp_path / ("d" * 60)
    monkeypatch.setenv("LOWERCHECK_CACHE_DIR", str(deep))
    chosen = ray_corpus.temp_dir()
    assert not chosen.is_relative_to(deep) and len(str(chosen / "session_2026-12-06_04-21-58_952901_4194304"
                                                     / "sockets" / "plasma_store")) <= 107
    assert chosen == ray_corpus.temp_dir()  # the same folder every time, for the same cache
