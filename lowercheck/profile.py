"""`make profile`: where the wall time of a static diff and of a Triton lowering goes, beside the
compilers lowercheck wraps (issue 19's first step: find the time before cutting it).

Each measurement is a fresh process (`python -m cProfile -m lowercheck ...`), cold (an empty
lowercheck cache; the OS cache warm) and warm (the same cache again). The main process's profile is
split into the stages below by the cumulative time of the functions that own them; the front-end
workers run in their own processes (torch and Triton imports, capture, Triton's compile), so their
share is the time the main process waits for them. The anchors: `nvcc -cubin` of the CUDA side, and
Triton's own compile of the Triton side's kernel to TTIR (in a fresh process: with and without
importing Triton). The section between the markers of docs/bench.md is rewritten.
"""

from __future__ import annotations

import argparse
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lowercheck import bench

ROOT = Path(__file__).resolve().parents[1]
START, END = "<!-- profile: start (make profile) -->", "<!-- profile: end -->"
# stage -> the functions whose cumulative time it is ("file:function", files relative to the checkout)
STAGES = {
    "imports in the main process": ["<frozen importlib._bootstrap>:_find_and_load"],
    "waiting for the front-end workers (their torch/Triton imports, capture, Triton compile)":
        ["lowercheck/frontends/isolated.py:_call"],
    "CUDA front end (libclang parse, lowering to the kernel IR)":
        ["lowercheck/frontends/cuda/__init__.py:lower", "lowercheck/frontends/cuda/__init__.py:entries"],
    "extract-accesses pass": ["lowercheck/lowering.py:extract_accesses"],
    "isl relations and the static checks": ["lowercheck/compare/static.py:analyse"],
    "the report": ["lowercheck/report/terminal.py:render"],
}
PAIR = list(bench.PAIR)
TRITON_FILE, TRITON_KERNEL = bench.PAIR[1], bench.TRITON_KERNEL


def _profiled(args: list[str], cache: Path, out: Path) -> tuple[float, dict[str, float]]:
    """Wall time of `lowercheck ARGS` under cProfile, and the stages' shares of it."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m", "lowercheck", *args], cwd=ROOT,
                   env=bench.environment(cache), capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - start
    stats = pstats.Stats(str(out)).stats  # type: ignore[attr-defined] - pstats keeps them there
    total = max((ct for (_f, _l, name), (_cc, _nc, _tt, ct, _c) in stats.items() if name == "<module>"), default=wall)
    shares: dict[str, float] = {}
    for stage, owners in STAGES.items():
        seconds = 0.0
        for (file, _line, name), (_cc, _nc, _tt, ct, _callers) in stats.items():
            shown = file.replace(str(ROOT) + "/", "")
            if f"{shown}:{name}" in owners:
                seconds += ct
        shares[stage] = seconds
    shares["interpreter start-up and the rest"] = max(wall - sum(shares.values()), 0.0)
    shares["(profiled main process)"] = total
    return wall, shares


def _median(runs: list[float]) -> float:
    return statistics.median(runs)


def measure(repeats: int = 3) -> dict:
    with tempfile.TemporaryDirectory(prefix="lowercheck-profile-") as tmp:
        folder = Path(tmp)
        results: dict = {}
        # --no-reuse: where a computed report's time goes (a reused one costs no stage; `make bench`)
        for name, args in (("static diff of vector_add", ["diff", *PAIR, "--no-run", "--no-reuse"]),
                           ("lower of the Triton side", ["lower", TRITON_FILE])):
            cold, warm = [], []
            for i in range(repeats):
                cache = folder / f"{name[:6]}-{i}"
                cold.append(_profiled(args, cache, folder / "cold.prof"))
                warm.append(_profiled(args, cache, folder / "warm.prof"))
            results[name] = {"cold": min(cold, key=lambda r: r[0]), "warm": min(warm, key=lambda r: r[0]),
                             "cold_median": _median([r[0] for r in cold]), "warm_median": _median([r[0] for r in warm])}
        nvcc = bench.nvcc_cubin_s(repeats, folder)
        if nvcc is not None:
            results["nvcc -cubin"] = nvcc
        ttir = bench.ttir_compile_s(repeats, folder)
        if ttir:
            results["triton to TTIR"] = ttir
        return results


def markdown(results: dict) -> str:
    lines = [START, "## Where the time goes (`make profile`)", ""]
    nvcc, ttir = results.get("nvcc -cubin"), results.get("triton to TTIR")
    for name, figures in ((k, v) for k, v in results.items() if isinstance(v, dict) and "cold" in v):
        lines += [f"### {name}", "", "| stage | cold s | warm s |", "| --- | --- | --- |"]
        cold, warm = figures["cold"][1], figures["warm"][1]
        for stage in cold:
            lines.append(f"| {stage} | {cold[stage]:.2f} | {warm[stage]:.2f} |")
        lines.append(f"| **wall (median of the runs)** | **{figures['cold_median']:.2f}** | **{figures['warm_median']:.2f}** |")
        anchor = nvcc if name.startswith("static") else (ttir or {}).get("process_s")
        if anchor:
            what = "`nvcc -cubin` of vadd.cu" if name.startswith("static") else "Triton's compile to TTIR in a fresh process"
            lines.append(f"\nRatio against {what} ({anchor:.2f} s): cold {figures['cold_median'] / anchor:.1f}x, "
                         f"warm {figures['warm_median'] / anchor:.1f}x.")
        lines.append("")
    if ttir:
        lines.append(f"Triton's compile of `{TRITON_KERNEL}` to TTIR: {ttir['compile_s']:.2f} s after importing Triton, "
                     f"{ttir['process_s']:.2f} s with the imports.")
    lines += ["", f"Machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}; measured {time.strftime('%Y-%m-%d')}.",
              "Stages overlap (the workers run while the CUDA side lowers), so their sum may exceed the wall time; "
              "the \"rest\" line is the wall time the stages above do not explain.", END]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m lowercheck.profile", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "bench.md")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    text = markdown(measure(args.repeats))
    bench.write_section(args.out, text, START, END)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
