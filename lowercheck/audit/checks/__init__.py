"""The audit's checks: one function per code, registered with the question it answers.

A check takes the `Context` (the task, what the probe returned, the target) and returns its
findings, or raises `NotChecked` with the reason (no GPU here, the reference did not run, the task
times nothing). `run_all` runs every check in code order; `lowercheck.audit.report` turns the
outcomes into a verdict per question.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from lowercheck.audit.probe import Probe
from lowercheck.audit.task import Task
from lowercheck.findings import Finding
from lowercheck.perf.targets import Target

QUESTIONS = {
    "numerics": "numerical correctness: are the tolerance and the reference right for the op and precision?",
    "fairness": "benchmark fairness: would the timing reward a better kernel?",
    "scoping": "scoping: is the task tight enough to have one clear solution?",
    "validity": "validity: will it compile and run on the target?",
}


class NotChecked(Exception):
    """The check could not run here: the message says why."""


@dataclass
class Context:
    task: Task
    probe: Probe
    target: Target
    # findings of other stages that a check may read (the solution's diff, the compile checks)
    extra: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Check:
    code: str
    question: str
    title: str
    run: Callable[[Context], list[Finding]]


@dataclass
class Outcome:
    check: Check
    findings: list[Finding]
    not_checked: str | None = None


CHECKS: list[Check] = []


def check(code: str, question: str, title: str):
    def register(func: Callable[[Context], list[Finding]]):
        CHECKS.append(Check(code, question, title, func))
        return func

    return register


def run_all(context: Context) -> list[Outcome]:
    from lowercheck.audit.checks import fairness, numerics, scoping, validity  # noqa: F401 - they register

    outcomes = []
    for item in sorted(CHECKS, key=lambda c: c.code):
        try:
            outcomes.append(Outcome(item, item.run(context)))
        except NotChecked as reason:
            outcomes.append(Outcome(item, [], str(reason)))
    return outcomes


def needs_runs(context: Context) -> None:
    """NotChecked unless the reference ran on the task's inputs."""
    probe = context.probe
    if probe.error:
        raise NotChecked(f"the reference did not run: {probe.error.splitlines()[0]}")
    if probe.facts.get("skipped"):
        raise NotChecked(f"not run here: {probe.facts['skipped']}")
    if not probe.trials:
        raise NotChecked("the reference did not run")


def needs_deterministic(context: Context) -> None:
    """NotChecked unless the reference ran and gives the same bits twice (comparisons with a moving
    reference mean nothing: LC604 says so)."""
    needs_runs(context)
    if context.probe.facts.get("deterministic") is False:
        raise NotChecked("the reference is nondeterministic (LC604): no answer can be compared with it")


def needs_timing(context: Context):
    timing = context.task.harness.timing
    if timing is None:
        raise NotChecked("the task times nothing (no [harness.timing])")
    return timing
