"""`lowercheck diff` with a Pallas side, end to end through the CLI: the CUDA vector add against a
correct Pallas port (equivalent) and against one whose index_map is off by one block."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from support import run_lowercheck

ROOT = Path(__file__).parents[3]
INPUTS = Path(__file__).parent / "inputs"
VADD_CU = ROOT / "corpus" / "vector_add" / "vadd.cu"


def diff(source: Path, target: Path, tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    out = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(source), str(target), "--json", str(out),
                           *extra])
    assert out.exists(), done.stdout + done.stderr
    return done, json.loads(out.read_text())


def test_pallas_vadd_is_equivalent(tmp_path: Path) -> None:
    done, doc = diff(VADD_CU, INPUTS / "vadd_pallas.py", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert doc["verdict"] == "equivalent"
    assert doc["target"]["language"] == "pallas"
    assert all(run["status"] == "ok" for run in doc["runs"]) and len(doc["runs"]) >= 5


def test_index_map_off_by_one_block_is_found(tmp_path: Path) -> None:
    done, doc = diff(VADD_CU, INPUTS / "vadd_pallas_shifted.py", tmp_path, "--size", "n=1000,256")
    assert done.returncode == 1, done.stdout + done.stderr
    codes = {f["code"] for f in doc["findings"] if f["side"] == "target"}
    assert codes & {"LC201", "LC202"}, codes
    [oob] = [f for f in doc["findings"] if f["code"] == "LC201"]
    assert oob["buffer"] == "x" and oob["location"]["line"] == 12


def test_output_index_map_off_by_one_leaves_a_block_unwritten(tmp_path: Path) -> None:
    done, doc = diff(VADD_CU, INPUTS / "vadd_out_shifted.py", tmp_path, "--size", "n=1000")
    assert done.returncode == 1
    codes = {f["code"] for f in doc["findings"]}
    assert {"LC202", "LC303"} <= codes, codes


def test_pallas_matmul_with_a_k_loop_matches_the_cuda_accesses(tmp_path: Path) -> None:
    done, doc = diff(ROOT / "corpus" / "matmul" / "matmul.cu", INPUTS / "matmul_pallas.py", tmp_path, "--no-run")
    assert done.returncode == 0, done.stdout + done.stderr
    assert doc["verdict"] == "equivalent"
    assert not [f for f in doc["findings"] if f["code"] == "LC204"]
    assert not any("not exact" in note for note in doc["notes"])  # the dependence was compared
