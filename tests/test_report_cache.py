"""A static diff's report is reused while nothing it depends on changed (lowercheck/report_cache.py):
the second run gives the same output without importing the diff's machinery; an edited file it
depends on (the side, a header it includes, a Python file beside it, the spec) makes it compute
again; a diff with runs, `--no-reuse` and a torn entry are never answered from the cache."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
CORPUS = ROOT / "corpus"
# Runs the CLI in a fresh process and says on stderr whether the diff's machinery was imported
# (xDSL: every lowering needs it), i.e. whether the report was computed or reused.
_DRIVER = """
import sys
from lowercheck.cli import main
code = main(sys.argv[1:])
print("COMPUTED" if "xdsl" in sys.modules else "REUSED", file=sys.stderr)
sys.exit(code)
"""


def _diff(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "LOWERCHECK_CACHE_DIR": str(tmp_path / "cache"), "LOWERCHECK_REUSE_REPORTS": "1",
           "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-c", _DRIVER, "diff", *args], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=300)


def _how(done: subprocess.CompletedProcess) -> str:
    return done.stderr.strip().splitlines()[-1]


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    """vector_add's CUDA source with its block size in a header of its own, and a Triton port
    without a mask, copied where the test may edit them."""
    work = tmp_path / "work"
    work.mkdir()
    cuda = (CORPUS / "vector_add" / "vadd.cu").read_text()
    assert "256" in cuda
    (work / "block.cuh").write_text("#define BLOCK 256\n")
    (work / "vadd.cu").write_text('#include "block.cuh"\n' + cuda.replace("256", "BLOCK"))
    shutil.copy(CORPUS / "vector_add" / "vadd_no_mask.py", work / "port.py")
    return work / "vadd.cu", work / "port.py"


def test_an_unchanged_static_diff_is_reused_with_the_same_report(tmp_path, pair, in_process):
    cuda, port = pair
    first = _diff(tmp_path, str(cuda), str(port), "--no-run", "--json", str(tmp_path / "first.json"))
    second = _diff(tmp_path, str(cuda), str(port), "--no-run", "--json", str(tmp_path / "second.json"))
    assert (first.returncode, _how(first)) == (1, "COMPUTED"), first.stderr
    assert (second.returncode, _how(second)) == (1, "REUSED"), second.stderr
    assert first.stdout == second.stdout and "LC201" in second.stdout
    assert json.loads((tmp_path / "first.json").read_text()) == json.loads((tmp_path / "second.json").read_text())
    for form in ("sarif", "github"):  # every output format is made from the reused document
        fresh = in_process(str(cuda), str(port), "--no-run", "--format", form, "--no-reuse")
        reused = in_process(str(cuda), str(port), "--no-run", "--format", form)
        assert fresh[0] == "COMPUTED" and reused[0] == "REUSED" and fresh[2] == reused[2]


@pytest.fixture
def in_process(tmp_path, monkeypatch):
    """`lowercheck diff ARGS` in this process (workers kept warm), reuse on: "COMPUTED" when the diff
    ran its pipeline, "REUSED" when the report came from the cache, and the exit code."""
    from support import run_lowercheck

    from lowercheck import cli

    monkeypatch.setenv("LOWERCHECK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("LOWERCHECK_REUSE_REPORTS", "1")
    monkeypatch.chdir(tmp_path)  # where `_diff`'s processes run: the report's paths are relative to it
    computed = []
    real = cli._run_diff
    monkeypatch.setattr(cli, "_run_diff", lambda *a: computed.append(1) or real(*a))

    def diff(*args: str) -> tuple[str, int, str]:
        before = len(computed)
        done = run_lowercheck(["diff", *args])
        return ("COMPUTED" if len(computed) > before else "REUSED"), done.returncode, done.stdout

    return diff


def test_an_edited_dependency_makes_the_diff_compute_again(tmp_path, pair, in_process):
    cuda, port = pair
    assert in_process(str(cuda), str(port), "--no-run")[0] == "COMPUTED"
    assert in_process(str(cuda), str(port), "--no-run")[0] == "REUSED"
    (cuda.parent / "block.cuh").write_text("#define BLOCK 128\n")  # the CUDA side's include: a new geometry
    how, _, shown = in_process(str(cuda), str(port), "--no-run")
    assert how == "COMPUTED" and "floor((n + 127)/128)" in shown
    assert in_process(str(cuda), str(port), "--no-run")[0] == "REUSED"
    (port.parent / "helpers.py").write_text("SCALE = 2\n")  # a Python file the port could import
    assert in_process(str(cuda), str(port), "--no-run")[0] == "COMPUTED"
    spec = tmp_path / "spec.toml"
    spec.write_text("[sizes]\nn = [1000]\n")
    assert in_process(str(cuda), str(port), "--no-run", "--spec", str(spec))[0] == "COMPUTED"
    assert in_process(str(cuda), str(port), "--no-run", "--spec", str(spec))[0] == "REUSED"
    spec.write_text("[sizes]\nn = [1001]\n")
    assert in_process(str(cuda), str(port), "--no-run", "--spec", str(spec))[0] == "COMPUTED"


def test_runs_no_reuse_and_torn_entries_are_never_answered_from_the_cache(tmp_path, pair, in_process):
    cuda, port = pair
    spec = tmp_path / "small.toml"
    spec.write_text("[sizes]\nn = [300]\n")
    assert in_process(str(cuda), str(port), "--spec", str(spec))[0] == "COMPUTED"
    assert not (tmp_path / "cache" / "reports").exists()  # a diff with runs is not stored
    assert in_process(str(cuda), str(port), "--no-run")[0] == "COMPUTED"
    assert in_process(str(cuda), str(port), "--no-run", "--no-reuse")[0] == "COMPUTED"
    for entry in (tmp_path / "cache" / "reports").rglob("*"):
        if entry.is_file():
            entry.write_text('{"files": {')  # a torn write: computed again, never an error
    assert in_process(str(cuda), str(port), "--no-run")[:2] == ("COMPUTED", 1)
