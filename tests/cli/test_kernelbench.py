"""A KernelBench-style file (CUDA in a `load_inline` string, torch::Tensor host code) is a side of
`lowercheck diff`: its tensors' sizes become the sizes, the emulator runs it, and a Triton port of
it is judged equivalent."""

from __future__ import annotations

import json
from pathlib import Path

from support import run_lowercheck

INPUTS = Path(__file__).parent / "inputs"
# The front end's own FileCheck input (its CHECK lines are comments here).
KERNELBENCH = Path(__file__).parents[1] / "frontends" / "cuda" / "inputs" / "kernelbench_relu.py"


def test_kernelbench_source_against_a_triton_port(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(KERNELBENCH),
                           str(INPUTS / "bias_relu.py"), "--spec", str(INPUTS / "kb_bias_relu.toml"),
                           "--json", str(out)])
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(out.read_text())
    assert doc["source"]["language"] == "cuda" and doc["source"]["path"].endswith("kernelbench_relu.py")
    normal = [r for r in doc["runs"] if r["inputs"] == "normal"]  # every swept size; then the other kinds
    assert len(normal) == 6 and all(r["status"] == "ok" for r in doc["runs"])
