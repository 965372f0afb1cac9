"""The static checks have an operation budget in isl ([w2 1/7]): a relation too costly to build or
check (seen: a 6-D permute kernel ran 300 s with no output) ends them with LC901 "too complex" and an
inconclusive verdict, never a hang; the budget is lifted afterwards for whatever runs next."""

from __future__ import annotations

import json
from pathlib import Path

import islpy as isl
import pytest
from support import run_lowercheck

from lowercheck.compare import static

CORPUS = Path(__file__).parents[2] / "corpus"


def test_a_check_past_the_budget_is_too_complex(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(static, "ISL_OPERATIONS", 200)
    report = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(CORPUS / "vector_add" / "vadd.cu"), str(CORPUS / "vector_add" / "vadd.py"),
                           "--no-run", "--json", str(report)])
    assert done.returncode == 3, done.stdout + done.stderr
    doc = json.loads(report.read_text())
    (finding,) = [f for f in doc["findings"] if f["code"] == "LC901"]
    assert "too complex" in finding["message"] and "200 operations" in finding["message"]
    assert isl.DEFAULT_CONTEXT.get_max_operations() == 0  # no budget left behind


def test_the_default_budget_leaves_the_corpus_alone(tmp_path: Path) -> None:
    done = run_lowercheck(["diff", str(CORPUS / "vector_add" / "vadd.cu"), str(CORPUS / "vector_add" / "vadd.py"),
                           "--no-run"])
    assert done.returncode == 0, done.stdout + done.stderr
