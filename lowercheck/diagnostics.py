"""Diagnostics that native libraries (MLIR inside Triton, LLVM) write to the process's stderr."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator


@contextlib.contextmanager
def captured_stderr() -> Iterator[list[str]]:
    """MLIR writes its diagnostics to fd 2 from C++, past Python's sys.stderr: redirect the file
    descriptor for the block and hand back what was written (one string, appended at exit), so the
    caller can find the user's line in it."""
    out: list[str] = []
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            yield out
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            out.append(tmp.read().decode(errors="replace"))
