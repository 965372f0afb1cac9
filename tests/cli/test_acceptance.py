"""The first slice's acceptance, end to end through the CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from lowercheck import ir

from support import run_lowercheck

VADD = Path(__file__).parents[2] / "corpus" / "vector_add"


def diff(target: str, tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    out = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(VADD / "vadd.cu"), str(VADD / target),
                           "--json", str(out), *extra])
    return done, json.loads(out.read_text())


def by_code(doc: dict, code: str) -> list[dict]:
    return [f for f in doc["findings"] if f["code"] == code]


def test_correct_port_is_equivalent(tmp_path: Path) -> None:
    done, doc = diff("vadd.py", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert doc["verdict"] == "equivalent"
    assert doc["static"] == "proved for all sizes"
    assert set(doc) >= {"lowercheck", "source", "target", "verdict", "findings", "runs"}
    assert all(run["status"] == "ok" for run in doc["runs"]) and len(doc["runs"]) >= 5
    assert {1, 1023, 1024 + 1} & {run["sizes"]["n"] for run in doc["runs"]}


def test_floor_grid_leaves_elements_unwritten_with_a_witness(tmp_path: Path) -> None:
    done, doc = diff("vadd_floor_grid.py", tmp_path)
    assert done.returncode == 1
    [static] = by_code(doc, "LC202")
    assert static["side"] == "target" and static["witness"]["sizes"]["n"] >= 1
    assert by_code(doc, "LC303"), "the run must show the poison surviving too"


def test_missing_mask_is_found_statically_and_the_run_survives(tmp_path: Path) -> None:
    done, doc = diff("vadd_no_mask.py", tmp_path)
    assert done.returncode == 1
    found = by_code(doc, "LC201")
    assert found and all(f["side"] == "target" for f in found)
    first = found[0]
    assert first["location"]["file"].endswith("vadd_no_mask.py") and first["location"]["line"] > 0
    assert first["witness"]["index"] >= first["witness"]["extent"]
    assert not by_code(doc, "LC902"), "out-of-bounds accesses must not crash the run"


def test_sub_instead_of_add_names_the_first_mismatch(tmp_path: Path) -> None:
    done, doc = diff("vadd_sub.py", tmp_path, "--no-static", "--size", "n=1000")
    assert done.returncode == 1
    [mismatch] = by_code(doc, "LC301")
    assert mismatch["witness"]["first_index"] == 0 and mismatch["witness"]["sizes"] == {"n": 1000}
    assert "first at index 0" in mismatch["message"]
    worst = mismatch["witness"]["index"]  # the largest error: |x + y - (x - y)| = 2|y| there
    assert mismatch["witness"]["max_abs"] == abs(mismatch["witness"]["source"] - mismatch["witness"]["target"])
    assert 0 <= worst < 1000


def test_no_run_is_static_only(tmp_path: Path) -> None:
    done, doc = diff("vadd_floor_grid.py", tmp_path, "--no-run")
    assert done.returncode == 1 and doc["runs"] == [] and by_code(doc, "LC202")


@pytest.mark.parametrize("name", ["vadd.cu", "vadd.py"])
@pytest.mark.parametrize("emit", ["ir", "access"])
def test_lower_prints_ir_that_parses_back(name: str, emit: str) -> None:
    done = run_lowercheck(["lower", str(VADD / name), "--emit", emit])
    assert done.returncode == 0, done.stderr
    text, _, relations = done.stdout.partition("// access relations")
    module = ir.parse(done.stdout)  # the relations follow as comments: the whole output parses
    assert ir.print_ir(module, debuginfo=True) == text
    if emit == "access":
        assert "access.access" in text and 'kind = "write"' in text
        assert " write " in relations and "-> { K0_w0[GRID0" in relations  # in words and in isl


WHILE_ON_DATA = """
__global__ void chase(const int* next, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (i < n && next[i] > 0) {
        out[i] = 1.0f;
        i += next[i];
    }
}
void launch(const int* next, float* out, int n) { chase<<<(n + 255) / 256, 256>>>(next, out, n); }
"""


@pytest.mark.parametrize("emit", ["ir", "access"])
def test_lower_is_inconclusive_when_an_access_is_not_modelled(emit: str, tmp_path: Path) -> None:
    """A while loop whose trips depend on loaded data: its accesses are `access.unmodelled`, so exit 3."""
    kernel = tmp_path / "chase.cu"
    kernel.write_text(WHILE_ON_DATA)
    done = run_lowercheck(["lower", str(kernel), "--emit", emit])
    assert done.returncode == 3, done.stderr
    assert "inconclusive[LC901]" in done.stderr and "not modelled" in done.stderr
    assert ("access.unmodelled" in done.stdout) == (emit == "access")


def test_lower_is_partly_proved_when_an_index_comes_from_loaded_data() -> None:
    """The histogram's bin index comes from a loaded value: an `access.indirect`, exit 0 with a note."""
    done = run_lowercheck(["lower", str(VADD.parent / "histogram" / "histogram.cu"), "--emit", "access"])
    assert done.returncode == 0, done.stderr
    assert "note: partly proved" in done.stderr and "access.indirect" in done.stdout
    assert "access.unmodelled" not in done.stdout
