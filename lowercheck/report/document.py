"""A diff's report as data: its JSON document, with its findings as `Finding`s.

Every output of `diff` is made from this value: the terminal text (`terminal.render`), `--json`,
SARIF and GitHub annotations; the configuration's code policy (`policy.apply_codes`) edits its
findings and notes. It comes from a fresh `Report` (`of_report`) or from the report cache
(`lowercheck.report_cache`), which stores the same document.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lowercheck.findings import Finding, Judged


@dataclass
class DiffDocument(Judged):
    data: dict[str, Any]
    findings: list[Finding]
    notes: list[str]

    @classmethod
    def of(cls, data: dict[str, Any]) -> DiffDocument:
        return cls(data, [Finding.from_json(f) for f in data["findings"]], list(data["notes"]))

    def to_json(self) -> dict[str, Any]:
        return {**self.data, "verdict": self.verdict, "notes": self.notes,
                "findings": [f.to_json() for f in self.findings]}
