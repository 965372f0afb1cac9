"""FileCheck-style tests: every file under tests/filecheck/ carries its own `RUN:` and `CHECK:` lines.

`%s` in a RUN line is the file itself; `filecheck` is the virtualenv's command, and `lowercheck` runs in
this test process (`support.run_lowercheck`, as lit runs its own commands in its internal shell): the
same arguments, exit code and output, without a Python start and lowercheck's imports per line.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from support import run_lowercheck

HERE = Path(__file__).parent / "filecheck"
BIN = Path(sys.executable).parent
CASES = sorted(p for p in HERE.rglob("*") if p.is_file() and p.suffix in (".mlir", ".cu", ".py"))


def run_lines(path: Path) -> list[str]:
    lines = []
    for line in path.read_text().splitlines():
        _, sep, command = line.partition("RUN:")
        if sep:
            lines.append(command.strip())
    return lines


@pytest.mark.parametrize("path", CASES, ids=[str(p.relative_to(HERE)) for p in CASES])
def test_filecheck(path: Path) -> None:
    commands = run_lines(path)
    assert commands, f"{path} has no RUN: line"
    for command in commands:
        stages = []
        for stage in command.split("|"):
            words = shlex.split(stage.replace("%s", str(path)))
            if words[0] == "filecheck":
                words[0] = str(BIN / words[0])
            stages.append(words)
        text = None
        for words in stages:
            if words[0] == "lowercheck":
                assert text is None, f"`{command}`: lowercheck reads its files, not a pipe"
                done = run_lowercheck(words[1:])
            else:
                done = subprocess.run(words, input=text, capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, f"`{' '.join(words)}` failed:\n{done.stdout}\n{done.stderr}"
            text = done.stdout
