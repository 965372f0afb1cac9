"""`lowercheck audit TASK`: load the task, probe its reference in a sandboxed child, run every check,
report. The stages: `task.load` -> `probe.run` -> `checks.run_all` -> `report`.
"""

from __future__ import annotations

import re
from pathlib import Path

from lowercheck.audit import probe as probing
from lowercheck.audit.checks import Context, run_all
from lowercheck.audit.report import AuditReport
from lowercheck.audit.task import Task
from lowercheck.errors import SourceLocation
from lowercheck.findings import Finding
from lowercheck.perf.targets import get_target

# What the probe's facts put in the report's JSON (the rest is for the checks).
_REPORTED_FACTS = ("entry", "trials_run", "variants", "trial_shapes", "deterministic", "inputs_vary",
                   "identity_ops", "softmax_peak", "mutated_inputs", "init_random", "timing", "skipped")


def audit(task: Task, timeout_s: float = 300.0) -> AuditReport:
    from lowercheck import cuda_on_cpu

    target = get_target(task.target)
    cuda_on_cpu.set_target(task.target if target.sm is not None else cuda_on_cpu.DEFAULT_TARGET)
    notes: list[str] = []
    if task.reference.suffix != ".py":
        notes.append(f"{task.reference.name} is not a PyTorch reference: the checks that run the reference "
                     "(numerics, inputs) are not checked")
        probe = probing.Probe({}, [], "the reference is not a PyTorch file", "runner")
    else:
        native = cuda_on_cpu.real_cuda_available()
        probe = probing.run(task, timeout_s, time_natively=native and task.harness.timing is not None)
        if not native and task.harness.timing is not None:
            notes.append("no CUDA device here: the timing checks use the target's datasheet figures; the measured "
                         "ones (warm and cold L2, launch cost, noise) are not checked here")
    context = Context(task, probe, target)
    report = AuditReport(task, run_all(context), notes)
    compiled = context.extra.get("compile")
    if compiled:  # what the compile checks could not compile, and why
        report.notes += [n for n in compiled[1] if "nothing to compile" not in n]
    report.facts = {k: probe.facts[k] for k in _REPORTED_FACTS if k in probe.facts}
    report.facts["meta"] = probe.meta
    if probe.error:
        if probe.error_kind in ("runner", "oom", "timeout"):  # lowercheck's CPU runs, not the task, hit a limit
            report.inconclusive = (f"lowercheck could not run the reference here ({probe.error_kind}): "
                                   f"{probe.error.strip().splitlines()[0]}")
        else:  # the task's own code failed, hung or ran out of memory: a flaw of the task
            from lowercheck.audit.checks import Check, Outcome

            first = probe.error.strip().splitlines()[0]
            where = re.match(r"(.+?):(\d+): ", first)
            location = (SourceLocation(where.group(1), int(where.group(2))) if where and Path(where.group(1)).is_file()
                        else task.location("reference"))
            failure = Finding("LC902", f"the task's reference does not run ({probe.error_kind}): "
                                       f"{first[where.end():] if where else first}",
                              location=location, hint="run the problem file alone to reproduce")
            report.outcomes.append(Outcome(Check("LC902", "validity", "the reference runs", lambda c: []), [failure]))
    return report
