"""`lowercheck lower --emit access` on every corpus file: the access IR prints, parses back and
models every access (no `access.unmodelled`) — the files a reviewer would point it at."""

from __future__ import annotations

from pathlib import Path

import pytest

from lowercheck import ir
from lowercheck.frontends import language_of
from lowercheck.lowering import lower_file
from lowercheck.spec import Spec

CORPUS = Path(__file__).parents[1] / "corpus"
FILES = sorted(p for p in CORPUS.glob("*/*") if p.suffix in (".cu", ".py"))


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_lower_emits_access_ir_that_round_trips(path: Path) -> None:
    module = lower_file(str(path), Spec(), emit="access")
    text = ir.print_ir(module, debuginfo=True)
    assert ir.print_ir(ir.parse(text), debuginfo=True) == text
    if language_of(str(path)) == "torch":  # a PyTorch reference: its operator graph, no accesses
        assert "kernel.aten" in text and 'role = "out"' in text and "access.access" not in text
        return
    assert "access.access" in text and 'kind = "write"' in text
    assert "access.unmodelled" not in text
