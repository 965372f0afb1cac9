"""The audit corpus (corpus/tasks): every seeded flaw found with its code, nothing on the well-built
tasks. Each folder holds a task (task.toml, or a bare problem .py audited with the `harness` its
expected.toml names) and `expected.toml`: `codes`, the exact set of error codes the audit must give."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from support import run_lowercheck

from lowercheck.audit import task as tasks
from lowercheck.audit.command import audit
from lowercheck.findings import Severity

TASKS = Path(__file__).parents[2] / "corpus" / "tasks"
NAMES = sorted(p.parent.name for p in TASKS.glob("*/expected.toml"))


def _expected(name: str) -> dict:
    return tomllib.loads((TASKS / name / "expected.toml").read_text())


def _task_file(name: str) -> Path:
    folder = TASKS / name
    return folder / "task.toml" if (folder / "task.toml").exists() else folder / "problem.py"


def test_the_corpus_has_what_the_issue_asks():
    """>= 30 tasks, >= 20 with a seeded flaw, >= 10 well built, and every LC6xx code seeded at least once."""
    from lowercheck.findings import CODES

    expected = {name: _expected(name) for name in NAMES}
    flawed = [n for n, e in expected.items() if e["codes"]]
    sound = [n for n, e in expected.items() if not e["codes"]]
    assert len(expected) >= 30 and len(flawed) >= 20 and len(sound) >= 10, (len(expected), len(flawed), len(sound))
    seeded = {c for e in expected.values() for c in e["codes"]}
    audit_codes = {c for c in CODES if c.startswith("LC6")}
    assert audit_codes <= seeded, f"codes no task seeds: {sorted(audit_codes - seeded)}"


@pytest.mark.parametrize("name", NAMES)
def test_audit_finds_exactly_the_seeded_flaws(name):
    expected = _expected(name)
    report = audit(tasks.load(str(_task_file(name)), expected.get("harness")))
    errors = sorted({f.code for f in report.findings if f.level == Severity.ERROR})
    assert errors == sorted(expected["codes"]), "\n".join(f"{f.code}: {f.message}" for f in report.findings)
    assert report.verdict == ("flawed" if expected["codes"] else "sound")
    for finding in report.findings:  # every finding says where, in a file that exists
        assert finding.location is not None and Path(finding.location.file).is_file(), finding


def test_cli_audits_a_bare_kernelbench_problem(tmp_path):
    """The published hole, end to end: zeros pass KernelBench's bf16 softmax at 1e-2; exit 1; JSON
    with a verdict per question and the margin of the accepted zeros."""
    out = tmp_path / "audit.json"
    problem = TASKS / "kernelbench_softmax_bf16" / "problem.py"
    result = run_lowercheck(["audit", str(problem), "--harness", "kernelbench", "--json", str(out)])
    assert result.returncode == 1, result.stdout + result.stderr
    assert "error[LC601]: the task's checker accepts an output of zeros" in result.stdout
    assert "verdict: flawed" in result.stdout
    doc = json.loads(out.read_text())
    assert doc["verdict"] == "flawed" and doc["harness"]["preset"] == "kernelbench"
    assert doc["questions"]["numerics"]["verdict"] == "flawed"
    assert "LC622" in doc["questions"]["fairness"]["codes"]
    zeros = [f for f in doc["findings"] if f["code"] == "LC601" and f["witness"]["candidate"] == "zeros"]
    assert zeros and 0 < zeros[0]["witness"]["ratio"] <= 1


def test_cli_exit_0_on_a_well_built_task():
    result = run_lowercheck(["audit", str(TASKS / "relu_sound" / "task.toml")])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "verdict: sound" in result.stdout


def test_audit_as_sarif_and_github_annotations():
    problem = str(TASKS / "kernelbench_relu_rand" / "problem.py")
    sarif = run_lowercheck(["audit", problem, "--format", "sarif"])
    assert sarif.returncode == 1, sarif.stderr
    log = json.loads(sarif.stdout)
    run = log["runs"][0]
    assert log["version"] == "2.1.0" and run["properties"]["verdict"] == "flawed"
    assert {"LC611", "LC622"} <= {r["ruleId"] for r in run["results"]}
    github = run_lowercheck(["audit", problem, "--format", "github"])
    assert any(line.startswith("::error file=") and "title=LC611" in line for line in github.stdout.splitlines())
