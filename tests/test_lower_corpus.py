"""`lowercheck lower --emit access` on corpus files: the access IR prints, parses back and models
every access (no `access.unmodelled`; an index from loaded data is an `access.indirect`) — the files
a reviewer would point it at.

`make test` lowers a cover (`cover`): in each folder the first file of each language, and every file
with data-dependent accesses; `make corpus` (CORPUS=all) lowers every file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lowercheck import ir
from lowercheck.frontends import language_of
from lowercheck.lowering import lower_file
from lowercheck.spec import ArgSpec, Spec

CORPUS = Path(__file__).parents[1] / "corpus"
ALL_FILES = sorted(p for p in CORPUS.glob("*/*") if p.suffix in (".cu", ".py"))


# What a file on its own cannot say: the arguments that are no float32 vectors (`lower` assumes
# float32[n] for an untyped Python parameter).
SPECS = {
    "histogram": Spec({"n": [1000], "bins": [64]}, {"x": ArgSpec(("n",), "int32"), "counts": ArgSpec(("bins",), "int32")}),
    "cross_entropy": Spec({"rows": [7], "cols": [1000]}, {"x": ArgSpec(("rows", "cols"), "float32"),
                                                          "target": ArgSpec(("rows",), "int64")}),
}
# Accesses at addresses computed from loaded values (`access.indirect`, checked by the runs): a
# counter indexed by a data value, a logit gathered at a loaded class index.
DATA_DEPENDENT = {"histogram/histogram.cu", "histogram/histogram_missing_sync.cu", "histogram/histogram_atomic.py",
                  "histogram/histogram_floor_grid.py", "histogram/histogram_no_mask.py",
                  "histogram/histogram_no_range_check.py", "cross_entropy/cross_entropy_gather.py"}


def cover(files: list[Path]) -> list[Path]:
    """The first file of each folder and language, and each file whose accesses depend on data."""
    chosen, kinds = [], set()
    for path in files:
        kind = (path.parent.name, language_of(str(path)))
        if kind not in kinds or f"{path.parent.name}/{path.name}" in DATA_DEPENDENT:
            kinds.add(kind)
            chosen.append(path)
    return chosen


FILES = ALL_FILES if os.environ.get("CORPUS") == "all" else cover(ALL_FILES)


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_lower_emits_access_ir_that_round_trips(path: Path) -> None:
    spec = SPECS.get(path.parent.name, Spec()) if path.suffix == ".py" else Spec()
    module = lower_file(str(path), spec, emit="access")
    text = ir.print_ir(module, debuginfo=True)
    assert ir.print_ir(ir.parse(text), debuginfo=True) == text
    if language_of(str(path)) == "torch":  # a PyTorch reference: its operator graph, no accesses
        assert "kernel.aten" in text and 'role = "out"' in text and "access.access" not in text
        return
    key = f"{path.parent.name}/{path.name}"
    assert "access.unmodelled" not in text, key
    assert ("access.indirect" in text) == (key in DATA_DEPENDENT), key
    writes = 'kind = "write"' in text or 'kind = "atomic"' in text
    assert "access.access" in text and (writes or key in DATA_DEPENDENT)
