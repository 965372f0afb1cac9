"""GitHub Actions workflow commands: one annotation per finding (`--format github`).

`::error file=port.py,line=42,col=17,title=LC201 out-of-bounds access::message`, with the escapes
GitHub's workflow-command syntax requires (`%`, CR and LF in the message; also `:` and `,` in
property values). Levels: error -> error, warning and inconclusive -> warning, info -> notice.
"""

from __future__ import annotations

from collections.abc import Iterable

from lowercheck.findings import CODES, Finding, Severity

_COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INCONCLUSIVE: "warning",
             Severity.INFO: "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    title = f"{finding.code} {CODES[finding.code].title}" if finding.code in CODES else finding.code
    props = []
    if finding.location is not None:
        props.append(f"file={_property(finding.location.file)}")
        if finding.location.line > 0:
            props.append(f"line={finding.location.line}")
        if finding.location.column > 0:
            props.append(f"col={finding.location.column}")
    props.append(f"title={_property(title)}")
    message = finding.message + (f"\nhelp: {finding.hint}" if finding.hint else "")
    return f"::{_COMMANDS[finding.level]} {','.join(props)}::{_data(message)}"


def lines(findings: Iterable[Finding], verdict: str) -> list[str]:
    """Every finding's annotation, then the verdict as a notice."""
    return [annotation(f) for f in findings] + [f"::notice title=lowercheck::verdict: {_data(verdict)}"]
