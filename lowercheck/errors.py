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

    @classmethod
    def from_json(cls, doc: dict | None) -> SourceLocation | None:
        return None if doc is None else cls(doc["file"], doc["line"], doc.get("column", 0))


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


class UserCodeRaised(UserError):
    """The user's entry raised while lowercheck captured it (a slice past a dimension, an assert on
    the sizes): bad input when it raises at every size, the kernel's own fault at the sizes it
    raises at when it lowers at others (`lowercheck.plan.capturable_sizes`)."""


class UserCodeStopped(LowercheckError):
    """The user's code stopped the worker that ran it before the worker handed over its result: it
    called `sys.exit` or `os._exit`, raised `KeyboardInterrupt`, was killed by a signal, hung or ran
    out of memory. That is a fault of the side (a finding, LC902), never lowercheck's own exit: the
    verdict is "different" and the exit code 1, whatever status the user's code asked for."""

    exit_code = 1
    code = "LC902"

    def __init__(self, message: str, location: SourceLocation | None = None, hint: str | None = None,
                 path: str | None = None):
        super().__init__(message, location, hint)
        self.path = path or (location.file if location else None)
        self.side: str | None = None  # "source" or "target", once the caller knows which file it was

    def __reduce__(self):
        return (type(self), (self.message, self.location, self.hint, self.path))

    def render(self) -> str:
        where = f"{self.location}: " if self.location else (f"{self.path}: " if self.path else "")
        side = f"[{self.side}] " if self.side else ""
        text = f"{side}{where}error[{self.code}]: {self.message}"
        if self.hint:
            text += f"\n  help: {self.hint}"
        return text


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


# The largest input file lowercheck reads: a kernel source, a spec or a task is a few hundred KiB at
# most (DeepSpeed's largest .cu is under 100 KiB); past this, a file is not read (inconclusive).
MAX_INPUT_BYTES = 16 * 1024 * 1024


def read_user_text(path: str, kind: str) -> str:
    """A user's text file (`kind`: "Python source", "CUDA source", "a spec") as its compiler reads
    it: UTF-8, a leading BOM accepted; a UserError at the line for a binary or non-UTF-8 file, and
    at `path:1` for a directory or a file that cannot be read; `Unsupported` (inconclusive) for a
    file past `MAX_INPUT_BYTES`."""
    import os
    from pathlib import Path

    file = Path(path)
    if file.is_dir():
        raise UserError(f"{path} is a directory, not {kind}", SourceLocation(str(path), 1),
                        hint="name the file itself")
    try:
        size = file.stat().st_size
        if size > MAX_INPUT_BYTES:
            raise Unsupported(f"{path} is {size / 2**20:.1f} MiB, past lowercheck's limit of "
                              f"{MAX_INPUT_BYTES >> 20} MiB for {kind}", SourceLocation(str(path), 1),
                              hint="check the kernel itself, in a file of its own")
        data = file.read_bytes()
    except OSError as err:
        raise UserError(f"cannot read {path}: {err.strerror or os.strerror(err.errno or 0)}",
                        SourceLocation(str(path), 1)) from None
    nul = data.find(b"\0")
    try:
        text = data.decode("utf-8-sig")
        bad = None
    except UnicodeDecodeError as err:
        text, bad = "", err.start
    if nul >= 0 and (bad is None or nul < bad):  # whichever comes first in the file is said
        raise UserError(f"{path} is a binary file, not {kind}", SourceLocation(str(path), data[:nul].count(b"\n") + 1))
    if bad is not None:
        raise UserError(f"{path} is not UTF-8 text (byte 0x{data[bad]:02x})",
                        SourceLocation(str(path), data[:bad].count(b"\n") + 1), hint="save the file as UTF-8")
    return text
