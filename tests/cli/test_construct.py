"""A spec's `construct` ([w2 1/7]: entries that take a config object, jax's `BlockSizes`): the
object is made by the entry's own module, `NAME(**kwargs)` or `Class.factory()`, in the capture and
in every run alike."""

from __future__ import annotations

from pathlib import Path

from support import run_lowercheck

INPUTS = Path(__file__).parent / "inputs" / "construct"
SPEC = INPUTS / "scaled.toml"


def test_a_constructed_config_reaches_the_capture_and_the_runs() -> None:
    done = run_lowercheck(["diff", str(INPUTS / "reference.py"), str(INPUTS / "scaled.py"), "--spec", str(SPEC)])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verdict: equivalent" in done.stdout
    lowered = run_lowercheck(["lower", str(INPUTS / "scaled.py"), "--spec", str(SPEC), "--no-loc"])
    assert 'grid = ["floor((n + 127)/128)", "1", "1"]' in lowered.stdout  # block = 128 from the kwargs


def test_a_factory_and_a_wrong_factor(tmp_path: Path) -> None:
    spec = tmp_path / "factory.toml"
    spec.write_text(SPEC.read_text().replace('construct = "Tiles"\nkwargs = { block = 128, factor = 2.0 }',
                                             'construct = "Tiles.default"'))
    done = run_lowercheck(["lower", str(INPUTS / "scaled.py"), "--spec", str(spec), "--no-loc"])
    assert done.returncode == 0, done.stderr
    assert 'grid = ["floor((n + 255)/256)", "1", "1"]' in done.stdout
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(SPEC.read_text().replace("factor = 2.0", "factor = 3.0"))
    done = run_lowercheck(["diff", str(INPUTS / "reference.py"), str(INPUTS / "scaled.py"), "--spec", str(wrong)])
    assert done.returncode == 1, done.stdout + done.stderr  # the runs see the constructed factor


def test_a_construct_the_module_lacks_is_a_clear_error(tmp_path: Path) -> None:
    spec = tmp_path / "missing.toml"
    spec.write_text(SPEC.read_text().replace('construct = "Tiles"', 'construct = "Blocks"'))
    done = run_lowercheck(["lower", str(INPUTS / "scaled.py"), "--spec", str(spec)])
    assert done.returncode == 2
    assert "the spec constructs `Blocks`, which the entry's module does not define" in done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text(SPEC.read_text().replace('construct = "Tiles"', 'construct = "Tiles("'))
    done = run_lowercheck(["lower", str(INPUTS / "scaled.py"), "--spec", str(bad)])
    assert done.returncode == 2 and "construct names a class or function" in done.stderr
    assert f"{bad}:" in done.stderr
