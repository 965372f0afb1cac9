"""The JSON report (schema in docs/report-schema.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _default(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def text(report) -> str:
    """The report as JSON text (diff and audit reports alike: their `to_json()`)."""
    return json.dumps(report.to_json(), indent=2, default=_default) + "\n"


def write(report, path: str) -> None:
    Path(path).write_text(text(report))


def error_document(message: str, location: dict | None, hint: str | None, verdict: str) -> dict[str, Any]:
    from lowercheck import __version__

    return {"lowercheck": __version__, "source": None, "target": None, "verdict": verdict,
            "findings": [], "runs": [], "error": {"message": message, "location": location, "hint": hint}}
