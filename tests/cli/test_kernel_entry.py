"""A Triton kernel as the entry ([w2 1/7]: libraries ship kernels that a dispatcher in another file
launches): named after the colon, bound by a spec whose `[launch] grid` gives its launch grid over
the sizes; lowered, compared and run like a wrapper's launch."""

from __future__ import annotations

from pathlib import Path

from support import run_lowercheck

INPUTS = Path(__file__).parent / "inputs" / "kernel_entry"
SPEC = INPUTS / "scale.toml"
KERNEL = f"{INPUTS / 'scale_kernel.py'}:scale_kernel"


def test_a_kernel_entry_lowers_on_the_spec_grid() -> None:
    done = run_lowercheck(["lower", KERNEL, "--spec", str(SPEC), "--no-loc"])
    assert done.returncode == 0, done.stderr
    assert "kernel.entry @scale_kernel" in done.stdout
    assert 'kernel.launch @scale_kernel_1 {grid = ["floor((n + 511)/512)", "1", "1"]' in done.stdout


def test_a_kernel_entry_is_equivalent_to_its_cuda_source() -> None:
    done = run_lowercheck(["diff", str(INPUTS / "scale.cu"), KERNEL, "--spec", str(SPEC)])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verdict: equivalent" in done.stdout
    assert "n=4097" in done.stdout  # the runs launched it on the grid at each size


def test_a_grid_that_misses_the_tail_is_found(tmp_path: Path) -> None:
    spec = tmp_path / "floor.toml"
    spec.write_text(SPEC.read_text().replace('grid = ["(n + 511) // 512"]', 'grid = ["n // 512"]'))
    done = run_lowercheck(["diff", str(INPUTS / "scale.cu"), KERNEL, "--spec", str(spec)])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "LC202" in done.stdout  # elements the source writes and the target never does


def test_a_kernel_without_a_grid_is_a_clear_error() -> None:
    done = run_lowercheck(["lower", KERNEL])
    assert done.returncode == 2
    assert "scale_kernel.py:8" in done.stderr and "is a kernel: launching it needs a grid" in done.stderr
    assert "[launch] grid" in done.stderr


def test_a_bad_grid_names_the_spec_line(tmp_path: Path) -> None:
    spec = tmp_path / "bad.toml"
    spec.write_text(SPEC.read_text().replace('grid = ["(n + 511) // 512"]', 'grid = ["(m + 511) // 512"]'))
    done = run_lowercheck(["lower", KERNEL, "--spec", str(spec)])
    assert done.returncode == 2
    assert f"{spec}:" in done.stderr and "names m, not in [sizes]" in done.stderr
