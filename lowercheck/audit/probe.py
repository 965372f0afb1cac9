"""Run the task's reference under probes in a sandboxed child (`lowercheck.runners.task_probe`) and
hand the checks what it returned: per trial the inputs, the reference's outputs, the float64
oracle's and each variant's, and the facts of the operator trace.

Nothing of the task's code runs in lowercheck's own process: the child has a time and a memory
limit, and a reference that fails, hangs or exhausts memory becomes a `Probe` with `error` set
(the checks that need the runs then say "not checked" with the reason).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lowercheck.audit.task import Task
from lowercheck.runners.task_probe import VARIANTS

BUDGET_S = 60.0  # seconds of reference calls the runs may take (trials are cut to fit)
BUDGET_ELEMENTS = 2**25  # input elements above which the task's inputs are not materialised here
BUDGET_FLOPS = 4e10  # FLOPs of one call above which the reference is not run here
MEMORY_MB = 6144


@dataclass
class Trial:
    inputs: list[np.ndarray]
    reference: list[np.ndarray]
    oracle: list[np.ndarray]
    variants: dict[str, list[np.ndarray]] = field(default_factory=dict)


@dataclass
class Probe:
    facts: dict[str, Any]
    trials: list[Trial]
    error: str | None = None  # the reference could not be probed: why
    error_kind: str | None = None  # user (the task's code failed) | timeout | oom | crash | runner

    @property
    def ran(self) -> bool:
        """Whether the reference ran on the task's inputs (the numerical checks need it)."""
        return self.error is None and bool(self.trials)

    @property
    def meta(self) -> dict[str, Any]:
        return self.facts.get("meta", {})

    def variant(self, name: str) -> list[list[np.ndarray]] | None:
        """The variant's outputs per trial, or None when it was not computed in every trial run."""
        found = [t.variants.get(name) for t in self.trials]
        return None if not found or any(v is None for v in found) else found  # type: ignore[return-value]


def run(task: Task, timeout_s: float = 300.0, time_natively: bool = False) -> Probe:
    from lowercheck.runners.base import RunRequest
    from lowercheck.runners.sandbox import run_isolated

    correctness = task.harness.correctness
    request = RunRequest(
        language="task", path=str(task.reference), entry=task.entry or "", ir=None, args={},
        options={"trials": correctness.trials, "seeding": correctness.seed, "seed": 42,
                 "seed_init": correctness.seed_init, "variants": list(VARIANTS), "budget_s": BUDGET_S,
                 "budget_elements": BUDGET_ELEMENTS, "budget_flops": BUDGET_FLOPS,
                 "time_natively": time_natively, "inputs": correctness.input_list()})
    result = run_isolated(request, timeout_s=timeout_s, memory_mb=MEMORY_MB)
    if result.error:
        return Probe(result.facts, [], result.error, result.error_kind)
    trials = []
    for t in range(int(result.facts.get("trials_run", 0))):
        def series(prefix: str) -> list[np.ndarray]:
            found = []
            while f"{prefix}{len(found)}" in result.outputs:
                found.append(result.outputs[f"{prefix}{len(found)}"])
            return found

        inputs = [result.outputs[k] for k in sorted((k for k in result.outputs if k.startswith(f"trial{t}/input")),
                                                    key=lambda k: int(k.rsplit("input", 1)[1]))]
        trial = Trial(inputs, series(f"trial{t}/reference"), series(f"trial{t}/oracle"))
        for name in result.facts.get("variants", []):
            outs = series(f"trial{t}/variant/{name}/")
            if outs:
                trial.variants[name] = outs
        trials.append(trial)
    return Probe(result.facts, trials)
