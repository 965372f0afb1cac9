"""A shared-memory transpose (CUDA, a padded 32x33 tile) against a Triton port that transposes in
registers: the dependence map composes through the shared tile (per block), so the correct port is
equivalent and a port that copies instead of transposing is LC204."""

from __future__ import annotations

import json
from pathlib import Path

from support import run_lowercheck

INPUTS = Path(__file__).parent / "inputs"


def diff(target: str, tmp_path: Path) -> tuple[int, dict]:
    out = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(INPUTS / "transpose.cu"),
                           str(INPUTS / target), "--no-run", "--json", str(out)])
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(out.read_text())


def test_shared_tile_transpose_is_equivalent(tmp_path: Path) -> None:
    code, doc = diff("transpose.py", tmp_path)
    assert code == 0, doc["findings"]
    assert not [f for f in doc["findings"] if f["code"] == "LC901"]


def test_copy_instead_of_transpose_is_lc204(tmp_path: Path) -> None:
    code, doc = diff("transpose_copy.py", tmp_path)
    assert code == 1
    assert [f for f in doc["findings"] if f["code"] == "LC204"]
