"""Several solutions of one problem: `lowercheck diff problem.py sol1.py sol2.py -j 2` diffs each,
prints a table of verdicts, writes every report under `solutions` in --json, and exits with the
worst verdict's code."""

from __future__ import annotations

import json
from pathlib import Path

from support import run_lowercheck

KB = Path(__file__).parents[2] / "corpus" / "kernelbench"


def test_a_table_of_verdicts_for_several_solutions(tmp_path: Path) -> None:
    out = tmp_path / "solutions.json"
    solutions = [KB / "solutions" / name for name in ("softmax_triton.py", "softmax_triton_block_512.py")]
    done = run_lowercheck(["diff", str(KB / "problems" / "l1_softmax.py"), *map(str, solutions), "-j", "2",
                           "--json", str(out)])
    assert done.returncode == 1, done.stdout + done.stderr
    rows = {line.split()[0]: line.split()[1:3] for line in done.stdout.splitlines() if line.startswith("softmax_")}
    assert rows == {"softmax_triton.py": ["equivalent", "-"],
                    "softmax_triton_block_512.py": ["different", "LC301,LC303"]}
    doc = json.loads(out.read_text())
    assert [Path(s["target"]).name for s in doc["solutions"]] == [p.name for p in solutions]
    assert [s["report"]["verdict"] for s in doc["solutions"]] == ["equivalent", "different"]
