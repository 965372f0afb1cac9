"""A diff's report as data: its JSON document, with its findings as `Finding`s.

Every output of `diff` is made from this value: the terminal text (`terminal.render`), `--json`,
SARIF and GitHub annotations; the configuration's code policy (`policy.apply_codes`) edits its
findings and notes. It comes from a fresh `Report` (`of_report`) or from the report cache
(`lowercheck.report_cache`), which stores the same document.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lowercheck.findings import EXIT_CODES, Finding, verdict_of


@dataclass
class DiffDocument:
    data: dict[str, Any]
    findings: list[Finding]
    notes: list[str]

    @classmethod
    def of(cls, data: dict[str, Any]) -> DiffDocument:
        return cls(data, [Finding.from_json(f) for f in data["findings"]], list(data["notes"]))

    @property
    def verdict(self) -> str:
        return verdict_of(self.findings)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    def to_json(self) -> dict[str, Any]:
        return {**self.data, "verdict": self.verdict, "notes": self.notes,
                "findings": [f.to_json() for f in self.findings]}
