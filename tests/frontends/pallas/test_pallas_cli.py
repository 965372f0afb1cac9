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


def diff(source: Path | str, target: Path | str, tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
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


def test_a_tpu_axis_declared_arbitrary_is_ordered(tmp_path: Path) -> None:
    """The TPU compiler params' `dimension_semantics` reach the launch: the "arbitrary" axis is
    ordered (`ordered = [1 : i32]`), and the output block stored at each of its steps is not a
    double write; the same kernel with that axis "parallel" writes the block from two programs
    (and its run, in TPU interpret mode, sums wrong)."""
    kernels = INPUTS / "revisited_output.py"
    spec = INPUTS / "block_sums.toml"
    lowered = run_lowercheck(["lower", f"{kernels}:block_sums", "--spec", str(spec), "--emit", "access"])
    assert lowered.returncode == 0, lowered.stderr
    assert "ordered = [1 : i32]" in lowered.stdout
    parallel = run_lowercheck(["lower", f"{kernels}:block_sums_parallel", "--spec", str(spec)])
    assert parallel.returncode == 0 and "ordered" not in parallel.stdout, parallel.stderr
    done, doc = diff(f"{kernels}:block_sums", f"{kernels}:block_sums_parallel", tmp_path, "--spec", str(spec))
    assert done.returncode == 1, done.stdout + done.stderr
    errors = [(f["side"], f["code"]) for f in doc["findings"] if f["severity"] == "error"]
    # statically a double write; run in TPU interpret mode (a TPU kernel), a "parallel" axis's steps
    # do not keep the revisited block, so the target's sums differ as well
    assert ("target", "LC203") in errors and {side for side, _ in errors} == {"target"}, errors


def test_a_function_that_calls_the_entry_is_an_entry_by_name() -> None:
    """`FILE:wrapper` names a function that calls the one holding the pallas_call (jax's ops wrap
    theirs so); unnamed, the file's entry is still the function with the pallas_call."""
    from lowercheck.frontends import pallas
    from lowercheck.lowering import resolve_entry

    path = str(INPUTS / "revisited_output.py")
    candidates = {c.name: c for c in pallas.entries(path)}
    assert candidates["block_sums"].calls == candidates["block_sums_parallel"].calls == "_call"
    assert candidates["_call"].calls is None
    assert resolve_entry(path, None, list(candidates.values())) == "_call"
    assert resolve_entry(path, "block_sums", list(candidates.values())) == "block_sums"
