"""The hostile corpus (corpus/hostile/cases.toml): kernels and ports that exit, hang, fork daemons,
allocate 50 GB, write and read where they should not, open sockets, signal lowercheck, loop forever
or write far out of bounds. Each gives its finding and exit code within --timeout, nothing is
written outside the sandbox, and no process it started is left (issue 20).

Each case is a real `python -m lowercheck` process (the point is the process: its exit code, what
it leaves behind), with a marker in its environment that every process it starts inherits, and a
home folder of its own holding a secret.

`make test` runs every case but those that wait out a time limit, and the first of these (each
takes its whole `--timeout`); `make hostile` (HOSTILE=all) runs them all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tomllib
import uuid
from pathlib import Path

import pytest
from support import marked_processes

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "corpus" / "hostile"
ALL_CASES = tomllib.loads((HOSTILE / "cases.toml").read_text())["case"]
_WAITING = [c for c in ALL_CASES if "timeout" in c]  # a case that spins or sleeps until its limit
CASES = ALL_CASES if os.environ.get("HOSTILE") == "all" else [c for c in ALL_CASES
                                                               if "timeout" not in c or c is _WAITING[0]]
MARK = "lowercheck-hostile-was-here"  # the file every writing port tries to leave
MARKER_VARIABLE = "LOWERCHECK_HOSTILE_TEST"
TIMEOUT = 60  # the diff's --timeout where the case gives none
SLACK_S = 5  # past --timeout: ending the processes, on a loaded machine (the clock counts from the start)


def _marked(marker: str) -> list[int]:
    """The processes a case started (`support.marked_processes`)."""
    return marked_processes(MARKER_VARIABLE, marker)


@pytest.mark.parametrize("case", CASES, ids=[Path(c["target"]).stem for c in CASES])
def test_a_hostile_case_is_a_finding_and_leaves_nothing(tmp_path: Path, case: dict) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    (home / "secret").write_text("the user's secret")
    marker = uuid.uuid4().hex
    env = {**os.environ, "HOME": str(home), "PWD": str(work), MARKER_VARIABLE: marker}
    report = work / "report.json"
    timeout = case.get("timeout", TIMEOUT)
    command = [sys.executable, "-m", "lowercheck", "diff", str(HOSTILE / case["source"]), str(HOSTILE / case["target"]),
               "--size", "n=100", "--timeout", str(timeout), "--json", str(report)]
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, cwd=work, env=env, timeout=timeout + 120)
    took = time.monotonic() - start
    output = done.stdout + done.stderr
    assert done.returncode == case["exit"], output
    assert "Traceback" not in output and "internal error" not in output, output
    assert took < timeout + SLACK_S, f"{took:.1f} s with --timeout {timeout}"
    assert "the user's secret" not in output
    if case["exit"] in (0, 1, 3):
        doc = json.loads(report.read_text())
        assert doc["verdict"] == case["verdict"]
        codes = {f["code"] for f in doc["findings"] if f["severity"] == "error"}
        assert set(case["codes"]) <= codes, doc["findings"]
        warned = {f["code"]: f for f in doc["findings"] if f["severity"] == "warning"}
        assert set(case.get("warnings", [])) <= set(warned), doc["findings"]
        assert case["codes"] or case.get("warnings"), "every hostile case is a finding"
        if "LC903" in case.get("warnings", []):  # the side, the stage and what it left
            left = warned["LC903"]
            assert left["side"] == "target" and "run" in left["message"] and "sleep" in left["message"], left
    else:  # bad input: the user's line and what the sandbox denied
        assert f"{Path(case['target']).name}:" in done.stderr and "Permission denied" in done.stderr, output
    # Nothing written outside the sandbox: the working directory, the home folder, /tmp, beside the port.
    for folder in (work, home, Path("/tmp"), (HOSTILE / case["target"]).parent, ROOT):
        assert not (folder / MARK).exists(), f"{case['target']} wrote {folder / MARK}"
    assert sorted(p.name for p in home.iterdir()) == ["secret"]
    # No process left: every process the case started inherited the marker.
    end = time.monotonic() + 10
    while (left := _marked(marker)) and time.monotonic() < end:
        time.sleep(0.2)
    assert not left, f"processes left by {case['target']}: {left}"


# --- the content cache under concurrent and killed diffs -------------------------------------------


def test_the_cache_is_whole_under_writers_at_once(tmp_path: Path, monkeypatch) -> None:
    """Processes writing one key at once: a reader sees a whole entry, never a mix or a part."""
    import multiprocessing

    from lowercheck import cache

    monkeypatch.setenv("LOWERCHECK_CACHE_DIR", str(tmp_path))
    texts = [str(k) * 200_000 for k in range(4)]
    context = multiprocessing.get_context("fork")
    writers = [context.Process(target=lambda t=t: [cache.put("lowered", "ab" * 32, t) for _ in range(20)])
               for t in texts]
    for writer in writers:
        writer.start()
    seen = set()
    while any(w.is_alive() for w in writers):
        if (text := cache.get("lowered", "ab" * 32)) is not None:
            seen.add(text[:1] if text in texts else "torn")
    for writer in writers:
        writer.join()
    assert "torn" not in seen and cache.get("lowered", "ab" * 32) in texts
    assert not list(tmp_path.rglob("*.part"))  # each writer's own partial file was renamed into place


def test_two_diffs_at_once_and_one_killed_leave_the_verdict_unchanged(tmp_path: Path) -> None:
    env = {**os.environ, "LOWERCHECK_CACHE_DIR": str(tmp_path / "cache")}
    vadd = ROOT / "corpus" / "vector_add"
    command = [sys.executable, "-m", "lowercheck", "diff", str(vadd / "vadd.cu"), str(vadd / "vadd_no_mask.py"),
               "--size", "n=1000"]
    killed = subprocess.Popen(command, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    finished = subprocess.Popen(command, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
    time.sleep(4)
    os.killpg(killed.pid, 9)  # mid-run: while its worker captures or its runs run
    killed.wait()
    first_out, _ = finished.communicate(timeout=300)
    again = subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert finished.returncode == again.returncode == 1, first_out + again.stdout + again.stderr
    verdict = [line for line in first_out.splitlines() if line.startswith("verdict:")]
    assert verdict and verdict == [line for line in again.stdout.splitlines() if line.startswith("verdict:")]


def test_a_diff_killed_outright_mid_run_leaves_no_process(tmp_path: Path) -> None:
    """lowercheck killed alone (SIGKILL, as by the OOM killer) while a kernel's run spins: the run's
    fork server, waiting for that run, would never read the end of its input; its watcher sees
    lowercheck gone and ends the server's namespace, the spinning run with it."""
    marker = uuid.uuid4().hex
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**os.environ, MARKER_VARIABLE: marker, "TMPDIR": str(temporary), "LOWERCHECK_CACHE_DIR": str(tmp_path / "cache")}
    command = subprocess.Popen([sys.executable, "-m", "lowercheck", "diff", str(HOSTILE / "kernels/vadd.cu"),
                                str(HOSTILE / "kernels/vadd_forever.cu"), "--size", "n=100", "--timeout", "120"],
                               env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 120
        while not any(p.name.startswith("lowercheck-batch-") for p in temporary.iterdir()):  # the runs began
            assert command.poll() is None and time.monotonic() < end
            time.sleep(0.05)
        time.sleep(1)  # the spinning run under way
    finally:
        command.kill()  # lowercheck alone, not its process group
        command.wait()
    end = time.monotonic() + 15
    while _marked(marker) and time.monotonic() < end:
        time.sleep(0.2)
    assert _marked(marker) == []
