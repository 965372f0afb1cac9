"""`lowercheck corpus`: cases discovered from expected.toml, results appended as they finish, a
restarted run skipping finished cases (a torn last line from a killed run is ignored), and the
summary with the KernelBench-style baseline beside lowercheck's numbers."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

CORPUS = Path(__file__).parents[2] / "corpus"


def make_corpus(root: Path) -> Path:
    folder = root / "vector_add"
    folder.mkdir(parents=True)
    for name in ("vadd.cu", "vadd.py", "vadd_le_mask.py", "vadd_floor_grid.py"):
        shutil.copy(CORPUS / "vector_add" / name, folder / name)
    (folder / "expected.toml").write_text('''
[[case]]
source = "vadd.cu"
target = "vadd.py"
verdict = "equivalent"
codes = []
description = "the port"

[[case]]
source = "vadd.cu"
target = "vadd_le_mask.py"
verdict = "different"
codes = ["LC201"]
description = "mask <= n"

[[case]]
source = "vadd.cu"
target = "vadd_floor_grid.py"
mode = "static"
verdict = "different"
codes = ["LC202"]
description = "grid floors"
''')
    return root


def test_corpus_runs_resumes_and_compares_with_the_baseline(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "corpus")
    results = tmp_path / "results.jsonl"
    # A run killed after one case: its outcome is on disk (marked so we can see it is not redone),
    # followed by half a line.
    folder = str(root / "vector_add")
    finished = {"key": f"{folder}:vadd.cu:vadd_floor_grid.py:static", "tool": "lowercheck", "verdict": "different",
                "codes": ["LC202"], "seconds": -1.0, "message": "from the killed run"}
    results.write_text(json.dumps(finished) + "\n" + '{"key": "torn')
    report = tmp_path / "detection.md"
    done = subprocess.run([sys.executable, "-m", "lowercheck", "corpus", str(root), "-j", "2", "--json", str(results),
                           "--baseline", "kernelbench", "--markdown", str(report)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in results.read_text().splitlines()[1:]]  # the torn line is gone
    kept = json.loads(results.read_text().splitlines()[0])
    assert kept["seconds"] == -1.0  # not redone
    runs = {(r["key"].split(":")[2], r["tool"]) for r in lines}
    assert runs == {("vadd.py", "lowercheck"), ("vadd_le_mask.py", "lowercheck"),
                    ("vadd.py", "kernelbench"), ("vadd_le_mask.py", "kernelbench")}
    text = report.read_text()
    assert "| seeded bugs detected | 2 / 2 (100.0%) | 0 / 1 (0.0%) |" in text  # <= n passes allclose
    assert "| false positives on correct pairs | 0 / 1 | 0 / 1 |" in text
    # Started again with everything done: nothing runs.
    again = subprocess.run([sys.executable, "-m", "lowercheck", "corpus", str(root), "--json", str(results),
                            "--baseline", "kernelbench"], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and len(results.read_text().splitlines()) == 1 + 4
