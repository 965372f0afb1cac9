"""A wrapper's returned outputs by the variable in its `return` statement ([w2 2/7]): the IR
carries the name (`variable = "total"`), a returned output whose variable is the name of an output
of the other side is that one's counterpart whatever the order, and a spec may name a returned
output (by its variable or as `return0`) but not give it a value or an input's role."""

from __future__ import annotations

import json
from pathlib import Path

from support import run_lowercheck

INPUTS = Path(__file__).parent / "inputs"


def test_outputs_pair_by_their_returned_names(tmp_path: Path) -> None:
    """The reference returns (biggest, total); the CUDA side's parameters are (total, biggest)."""
    report = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(INPUTS / "row_stats.cu"), str(INPUTS / "row_stats_ref.py"),
                           "--spec", str(INPUTS / "row_stats.toml"), "--json", str(report)])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "return0 (biggest):out[m]" in done.stdout and "return1 (total):out[m]" in done.stdout
    doc = json.loads(report.read_text())
    assert not [f for f in doc["findings"] if f["severity"] == "error"], doc["findings"]


def test_the_ir_names_the_returned_variables() -> None:
    done = run_lowercheck(["lower", str(INPUTS / "row_stats_ref.py"), "--spec", str(INPUTS / "row_stats.toml"),
                           "--no-loc"])
    assert done.returncode == 0, done.stderr
    assert 'name = "return0", kind = "buffer", role = "out", element_type = f32, shape = ["m"], variable = "biggest"' \
        in done.stdout


def _spec(tmp_path: Path, extra: str) -> Path:
    spec = tmp_path / "spec.toml"
    spec.write_text((INPUTS / "row_stats.toml").read_text() + extra)
    return spec


def test_a_spec_may_name_a_returned_output(tmp_path: Path) -> None:
    """`largest` is only the reference's returned variable (no parameter of either side): the spec
    may describe it, and it still pairs with `biggest`, the one output no name claims."""
    ref = tmp_path / "ref.py"
    ref.write_text((INPUTS / "row_stats_ref.py").read_text().replace("biggest", "largest"))
    for extra in ('[args.largest]\nshape = ["m"]\ndtype = "float32"\n', '[args.return1]\nrole = "out"\n'):
        done = run_lowercheck(["diff", str(INPUTS / "row_stats.cu"), str(ref), "--spec", str(_spec(tmp_path, extra))])
        assert done.returncode == 0, done.stdout + done.stderr
        assert "return0 (largest):out[m]" in done.stdout


def test_a_returned_output_is_no_input(tmp_path: Path) -> None:
    spec = _spec(tmp_path, '[args.return0]\nrole = "in"\n')
    done = run_lowercheck(["diff", str(INPUTS / "row_stats.cu"), str(INPUTS / "row_stats_ref.py"), "--no-run",
                           "--spec", str(spec)])
    assert done.returncode == 2, done.stdout + done.stderr
    assert "`return0`, an output an entry returns" in done.stderr and "spec.toml:" in done.stderr
