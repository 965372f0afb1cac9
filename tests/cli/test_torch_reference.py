"""A PyTorch reference as a side of `lowercheck diff`: a KernelBench problem (`class Model`,
`get_inputs()`) against its `ModelNew` (CUDA through load_inline), with no spec file. The solution
module is run whole with the problem's interface (the reference's export ties the sizes together:
bias has as many elements as x has columns), get_inputs()'s sizes are the task's run, and the
reference in float64 is the oracle."""

from __future__ import annotations

import json
from pathlib import Path

from support import run_lowercheck

INPUTS = Path(__file__).parent / "inputs"
MODELNEW = Path(__file__).parents[1] / "frontends" / "cuda" / "inputs" / "kernelbench_relu.py"


def test_kernelbench_problem_against_its_modelnew_without_a_spec(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(INPUTS / "bias_relu_problem.py"),
                           str(MODELNEW), "--json", str(out)])
    doc = json.loads(out.read_text())
    assert doc["source"]["language"] == "torch" and doc["target"]["language"] == "module"
    assert doc["target"]["entry"] == "ModelNew"
    shapes = {p["name"]: p["shape"] for p in doc["target"]["params"]}
    assert shapes == {"x": ["x_size0", "x_size1"], "bias": ["x_size1"], "return0": ["x_size0", "x_size1"]}
    assert any(r["sizes"] == {"x_size0": 24, "x_size1": 200} for r in doc["runs"])  # get_inputs()' sizes
    assert any("reference in float64" in n for n in doc["notes"])
    # The kernel's `v > 0 ? v : 0` turns NaN into 0 where torch.relu keeps it: a difference at NaN
    # inputs only, so a warning naming both values; every run on finite inputs agrees: equivalent.
    assert not [f for f in doc["findings"] if f["severity"] == "error"], done.stdout
    (nonfinite,) = [f for f in doc["findings"] if f["code"] == "LC302"]
    assert nonfinite["severity"] == "warning" and nonfinite["witness"]["inputs"] == "special"
    assert nonfinite["witness"]["nonfinite_inputs"] and "treat non-finite inputs differently" in nonfinite["message"]
    assert all(r["status"] == "ok" for r in doc["runs"] if r["inputs"] != "special")
    assert done.returncode == 0
