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


def test_a_port_reducing_by_max_differs_statically(tmp_path: Path) -> None:
    """The same elements combined by another operator: cg::reduce(.., cg::plus) and rowsum.cu's loop
    sum, the port takes the maximum (tl.maximum in its loop, tl.max of the tile)."""
    for source in ("rowsum.cu", "rowsum_cg.cu"):
        out = tmp_path / "report.json"
        done = run_lowercheck(["diff", str(INPUTS / source), str(INPUTS / "rowsum_max.py"), "--no-run",
                               "--json", str(out)])
        assert done.returncode == 1, done.stdout
        [dep] = [f for f in json.loads(out.read_text())["findings"] if f["code"] == "LC204"]
        assert dep["witness"]["target_operators"] == ["max"] and dep["witness"]["source_operators"] == ["sum"]
        assert "by max on the target" in dep["message"]


def test_an_operator_lowercheck_cannot_name_claims_nothing(tmp_path: Path) -> None:
    """`acc = acc * 1.0 + tile` is no single operator on the accumulator (an online softmax's rescaled
    sum): its output's operators include "?", and no operator difference is claimed from them."""
    out = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(INPUTS / "rowsum.cu"), str(INPUTS / "rowsum_rescaled.py"), "--no-run",
                           "--json", str(out)])
    assert done.returncode == 0, done.stdout
    assert not [f for f in json.loads(out.read_text())["findings"] if f["code"] == "LC204"]


def test_lower_puts_the_dependence_in_words() -> None:
    """`lower --emit access` ends with each output's dependence map in words and its operators."""
    done = run_lowercheck(["lower", str(INPUTS / "rowsum_cg.cu"), "--emit", "access", "--no-loc"])
    assert done.returncode == 0, done.stderr
    words = done.stdout.split("// dependences:", 1)[1]
    assert "out[i0] reads x[" in words and "combined by sum" in words, words
    done = run_lowercheck(["lower", str(INPUTS / "rowsum_max.py"), "--emit", "access", "--no-loc"])
    words = done.stdout.split("// dependences:", 1)[1]
    assert "return0[i0] reads x[i0, 0 .. -1 + n]" in words and "combined by max" in words, words


def test_a_scan_kept_across_loop_trips_matches_tl_cumsum(tmp_path: Path) -> None:
    """`out[c] = carry + x[c]; carry += x[c]`: trip c's carry holds what trips 0..c-1 read (the step
    `<SEQ`), so out[r, c] reads x[r, 0 .. c], which tl.cumsum's prefix step (`^LANE`) says too; the
    exclusive scan (`out[c] = carry`) misses x[r, c]."""
    out = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(INPUTS / "scan_running.cu"), str(INPUTS / "scan_cumsum.py"), "--no-run",
                           "--json", str(out)])
    doc = json.loads(out.read_text())
    assert done.returncode == 0, doc["findings"]
    assert doc["dependences"] == {"return0": "compared"}
    done = run_lowercheck(["diff", str(INPUTS / "scan_exclusive.cu"), str(INPUTS / "scan_cumsum.py"), "--no-run",
                           "--json", str(out)])
    [dep] = [f for f in json.loads(out.read_text())["findings"] if f["code"] == "LC204"]
    assert dep["witness"]["read_by"] == "the target"


def test_an_fp16_shuffle_reduction_against_an_fp32_tree_is_lc305(tmp_path: Path) -> None:
    """The accumulation type follows the reduction through shuffles and shared memory: warps that
    sum in __half (`__hadd` of `__shfl_xor_sync`) against the corpus's fp32 tree read the same inputs
    (no LC204) and sum them in f16 (LC305)."""
    out = tmp_path / "report.json"
    tree = Path(__file__).parents[2] / "corpus" / "reduce_sum" / "reduce_sum.cu"
    done = run_lowercheck(["diff", str(tree), str(INPUTS / "reduce_sum_half_shuffles.cu"), "--no-run",
                           "--json", str(out)])
    doc = json.loads(out.read_text())
    assert done.returncode == 1, doc["findings"]
    assert [f["code"] for f in doc["findings"] if f["severity"] == "error"] == ["LC305"]
    [lc305] = [f for f in doc["findings"] if f["code"] == "LC305"]
    assert "f16" in lc305["witness"]["target_types"] and lc305["witness"]["source_types"] == ["f32"]
    assert doc["dependences"] == {"out": "compared"}
