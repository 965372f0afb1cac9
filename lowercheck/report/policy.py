"""The configuration's say over codes: ignored codes leave the report (a note says which), promoted
codes become errors (and so decide the verdict). Applied after the checks, before the report prints."""

from __future__ import annotations

import dataclasses
from collections import Counter

from lowercheck.findings import Finding, Severity


def apply_codes(report, codes: tuple[set[str], set[str]]) -> None:
    """`report` (a diff report with a `findings` list, or an audit report whose findings live in its
    checks' `outcomes`) with `codes` = (ignore, error); its `notes` say what changed."""
    ignore, error = codes
    if not ignore and not error:
        return
    dropped: Counter[str] = Counter()
    promoted: Counter[str] = Counter()

    def kept(findings: list[Finding]) -> list[Finding]:
        out = []
        for finding in findings:
            if finding.code in ignore:
                dropped[finding.code] += 1
            elif finding.code in error and finding.level != Severity.ERROR:
                promoted[finding.code] += 1
                out.append(dataclasses.replace(finding, severity=Severity.ERROR))
            else:
                out.append(finding)
        return out

    if hasattr(report, "outcomes"):
        for outcome in report.outcomes:
            outcome.findings = kept(outcome.findings)
    else:
        report.findings[:] = kept(report.findings)
    if dropped:
        report.notes.append("ignored by the configuration: " + ", ".join(f"{c} x{n}" for c, n in sorted(dropped.items())))
    if promoted:
        report.notes.append("promoted to errors by the configuration: "
                            + ", ".join(f"{c} x{n}" for c, n in sorted(promoted.items())))
