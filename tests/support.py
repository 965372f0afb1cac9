"""Helpers shared by the tests (on the path through pytest's `pythonpath = ["tests"]`)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess


def run_lowercheck(args: list[str]) -> subprocess.CompletedProcess:
    """`lowercheck ARGS` in this test process, with the result of `subprocess.run(...,
    capture_output=True, text=True)`. The front ends' workers and the runners' fork servers stay up
    between calls, so a test pays for importing torch, Triton and JAX once per test process, not once
    per command; each run still goes to its own child process. The tests that are about the process
    itself (a hang, a traceback on bad input) run `python -m lowercheck` for real."""
    from lowercheck.cli import main

    out, err = io.StringIO(), io.StringIO()
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "200"
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args), keep_workers=True)
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous
    return subprocess.CompletedProcess(["lowercheck", *args], code, out.getvalue(), err.getvalue())
