"""lowercheck from Python: for harness authors who want a report, not a subprocess.

```python
from lowercheck import api

report = api.diff("corpus/vector_add/vadd.cu", "corpus/vector_add/vadd.py")
assert report.verdict == "equivalent", api.explain(report)
for finding in report.findings:       # lowercheck.findings.Finding: code, message, location, witness, hint
    print(finding.code, finding.message)

audit = api.audit("corpus/tasks/relu_sound/task.toml")
print(audit.verdict, [q.verdict for q in audit.questions()])
```

`diff` and `audit` run exactly what the commands run (the user's code in child processes, never in
the caller's) and return the reports the commands print: `lowercheck.diff.Report` and
`lowercheck.audit.report.AuditReport`. Bad input raises `lowercheck.errors.UserError` (its
`render()` is the command's message); a side whose code stopped its worker raises `UserCodeStopped`.
The configuration (`[tool.lowercheck]`, `lowercheck.config`) gives the defaults of the arguments
left out, and its `ignore`/`error` lists apply as on the command line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lowercheck.audit.report import AuditReport
    from lowercheck.diff import Report


def diff(source: str | Path, target: str | Path, spec: str | Path | None = None, *,
         sizes: Mapping[str, Sequence[int]] | None = None, seed: int | None = None, run: bool = True,
         static: bool = True, timeout: float | None = None, gpu: str | None = None,
         platforms: Sequence[str] = ()) -> Report:
    """Compare `target` (the port) with `source` (the reference), as `lowercheck diff` does.

    `spec`: a spec TOML file; `sizes`: sizes to sweep, over the spec's (`{"n": [1, 1000]}`)."""
    from lowercheck import config as configuration
    from lowercheck import spec as specs
    from lowercheck.diff import DiffOptions
    from lowercheck.diff import diff as run_diff
    from lowercheck.errors import UserError
    from lowercheck.report.policy import apply_codes

    if not run and not static:
        raise UserError("run=False and static=False leave nothing to check")
    config = configuration.apply_command_line(configuration.load(), seed=seed, timeout=timeout, gpu=gpu)
    from lowercheck.frontends import absolute

    source, target = absolute(str(source)), absolute(str(target))  # the caller's folder, whatever the workers'
    loaded = specs.load(str(spec) if spec is not None else None)
    if sizes:
        loaded = loaded.with_sizes({k: list(v) for k, v in sizes.items()})
    report = run_diff(DiffOptions(str(source), str(target), loaded, seed=config["seed"], run=run, static=static,
                                  timeout_s=config["timeout"], gpu=config["gpu"], platforms=tuple(platforms)))
    apply_codes(report, config.codes_for([str(source), str(target)]))
    return report


def audit(task: str | Path, harness: str | None = None, gpu: str | None = None, timeout: float = 300.0) -> AuditReport:
    """Review a task (a task TOML file, or a problem .py with `harness`), as `lowercheck audit` does."""
    from lowercheck.audit import task as tasks
    from lowercheck.audit.command import audit as run_audit

    return run_audit(tasks.load(str(task), harness, gpu), timeout)


def explain(report) -> str:
    """The report's findings as the terminal shows them (file:line, code, message, witness, help),
    without colours: a failure message for a test."""
    import io

    from rich.console import Console

    from lowercheck.report.terminal import render_finding

    console = Console(width=120, no_color=True, file=io.StringIO())
    for finding in report.findings:
        console.print(render_finding(finding), end="")
    console.print(f"verdict: {report.verdict}")
    return console.file.getvalue()
