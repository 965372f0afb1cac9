"""The audit's report: each finding, then a verdict per question (sound / flawed / not checked, with
why), as text on the terminal and as JSON.

Exit codes as `diff`'s: 0 no flaw found, 1 flawed (an error finding), 2 unusable input,
3 inconclusive (the reference could not be run by lowercheck's own runner, and no flaw was found).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.markup import escape

from lowercheck import __version__
from lowercheck.audit.checks import QUESTIONS, Outcome
from lowercheck.audit.task import Task
from lowercheck.findings import Finding, Severity
from lowercheck.report.terminal import render_finding


@dataclass
class QuestionVerdict:
    question: str
    verdict: str  # sound | flawed | not checked
    codes: list[str]  # the error codes found
    not_checked: list[str]  # "LC621: the task times nothing", ...

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "codes": self.codes, "not_checked": self.not_checked}


@dataclass
class AuditReport:
    task: Task
    outcomes: list[Outcome]
    notes: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    inconclusive: str | None = None  # why lowercheck could not judge (its own limit)

    @property
    def findings(self) -> list[Finding]:
        return [f for o in self.outcomes for f in o.findings]

    def questions(self) -> list[QuestionVerdict]:
        verdicts = []
        for question in QUESTIONS:
            mine = [o for o in self.outcomes if o.check.question == question]
            errors = sorted({f.code for o in mine for f in o.findings if f.level == Severity.ERROR})
            skipped = [f"{o.check.code}: {o.not_checked}" for o in mine if o.not_checked]
            verdict = "flawed" if errors else ("not checked" if len(skipped) == len(mine) else "sound")
            verdicts.append(QuestionVerdict(question, verdict, errors, skipped))
        return verdicts

    @property
    def verdict(self) -> str:
        if any(f.level == Severity.ERROR for f in self.findings):
            return "flawed"
        if self.inconclusive:
            return "inconclusive"
        return "sound"

    @property
    def exit_code(self) -> int:
        return {"sound": 0, "flawed": 1, "inconclusive": 3}[self.verdict]

    def to_json(self) -> dict[str, Any]:
        harness = self.task.harness
        return {
            "lowercheck": __version__, "command": "audit", "task": str(self.task.path),
            "kind": self.task.kind, "reference": str(self.task.reference),
            "solution": str(self.task.solution) if self.task.solution else None, "target": self.task.target,
            "harness": {"preset": harness.preset, "correctness": harness.correctness.__dict__,
                        "timing": harness.timing.__dict__ if harness.timing else None, "origins": harness.origins},
            "verdict": self.verdict, "inconclusive": self.inconclusive,
            "questions": {q.question: q.to_json() for q in self.questions()},
            "findings": [f.to_json() for f in self.findings], "notes": self.notes, "facts": self.facts,
        }


def write_json(report: AuditReport, path: str) -> None:
    with open(path, "w") as out:
        json.dump(report.to_json(), out, indent=2, default=str)


_VERDICT_STYLE = {"sound": "bold green", "flawed": "bold red", "not checked": "magenta", "inconclusive": "bold magenta"}


def render(report: AuditReport, console: Console | None = None) -> None:
    console = console or Console(highlight=False, soft_wrap=True)
    task = report.task
    harness = task.harness
    console.print(f"[bold]task[/bold] {escape(str(task.path))} — {task.kind}, reference "
                  f"{escape(task.reference.name)}" + (f", solution {escape(task.solution.name)}" if task.solution else "")
                  + f", target {task.target}, harness "
                  + (f"preset {harness.preset}" if harness.preset else "as the task file gives it")
                  + ("" if harness.timing else " (times nothing)"))
    order = {Severity.ERROR: 0, Severity.INCONCLUSIVE: 1, Severity.WARNING: 2, Severity.INFO: 3}
    for finding in sorted(report.findings, key=lambda f: (order[f.level], f.code)):
        console.print(render_finding(finding), end="")
    for note in report.notes:
        console.print(f"note: {escape(note)}")
    console.print()
    for q in report.questions():
        style = _VERDICT_STYLE[q.verdict]
        detail = f" ({', '.join(q.codes)})" if q.codes else ""
        console.print(f"  [{style}]{q.verdict:<12}[/{style}] {QUESTIONS[q.question]}{detail}")
        for reason in q.not_checked:
            console.print(f"{'':16}not checked: {escape(reason)}", style="dim")
    if report.inconclusive:
        console.print(f"inconclusive: {escape(report.inconclusive)}")
    style = _VERDICT_STYLE[report.verdict]
    console.print(f"verdict: [{style}]{report.verdict}[/{style}]")
