"""Tensor descriptors (`tl.make_tensor_descriptor`, TMA): a block load or store at (r, c) touches
the block's elements inside the descriptor's shape; a port through them is compared statically
like any other (every check proved for all sizes), and a block index off by one tile is caught."""

from __future__ import annotations

import json
from pathlib import Path

from support import run_lowercheck

INPUTS = Path(__file__).parent / "inputs"


def diff(target: Path, tmp_path: Path) -> tuple[int, dict]:
    out = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(INPUTS / "copy2d.cu"), str(target),
                           "--no-run", "--json", str(out)])
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(out.read_text())


def test_descriptor_port_is_equivalent_for_all_sizes(tmp_path: Path) -> None:
    code, doc = diff(INPUTS / "copy2d_desc.py", tmp_path)
    assert code == 0 and doc["static"] == "proved for all sizes"
    statuses = {c["code"]: c["status"] for c in doc["static_checks"]}
    assert statuses["LC204"] == "proved for all sizes"  # the store reuses the loaded block's lanes


def test_shifted_descriptor_store_is_caught(tmp_path: Path) -> None:
    shifted = tmp_path / "copy2d_desc_shifted.py"
    shifted.write_text((INPUTS / "copy2d_desc.py").read_text().replace("o_desc.store([r, c], tile)",
                                                                      "o_desc.store([r, c + BC], tile)"))
    code, doc = diff(shifted, tmp_path)
    found = {f["code"] for f in doc["findings"] if f["severity"] == "error"}
    assert code == 1 and {"LC202", "LC204"} <= found
