"""A 2-D pair: extents inferred as [m, n] from `row * n + col`, the Triton wrapper bound with 2-D
tensors, and a port that walks columns judged equivalent (elementwise) but uncoalesced (LC205: its
tiles have no contiguous dimension, so Triton cannot coalesce them)."""

from __future__ import annotations

import json
from pathlib import Path

from support import run_lowercheck

INPUTS = Path(__file__).parent / "inputs"


def diff(target: str, tmp_path: Path, *extra: str) -> tuple[int, dict]:
    out = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(INPUTS / "madd.cu"), str(INPUTS / target),
                           "--json", str(out), *extra])
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(out.read_text())


def test_two_dimensional_port_is_equivalent(tmp_path: Path) -> None:
    code, doc = diff("madd.py", tmp_path)
    assert code == 0 and doc["verdict"] == "equivalent"
    shapes = {p["name"]: p["shape"] for p in doc["target"]["params"]}
    assert shapes == {"a": ["m", "n"], "b": ["m", "n"], "return0": ["m", "n"]}
    assert len(doc["runs"]) >= 4 and all(r["status"] == "ok" for r in doc["runs"])


def test_column_major_port_is_flagged_uncoalesced(tmp_path: Path) -> None:
    code, doc = diff("madd_t.py", tmp_path, "--no-run")
    assert code == 0
    classes = {f["buffer"]: f for f in doc["findings"] if f["code"] == "LC205"}
    assert set(classes) == {"a", "b", "return0"}
    for finding in classes.values():
        assert finding["witness"]["target_class"] == ["strided(n)"]
        assert finding["witness"]["target_sectors"] == 32 and finding["witness"]["source_sectors"] == 4
    # Each element is requested once on both sides: the extra sectors are LC205's, not LC206's.
    assert not [f for f in doc["findings"] if f["code"] == "LC206"]
