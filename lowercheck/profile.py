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
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
PAIR = ["corpus/vector_add/vadd.cu", "corpus/vector_add/vadd.py"]
TRITON_FILE, TRITON_KERNEL = "corpus/vector_add/vadd.py", "vadd_kernel"
_TTIR_SCRIPT = """
import json, sys, time, importlib.util
begin = time.perf_counter()
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource, make_backend
from triton._C.libtriton import ir
spec = importlib.util.spec_from_file_location("k", sys.argv[1]); module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
kernel = getattr(module, sys.argv[2])
start = time.perf_counter()
target = GPUTarget("cuda", 90, 32)
backend = make_backend(target)
signature = {name: ("constexpr" if i in kernel.constexprs else "*fp32" if name.endswith("ptr") else "i32")
             for i, name in enumerate(kernel.arg_names)}
source = ASTSource(fn=kernel, signature=signature, constexprs={(i,): 1024 for i in kernel.constexprs})
options = backend.parse_options({"num_warps": 4})
context = ir.context(); ir.load_dialects(context); backend.load_dialects(context)
module_ir = source.make_ir(target, options, backend.get_codegen_implementation(options), backend.get_module_map(),
                           context)
stages = {}
backend.add_stages(stages, options, source.language)
stages["ttir"](module_ir, {})
end = time.perf_counter()
print(json.dumps({"compile_s": end - start, "process_s": end - begin}))
"""


def _env(cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["LOWERCHECK_CACHE_DIR"] = str(cache)
    env.setdefault("TRITON_CACHE_DIR", str(ROOT / ".cache" / "triton"))
    env.setdefault("TRITON_HOME", str(ROOT / ".cache" / "triton-home"))
    return env


def _profiled(args: list[str], cache: Path, out: Path) -> tuple[float, dict[str, float]]:
    """Wall time of `lowercheck ARGS` under cProfile, and the stages' shares of it."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m", "lowercheck", *args], cwd=ROOT,
                   env=_env(cache), capture_output=True, text=True, timeout=600)
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
        for name, args in (("static diff of vector_add", ["diff", *PAIR, "--no-run"]),
                           ("lower of the Triton side", ["lower", TRITON_FILE])):
            cold, warm = [], []
            for i in range(repeats):
                cache = folder / f"{name[:6]}-{i}"
                cold.append(_profiled(args, cache, folder / "cold.prof"))
                warm.append(_profiled(args, cache, folder / "warm.prof"))
            results[name] = {"cold": min(cold, key=lambda r: r[0]), "warm": min(warm, key=lambda r: r[0]),
                             "cold_median": _median([r[0] for r in cold]), "warm_median": _median([r[0] for r in warm])}
        nvcc = shutil.which("nvcc")
        if nvcc:
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                subprocess.run([nvcc, "-cubin", "-arch=sm_90", "-o", str(folder / "k.cubin"), str(ROOT / PAIR[0])],
                               capture_output=True, timeout=300)
                times.append(time.perf_counter() - start)
            results["nvcc -cubin"] = _median(times)
        ttir = []
        for _ in range(repeats):
            done = subprocess.run([sys.executable, "-c", _TTIR_SCRIPT, str(ROOT / TRITON_FILE), TRITON_KERNEL],
                                  capture_output=True, text=True, timeout=300, env=_env(folder / "ttir"))
            if done.returncode == 0:
                ttir.append(json.loads(done.stdout.strip().splitlines()[-1]))
        if ttir:
            results["triton to TTIR"] = {"compile_s": _median([t["compile_s"] for t in ttir]),
                                         "process_s": _median([t["process_s"] for t in ttir])}
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


def write(text: str, path: Path) -> None:
    old = path.read_text() if path.exists() else ""
    if START in old and END in old:
        new = old[:old.index(START)] + text + old[old.index(END) + len(END) + 1:]
    else:
        new = old.rstrip("\n") + "\n\n" + text
    path.write_text(new)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m lowercheck.profile", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "bench.md")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    text = markdown(measure(args.repeats))
    write(text, args.out)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
