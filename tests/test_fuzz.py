"""`make fuzz` (lowercheck/fuzz.py): mutants are the same for a seed, every kind changes something,
the checks catch each way of failing, and a fast slice of the real thing passes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lowercheck import fuzz

ROOT = Path(__file__).parents[1]


def _files(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None for p in sorted(folder.rglob("*"))}


def test_a_mutant_is_the_same_for_a_seed(tmp_path: Path) -> None:
    pool, _ = fuzz.cases()
    for index in (0, 7, 40):
        a = fuzz.make_mutant(3, index, pool, tmp_path / "a")
        b = fuzz.make_mutant(3, index, pool, tmp_path / "b")
        assert (a.case, a.kind, a.role, a.what, a.mode, a.process) == (b.case, b.kind, b.role, b.what, b.mode, b.process)
        assert [arg.replace(str(tmp_path / "a"), "") for arg in a.argv] == \
               [arg.replace(str(tmp_path / "b"), "") for arg in b.argv]
        assert _files(Path(a.folder)) == _files(Path(b.folder))


def test_every_kind_changes_a_file_or_the_command_line(tmp_path: Path) -> None:
    pool, _ = fuzz.cases()
    seen = set()
    for index in range(len(fuzz.KINDS) * 3):
        mutant = fuzz.make_mutant(5, index, pool, tmp_path / "m")
        if mutant.kind in seen:
            continue
        seen.add(mutant.kind)
        case = next(c for c in pool if c.label == mutant.case)
        plain = fuzz.unmutated(mutant, pool, 5, tmp_path / "plain")
        changed = _files(Path(mutant.folder)) != _files(case.folder) or _names(mutant.argv) != _names(plain.argv)
        assert changed, (mutant.kind, mutant.what)
    assert seen == set(fuzz.KINDS)


def _names(argv: list[str]) -> list[str]:
    return [Path(a).name if "/" in a else a for a in argv]


@pytest.mark.parametrize("code, stdout, stderr, failure", [
    (None, "", "", "a hang"),
    (-11, "", "", "outside 0-3"),
    (139, "", "", "outside 0-3"),
    (1, "Traceback (most recent call last):\n  File ...", "", "traceback"),
    (2, "", "error: internal error in lowercheck: KeyError: 'x'", "internal error"),
    (2, "", "error: no entry point found in /tmp/k.cu\n  help: ...", "without a file:line"),
    (2, "", "/tmp/k.cu:0: error: something", "without a file:line"),
    (2, "", "error: something about /tmp/k.cu:12", "without a file:line"),  # a path in the text is no location
])
def test_the_checks_catch_each_failure(code, stdout: str, stderr: str, failure: str) -> None:
    assert any(failure in f for f in fuzz.check(code, stdout, stderr, 10.0))


@pytest.mark.parametrize("stderr", [
    "/tmp/run/m1/vadd.cu:12:5: error: expected ';'",
    "/tmp/run/m1/spec.toml:3: error: size `n` = 10 is past ...",
    "vadd.py:1: error: no entry `x` in vadd.py",
    "error: bad --size `n=-1`\n  help: write --size NAME=V1,V2,...",
])
def test_an_exit_2_with_a_line_or_its_option_passes(stderr: str) -> None:
    assert fuzz.check(2, "", stderr, 10.0) == []


def test_a_process_left_behind_is_found_by_its_tag_and_ended() -> None:
    """The tag is in the environment, which a process keeps whatever session it moves to."""
    tag = f"test.{os.getpid()}"
    child = subprocess.Popen([sys.executable, "-c", "import os, time; os.setsid(); time.sleep(60)"],
                             env={**os.environ, fuzz.TAG: tag})
    try:
        deadline = time.monotonic() + 10
        while child.pid not in fuzz.tagged(tag) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = fuzz.left_behind(tag, grace_s=0.5)
        assert len(left) == 1 and left[0].startswith(f"pid {child.pid}:")
        assert child.wait(10) != 0  # killed
        assert fuzz.left_behind(tag, grace_s=0.1) == []
    finally:
        if child.poll() is None:
            child.kill()


@pytest.mark.xdist_group("fuzz")
def test_a_fast_slice_of_make_fuzz(tmp_path: Path) -> None:
    """13 mutants of a fixed seed, one of each kind (`fuzz.KINDS`, dealt in turn), each static or with
    runs, in the server or in a fresh process by `make fuzz`'s shares: no traceback, internal error,
    hang, exit outside 0-3, exit 2 without file:line, changed input or process left behind (`make
    fuzz` runs 2,000)."""
    out, log = tmp_path / "fuzz.md", tmp_path / "fuzz.jsonl"
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "lowercheck.fuzz", "--seed", "1", "--count", str(len(fuzz.KINDS)), "-j", "2",
                           "--out", str(out), "--log", str(log)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    seconds = time.monotonic() - began
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    report = out.read_text()
    assert "**failures: 0**" in report and all(f"| {kind} |" in report for kind in fuzz.KINDS)
    assert len(log.read_text().splitlines()) == len(fuzz.KINDS)
    assert seconds < 240, f"the slice took {seconds:.0f} s"
