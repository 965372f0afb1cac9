"""The two ways lowercheck stops early: bad input (exit 2) and an inconclusive check (exit 3).

Front ends, passes and runners raise these; only the CLI turns them into a message and an exit code.
Every error names the user's file:line where there is one, and says what to do about it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLocation:
    """A position in a user's file (1-based line and column; column 0 when unknown)."""

    file: str
    line: int
    column: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}" if self.column else f"{self.file}:{self.line}"

    def to_json(self) -> dict[str, object]:
        return {"file": self.file, "line": self.line, "column": self.column}


class LowercheckError(Exception):
    """Base of the errors the CLI reports without a traceback."""

    exit_code = 2

    def __init__(self, message: str, location: SourceLocation | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location
        self.hint = hint

    def __reduce__(self):  # keep location and hint across process boundaries
        return (type(self), (self.message, self.location, self.hint))

    def render(self) -> str:
        where = f"{self.location}: " if self.location else ""
        text = f"{where}error: {self.message}"
        if self.hint:
            text += f"\n  help: {self.hint}"
        return text


class UserError(LowercheckError):
    """The input cannot be used: missing file, syntax error, no or several entries, bad spec (exit 2)."""

    exit_code = 2


class Unsupported(LowercheckError):
    """A construct lowercheck cannot model yet; the check is inconclusive (exit 3, code LC901)."""

    exit_code = 3
    code = "LC901"

    def render(self) -> str:
        where = f"{self.location}: " if self.location else ""
        text = f"{where}inconclusive[{self.code}]: {self.message}"
        if self.hint:
            text += f"\n  help: {self.hint}"
        return text
