"""A CUDA launcher that picks its launch by the sizes ([w2 1/7] "host launchers as people write
them"): lowered once per swept size, each launch the size chooses checked, a bug in one branch found."""

from __future__ import annotations

from pathlib import Path

from support import run_lowercheck

INPUTS = Path(__file__).parent / "inputs"
PORT = str(Path(__file__).parents[2] / "corpus" / "vector_add" / "vadd.py")


def test_a_size_dispatching_launcher_is_checked_at_each_size() -> None:
    done = run_lowercheck(["diff", str(INPUTS / "vadd_dispatch.cu"), PORT])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "captured once per size" in done.stdout and "verdict: equivalent" in done.stdout


def test_a_bug_in_the_branch_of_large_sizes_is_found(tmp_path: Path) -> None:
    """Only sizes above 1024 take the unrolled launch; its grid is made too small."""
    source = (INPUTS / "vadd_dispatch.cu").read_text()
    broken = source.replace("(n + 4 * threads - 1) / (4 * threads)", "(n + 8 * threads - 1) / (8 * threads)")
    assert broken != source
    path = tmp_path / "vadd_dispatch_broken.cu"
    path.write_text(broken)
    done = run_lowercheck(["diff", str(path), PORT])
    assert done.returncode == 1 and "verdict: different" in done.stdout, done.stdout + done.stderr
    assert "LC202" in done.stdout  # elements the too-small grid leaves unwritten
