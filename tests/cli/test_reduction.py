"""A row reduction: the source loops over columns in one thread per row, the port loops over column
tiles in one program per row and reduces the tile. The dependence map (which input elements each
output element is computed from) sees through both loops; a port that reads the transpose differs."""

from __future__ import annotations

import json
from pathlib import Path

from support import run_lowercheck

INPUTS = Path(__file__).parent / "inputs"


def diff(target: str, tmp_path: Path, *extra: str) -> tuple[int, dict]:
    out = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(INPUTS / "rowsum.cu"), str(INPUTS / target),
                           "--json", str(out), *extra])
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(out.read_text())


def test_tiled_row_sum_is_equivalent(tmp_path: Path) -> None:
    code, doc = diff("rowsum.py", tmp_path)
    assert code == 0, doc["findings"]
    assert {p["name"]: p["shape"] for p in doc["target"]["params"]} == {"x": ["m", "n"], "return0": ["m"]}


def test_transposed_read_changes_the_dependence(tmp_path: Path) -> None:
    code, doc = diff("rowsum_t.py", tmp_path, "--no-run")
    assert code == 1
    [dep] = [f for f in doc["findings"] if f["code"] == "LC204"]
    assert dep["witness"]["element"] >= 0 and dep["witness"]["read_by"] in ("the source", "the target")


def test_a_warp_per_row_with_cg_reduce_is_equivalent(tmp_path: Path) -> None:
    """cooperative_groups as real kernels use it: a tile per row, a loop stepped by `warp.size()`,
    `cg::reduce(warp, acc, cg::plus<float>())`, and <helper_cuda.h>'s checkCudaErrors."""
    out = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(INPUTS / "rowsum_cg.cu"), str(INPUTS / "rowsum.py"), "--json", str(out)])
    doc = json.loads(out.read_text())
    assert done.returncode == 0, done.stdout + done.stderr
    assert not [f for f in doc["findings"] if f["code"] == "LC901"]
    assert doc["runs"] and all(r["status"] == "ok" for r in doc["runs"])
