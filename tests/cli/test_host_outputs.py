"""A wrapper's output that no kernel writes, computed by the wrapper's torch operations after its
launches (`partials.sum(0)`, the partial rows of a persistent kernel): the runs check its values,
and the access checks do not call it unwritten (a false LC202 on liger's DyT backward). An output
the wrapper allocates and leaves unwritten is still LC202."""

from __future__ import annotations

import json
from pathlib import Path

from support import run_lowercheck

TRITON_INPUTS = Path(__file__).parents[1] / "frontends" / "triton" / "inputs"

REFERENCE = '''import torch


def column_sums(x):
    return x.sum(0), x.sum(0)
'''

SPEC = '''[sizes]
rows = [1, 9]
cols = [5, 100]

[args.x]
shape = ["rows", "cols"]
dtype = "float32"
'''


def test_only_the_output_no_operation_writes_is_unwritten(tmp_path: Path) -> None:
    (tmp_path / "ref.py").write_text(REFERENCE)
    (tmp_path / "spec.toml").write_text(SPEC)
    report = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(tmp_path / "ref.py"), str(TRITON_INPUTS / "host_sum.py"),
                           "--spec", str(tmp_path / "spec.toml"), "--json", str(report)])
    assert done.returncode == 1, done.stdout + done.stderr
    doc = json.loads(report.read_text())
    unwritten = {f["buffer"] for f in doc["findings"] if f["code"] == "LC202"}
    assert unwritten == {"return1"}, doc["findings"]
    assert any("computes `return0` with torch operations of its wrapper" in n for n in doc["notes"]), doc["notes"]
    # The runs check the host-computed output's values: right there, poison in the unwritten one.
    assert doc["runs"] and not [f for f in doc["findings"] if f["buffer"] == "return0"], doc["findings"]
    assert {f["buffer"] for f in doc["findings"] if f["code"] == "LC303"} == {"return1"}
