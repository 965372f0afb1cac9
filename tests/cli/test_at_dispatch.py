"""A launch inside `AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), ...)` ([w2 1/7]: host launchers as
people write them): the dispatch's lambda is read in place, `x.scalar_type()` is the binding's dtype
(the spec's, else float32), and the kernel is the instance for that type."""

from __future__ import annotations

from pathlib import Path

from support import run_lowercheck

INPUTS = Path(__file__).parent / "inputs" / "dispatch"


def test_the_dispatch_launches_the_float_instance() -> None:
    done = run_lowercheck(["lower", str(INPUTS / "relu.cu"), "--no-loc"])
    assert done.returncode == 0, done.stderr
    assert 'kernel.launch @relu_kernel_float {grid = ["floor((x_numel + 255)/256)", "1", "1"]' in done.stdout


def test_the_specs_dtype_chooses_the_instance(tmp_path: Path) -> None:
    spec = tmp_path / "double.toml"
    spec.write_text('[sizes]\nn = [1000]\n[args.x]\nshape = ["n"]\ndtype = "float64"\n')
    done = run_lowercheck(["lower", str(INPUTS / "relu.cu"), "--spec", str(spec), "--no-loc"])
    assert done.returncode == 0, done.stderr
    assert "kernel.launch @relu_kernel_double" in done.stdout and "element_type = f64" in done.stdout


def test_a_dispatched_kernel_is_checked_against_its_reference(tmp_path: Path) -> None:
    done = run_lowercheck(["diff", str(INPUTS / "relu_ref.py"), str(INPUTS / "relu.cu")])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verdict: equivalent" in done.stdout
    broken = tmp_path / "relu.cu"
    broken.write_text((INPUTS / "relu.cu").read_text().replace("if (i < n)", "if (i < n - 1)"))
    done = run_lowercheck(["diff", str(INPUTS / "relu_ref.py"), str(broken)])
    assert done.returncode == 1 and "verdict: different" in done.stdout, done.stdout + done.stderr
