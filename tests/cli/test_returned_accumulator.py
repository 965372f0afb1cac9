"""A destination-passing output of shape [1] (a reduction into out[0], zeroed by its caller)
corresponds to a returned 0-d or one-element tensor ([w2 2/7]): the side that returns takes only the
pure inputs, the accumulator starts at zero in the runs (a note says so), and both directions are
equivalent; a port that returns the wrong total is still different."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import run_lowercheck

INPUTS = Path(__file__).parent / "inputs"
SPEC = INPUTS / "sum_atomic.toml"


@pytest.mark.parametrize(("source", "target"), [("sum_atomic.cu", "sum_returned.py"),
                                                ("sum_ref.py", "sum_atomic.cu")])
def test_an_accumulator_against_a_returned_total(source: str, target: str, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(INPUTS / source), str(INPUTS / target), "--spec", str(SPEC),
                           "--json", str(report)])
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(report.read_text())
    assert any("start at zero in the runs" in n for n in doc["notes"]), doc["notes"]
    assert doc["runs"] and all(r["status"] == "ok" for r in doc["runs"])


def test_a_returned_total_that_is_wrong(tmp_path: Path) -> None:
    wrong = tmp_path / "sum_half.py"
    wrong.write_text((INPUTS / "sum_returned.py").read_text().replace("tl.atomic_add(out_ptr, tl.sum(",
                                                                      "tl.atomic_add(out_ptr, 0.5 * tl.sum("))
    report = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(INPUTS / "sum_atomic.cu"), str(wrong), "--spec", str(SPEC), "--no-static",
                           "--json", str(report)])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "LC301" in {f["code"] for f in json.loads(report.read_text())["findings"]}
