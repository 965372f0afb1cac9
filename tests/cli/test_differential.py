"""The differential run a reviewer can trust (issue 5): derived tolerances with the rule that
decided, the float64 oracle, seeded input kinds, task probes, determinism, and the KernelBench-style
baseline beside it."""

from __future__ import annotations

import json
from pathlib import Path

from support import run_lowercheck

ROOT = Path(__file__).parents[2]
INPUTS = Path(__file__).parent / "inputs"
CORPUS = ROOT / "corpus"


def diff(source: Path, target: Path, tmp_path: Path, *extra: str, name: str = "report.json") -> tuple[int, dict]:
    out = tmp_path / name
    done = run_lowercheck(["diff", str(source), str(target), "--json", str(out),
                           *extra])
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(out.read_text())


def errors(doc: dict) -> set[str]:
    return {f["code"] for f in doc["findings"] if f["severity"] == "error"}


def test_runs_show_rule_bound_errors_and_the_oracle(tmp_path: Path) -> None:
    code, doc = diff(CORPUS / "gelu" / "gelu.cu", CORPUS / "gelu" / "gelu.py", tmp_path, "--no-static")
    assert code == 0
    kinds = {r["inputs"] for r in doc["runs"]}
    assert kinds == {"normal", "uniform", "large", "small_int", "special"}
    for run in doc["runs"]:
        assert run["oracle"] and "float64" in run["oracle"]  # a CUDA source runs in float64 too
        for output in run["outputs"]:
            assert output["rule"] and output["bound"] >= 0 and output["max_ulp"] >= 0
            assert output["source_error"] is not None and output["closer"] in ("source", "target", "equal")
    # gelu calls erf: the ulp rule is among those applied
    assert any(r["name"] == "ulp" for run in doc["runs"] for o in run["outputs"] for r in o["rules"])


def test_the_same_seed_reproduces_the_inputs_and_the_report(tmp_path: Path) -> None:
    pair = (CORPUS / "vector_add" / "vadd.cu", CORPUS / "vector_add" / "vadd_sub.py")
    _, first = diff(*pair, tmp_path, "--no-static", "--seed", "5", name="a.json")
    _, again = diff(*pair, tmp_path, "--no-static", "--seed", "5", name="b.json")
    _, other = diff(*pair, tmp_path, "--no-static", "--seed", "6", name="c.json")

    def strip(doc: dict) -> dict:
        return {"findings": doc["findings"], "runs": [{k: v for k, v in r.items() if k != "wall_s"} for r in doc["runs"]]}

    assert strip(first) == strip(again)
    witness = next(f["witness"] for f in first["findings"] if f["code"] == "LC301")
    witness_other = next(f["witness"] for f in other["findings"] if f["code"] == "LC301")
    assert witness["source"] != witness_other["source"]  # another seed draws other inputs


def test_a_long_dot_needs_the_k_aware_bound(tmp_path: Path) -> None:
    """A correct matmul port at k = 4096: tl.dot's blocked summation differs from the source's
    sequential one by far more than torch's fixed rtol of 1.3e-6 allows; the K-aware bound accepts it,
    and an fp16 accumulator is still rejected."""
    spec = ("--spec", str(INPUTS / "matmul_k4096.toml"))
    code, doc = diff(CORPUS / "matmul" / "matmul.cu", CORPUS / "matmul" / "matmul.py", tmp_path, "--no-static", *spec)
    assert code == 0
    normal = next(r for r in doc["runs"] if r["inputs"] == "normal")["outputs"][0]
    rules = {r["name"]: r for r in normal["rules"]}
    assert not rules["floor"]["passed"] and rules["floor"]["mismatches"] > 0  # a fixed rtol fails it
    assert rules["k-aware"]["passed"] and normal["rule"].startswith("K-aware")
    code, doc = diff(CORPUS / "matmul" / "matmul.cu", CORPUS / "matmul" / "matmul_fp16_acc.py", tmp_path,
                     "--no-static", *spec, name="fp16.json")
    # Against the sum-|terms| bound (exact magnitudes from the float64 oracle on |a|, |b|) the fp16
    # sums of normal inputs may pass; the runs still reject the port (fp16 overflows at large inputs).
    assert code == 1 and errors(doc) & {"LC301", "LC302"}


def test_large_inputs_catch_softmax_without_max_subtraction(tmp_path: Path) -> None:
    code, doc = diff(CORPUS / "softmax" / "softmax.cu", CORPUS / "softmax" / "softmax_no_max.py", tmp_path,
                     "--no-static")
    assert code == 1
    found = next(f for f in doc["findings"] if f["code"] == "LC302")
    assert found["witness"]["inputs"] == "large"


def test_probe_flags_a_tolerance_that_accepts_zeros(tmp_path: Path) -> None:
    code, doc = diff(INPUTS / "scale_tiny.cu", INPUTS / "scale_tiny.py", tmp_path)
    assert code == 0
    probes = [f for f in doc["findings"] if f["code"] == "LC501"]
    assert probes and probes[0]["witness"]["probes"][0]["name"] == "zeros"
    code, doc = diff(CORPUS / "vector_add" / "vadd.cu", CORPUS / "vector_add" / "vadd.py", tmp_path,
                     "--no-static", name="vadd.json")
    assert not [f for f in doc["findings"] if f["code"] == "LC501"]


def test_float_atomics_are_nondeterministic(tmp_path: Path) -> None:
    code, doc = diff(INPUTS / "sum_atomic.cu", INPUTS / "sum_tree.py", tmp_path, "--no-static",
                     "--spec", str(INPUTS / "sum_atomic.toml"))
    found = [f for f in doc["findings"] if f["code"] == "LC304"]
    assert code == 0 and [f["side"] for f in found] == ["source"]  # the emulator reorders atomics


def test_baseline_misses_what_signed_inputs_catch(tmp_path: Path) -> None:
    """ReLU ported as a copy: torch.rand inputs are non-negative, so a KernelBench-style check passes it."""
    pair = (CORPUS / "relu" / "relu.cu", CORPUS / "relu" / "relu_identity.py")
    code, doc = diff(*pair, tmp_path, "--baseline", "kernelbench", name="baseline.json")
    assert code == 0 and doc["verdict"] == "equivalent" and doc["static"] is None
    assert [r["inputs"] for r in doc["runs"]] == ["rand01"]
    code, doc = diff(*pair, tmp_path, "--no-static", name="lowercheck.json")
    assert code == 1 and "LC301" in errors(doc)
