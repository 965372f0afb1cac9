"""Shared findings are not differences ([w2 2/7] item 5): a fault both sides have in the same way (the
same output elements unwritten, statically and in the runs) is one warning "both sides", and the
verdict comes from what only one side does; a port that leaves more unwritten still differs."""

from __future__ import annotations

import json
from pathlib import Path

from support import run_lowercheck

from lowercheck.findings import Finding, Severity
from lowercheck.judge import merge_shared

INPUTS = Path(__file__).parent / "inputs"


def _diff(target: str, tmp_path: Path) -> tuple[int, dict]:
    out = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(INPUTS / "vadd_floored.cu"), str(INPUTS / target),
                           "--spec", str(INPUTS / "vadd_floored.toml"), "--json", str(out)])
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(out.read_text())


def test_the_same_unwritten_tail_on_both_sides_is_a_warning(tmp_path: Path) -> None:
    code, doc = _diff("vadd_floored.py", tmp_path)
    assert code == 0, [f["message"] for f in doc["findings"] if f["severity"] == "error"]
    shared = {f["code"]: f for f in doc["findings"] if f["witness"].get("both_sides")}
    assert set(shared) == {"LC202", "LC303"}
    assert all(f["severity"] == "warning" and f["side"] is None for f in shared.values())
    assert shared["LC202"]["message"].startswith("both sides:")


def test_a_port_that_leaves_more_unwritten_still_differs(tmp_path: Path) -> None:
    code, doc = _diff("vadd_floored_1024.py", tmp_path)
    assert code == 1
    errors = {(f["code"], f["side"]) for f in doc["findings"] if f["severity"] == "error"}
    assert ("LC202", "target") in errors and ("LC303", "target") in errors


def test_runs_that_fail_alike_on_both_sides_are_one_warning() -> None:
    def failure(side: str, kind: str) -> Finding:
        return Finding("LC902", f"the {side} failed to run ({kind}) for n=9", side=side,
                       witness={"sizes": {"n": 9}, "error_kind": kind})

    merged = merge_shared([failure("source", "timeout"), failure("target", "timeout")], {})
    assert [(f.side, f.level) for f in merged] == [(None, Severity.WARNING)]
    kept = merge_shared([failure("source", "timeout"), failure("target", "crash")], {})
    assert [f.level for f in kept] == [Severity.ERROR, Severity.ERROR]
