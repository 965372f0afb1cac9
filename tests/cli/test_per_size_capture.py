"""A wrapper whose tile depends on the size (`next_power_of_2(n)`) cannot be captured symbolically:
lowercheck captures it once per swept size and checks each size, and says so."""

from __future__ import annotations

import json
from pathlib import Path

from support import run_lowercheck

INPUTS = Path(__file__).parent / "inputs"
VADD_CU = Path(__file__).parents[2] / "corpus" / "vector_add" / "vadd.cu"


def diff(target: str, tmp_path: Path, *extra: str) -> tuple[int, dict]:
    out = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(VADD_CU), str(INPUTS / target),
                           "--json", str(out), *extra])
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(out.read_text())


def test_size_dependent_tile_is_checked_per_size(tmp_path: Path) -> None:
    code, doc = diff("vadd_pow2.py", tmp_path)
    assert code == 0 and doc["verdict"] == "equivalent"
    assert doc["static"] == "proved for the swept sizes"
    assert any("captured once per size" in note for note in doc["notes"])
    assert not [f for f in doc["findings"] if f["code"] == "LC205"], "a one-lane tile is not uncoalesced"


def test_size_dependent_tile_with_a_floor_grid(tmp_path: Path) -> None:
    code, doc = diff("vadd_pow2_floor.py", tmp_path, "--no-run")
    assert code == 1
    [unwritten] = [f for f in doc["findings"] if f["code"] == "LC202"]
    assert unwritten["witness"]["sizes"]["n"] > 1


def test_a_wrapper_that_raises_at_some_swept_sizes_is_the_ports_fault_there(tmp_path: Path) -> None:
    """The port raises for odd lengths: at those sizes of the sweep it is an LC902 error at the
    raising line (the kernel's fault, not bad input), and the other sizes are still checked and
    run. Raising at every size is bad input (exit 2), as before."""
    code, doc = diff("vadd_even_only.py", tmp_path, "--size", "n=1000,1001,4096")
    assert code == 1 and doc["verdict"] == "different"
    errors = [f for f in doc["findings"] if f["severity"] == "error"]
    assert [(f["code"], f["side"], f["witness"]["sizes"]) for f in errors] == [("LC902", "target", {"n": 1001})]
    assert errors[0]["location"]["line"] == 18 and "n must be even" in errors[0]["message"]
    assert sorted(run["sizes"]["n"] for run in doc["runs"] if run["inputs"] == "normal") == [1000, 4096]
    done = run_lowercheck(["diff", str(VADD_CU), str(INPUTS / "vadd_even_only.py"), "--size", "n=1001,333"])
    assert done.returncode == 2 and "n must be even" in done.stderr, done.stdout + done.stderr
