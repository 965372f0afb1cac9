"""`make bench`: wall time of a static-only diff of the vector_add pair, imports included.

Runs `lowercheck diff corpus/vector_add/vadd.cu corpus/vector_add/vadd.py --no-run` as a fresh
process: once with an empty Triton cache (cold) and several times with it filled (warm). Writes the
numbers to a Markdown file; the target is under 3 s warm on a 2-core machine.
"""

from __future__ import annotations

import argparse
import datetime
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAIR = ("corpus/vector_add/vadd.cu", "corpus/vector_add/vadd.py")
TARGET_S = 3.0


def _time_once(env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "lowercheck", "diff", *PAIR, "--no-run"], env=env,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"the benchmarked command failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="docs/bench.md")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="lowercheck-bench-", dir=os.environ.get("TMPDIR")))
    env = {**os.environ, "TRITON_CACHE_DIR": str(cache / "triton"), "TRITON_HOME": str(cache / "home")}
    try:
        cold = _time_once(env)
        warm = [_time_once(env) for _ in range(args.repeat)]
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    median = statistics.median(warm)
    verdict = "meets" if median < TARGET_S else "MISSES"
    text = f"""# Benchmark: static-only diff of vector_add

`lowercheck diff {PAIR[0]} {PAIR[1]} --no-run`, a fresh process each time (imports included).

| measurement | seconds |
| --- | --- |
| cold (empty Triton cache) | {cold:.2f} |
| warm, median of {len(warm)} | {median:.2f} |
| warm, min / max | {min(warm):.2f} / {max(warm):.2f} |

Target: under {TARGET_S:.0f} s warm — this run {verdict} it.
Machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}; measured {datetime.date.today().isoformat()}.
"""
    Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
