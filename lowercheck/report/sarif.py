"""SARIF 2.1.0: the findings of a diff or an audit as code-scanning tools, CI systems and editors read them.

One run, one result per finding. The rules are the finding codes that occur, with their
documentation (`lowercheck.findings.CODES`: title as the short description, the page as the help);
a result's location is the finding's file:line:column, its other side's is a related location.
Levels: error -> "error", warning and inconclusive -> "warning", info -> "note". Witness, evidence
and side stay in the result's property bag.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lowercheck import __version__
from lowercheck.errors import SourceLocation
from lowercheck.findings import CODES, Finding, Severity

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INCONCLUSIVE: "warning",
           Severity.INFO: "note"}


def document(findings: Sequence[Finding], verdict: str, command: str, notes: Sequence[str] = ()) -> dict[str, Any]:
    """The SARIF log of one lowercheck command (`diff`, `audit`)."""
    codes = sorted({f.code for f in findings if f.code in CODES})
    index = {code: i for i, code in enumerate(codes)}
    results = [_result(f, index) for f in findings]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "lowercheck",
                "version": __version__,
                "informationUri": "https://pypi.org/project/lowercheck/",
                "rules": [_rule(code) for code in codes],
            }},
            "invocations": [{
                "executionSuccessful": verdict != "error",
                "commandLine": f"lowercheck {command}",
                "toolExecutionNotifications": [{"level": "note", "message": {"text": note}} for note in notes],
            }],
            "results": results,
            "properties": {"verdict": verdict},
        }],
    }


def write(findings: Sequence[Finding], verdict: str, command: str, path: str, notes: Sequence[str] = ()) -> None:
    with open(path, "w") as out:
        json.dump(document(findings, verdict, command, notes), out, indent=2, default=str)


def _rule(code: str) -> dict[str, Any]:
    info = CODES[code]
    name = "".join(word.capitalize() for word in info.title.replace("/", " ").replace("-", " ").split()
                   if word.isalnum())
    return {
        "id": code,
        "name": name or code,
        "shortDescription": {"text": info.title},
        "fullDescription": {"text": info.doc.split("\n\n")[0].removeprefix("What it checks: ")},
        "help": {"text": info.doc, "markdown": info.doc},
        "defaultConfiguration": {"level": _LEVELS[info.severity]},
        "properties": {"severity": str(info.severity)},
    }


def _result(finding: Finding, index: dict[str, int]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "level": _LEVELS[finding.level],
        "message": {"text": finding.message + (f" (help: {finding.hint})" if finding.hint else "")},
        "properties": {"severity": str(finding.level), "side": finding.side, "buffer": finding.buffer,
                       "evidence": finding.evidence, "witness": finding.witness},
    }
    if finding.code in index:
        result["ruleIndex"] = index[finding.code]
    if finding.location is not None:
        result["locations"] = [{"physicalLocation": _physical(finding.location)}]
    if finding.other_location is not None:
        result["relatedLocations"] = [{"id": 1, "physicalLocation": _physical(finding.other_location),
                                       "message": {"text": "the same access on the other side"}}]
    return result


def _physical(location: SourceLocation) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": Path(location.file).resolve().as_uri()}}
    if location.line > 0:
        region: dict[str, Any] = {"startLine": location.line}
        if location.column > 0:
            region["startColumn"] = location.column
        physical["region"] = region
    return physical
