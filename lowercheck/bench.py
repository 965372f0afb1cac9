"""`make bench`: lowercheck's cost as ratios against the compilers it wraps, measured in one run.

Each figure beside its anchor, written between the markers of docs/bench.md (`make profile` keeps
its own section there):
- a static-only diff of the vector_add pair (a fresh `lowercheck diff --no-run` process, imports
  included): cold (empty lowercheck cache), warm with the report reused (`report_cache`), and warm
  with the report computed again (`--no-reuse`: only the front ends' cache helps), against one
  `nvcc -cubin` of vadd.cu;
- `lowercheck lower` of the Triton side, cold and warm, against Triton's own compile of its kernel
  to TTIR in a fresh process (importing the file, so torch, included);
- the SIMT emulator against Triton's interpreter on the same computation;
- corpus cases per minute on a fixed slice of the corpus, with `-j 2` and on a local Ray cluster
  of 2 workers (report reuse off, so both compute every case), and the median full diff.
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

ROOT = Path(__file__).resolve().parents[1]
PAIR = ("corpus/vector_add/vadd.cu", "corpus/vector_add/vadd.py")
TRITON_KERNEL = "vadd_kernel"
START, END = "<!-- bench: start (make bench) -->", "<!-- bench: end -->"
# The targets: static diff <= 2x nvcc warm and <= 4x cold; lower <= 2x Triton's TTIR compile;
# the median full diff <= 5 s on 2 cores.
TARGETS = {"static diff, warm (report reused)": 2.0, "static diff, cold": 4.0, "lower (Triton), cold": 2.0,
           "lower (Triton), warm": 2.0}
MEDIAN_FULL_DIFF_S = 5.0
# Triton's own compile of a kernel to TTIR, in a fresh process that imports the kernel's file (and
# so torch) as a user's program would: the anchor of `lowercheck lower`.
TTIR_SCRIPT = """
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


def environment(cache: Path) -> dict[str, str]:
    """The environment of a measured command: lowercheck's cache in `cache`, the tools' caches in
    the checkout (warm, as a user's are after the first run)."""
    env = dict(os.environ)
    env["LOWERCHECK_CACHE_DIR"] = str(cache)
    env.setdefault("TRITON_CACHE_DIR", str(ROOT / ".cache" / "triton"))
    env.setdefault("TRITON_HOME", str(ROOT / ".cache" / "triton-home"))
    return env


def timed(command: list[str], env: dict[str, str], ok: tuple[int, ...] = (0,)) -> float:
    """Wall seconds of `command` run from the checkout; a failure stops the benchmark."""
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=900)
    elapsed = time.perf_counter() - start
    if done.returncode not in ok:
        raise SystemExit(f"the benchmarked command {' '.join(command)} failed ({done.returncode}):\n"
                         f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return elapsed


def nvcc_cubin_s(repeats: int, folder: Path) -> float | None:
    """The median wall time of `nvcc -cubin` of the CUDA side (None without nvcc)."""
    nvcc = shutil.which("nvcc")
    if not nvcc:
        return None
    return statistics.median(timed([nvcc, "-cubin", "-arch=sm_90", "-o", str(folder / "k.cubin"), PAIR[0]],
                                   dict(os.environ)) for _ in range(repeats))


def ttir_compile_s(repeats: int, folder: Path) -> dict[str, float] | None:
    """Triton's compile of the Triton side's kernel to TTIR in a fresh process: the median seconds
    of the compile alone and of the whole process."""
    import json

    found = []
    for _ in range(repeats):
        done = subprocess.run([sys.executable, "-c", TTIR_SCRIPT, str(ROOT / PAIR[1]), TRITON_KERNEL],
                              capture_output=True, text=True, timeout=300, env=environment(folder / "ttir"))
        if done.returncode == 0:
            found.append(json.loads(done.stdout.strip().splitlines()[-1]))
    if not found:
        return None
    return {"compile_s": statistics.median(t["compile_s"] for t in found),
            "process_s": statistics.median(t["process_s"] for t in found)}


def rounds(repeats: int, folder: Path) -> tuple[float | None, dict[str, float] | None, dict[str, list[float]]]:
    """The anchors and lowercheck's front-end figures, measured back to back in each of `repeats`
    rounds (a shared machine that slows down between two blocks of runs would skew their ratios);
    the anchors' medians over the rounds, and every figure's runs."""
    nvcc: list[float] = []
    ttir: list[dict[str, float]] = []
    figures: dict[str, list[float]] = {}
    for i in range(repeats):
        here = folder / f"round-{i}"
        here.mkdir()
        if (cubin := nvcc_cubin_s(1, here)) is not None:
            nvcc.append(cubin)
        if (compiled := ttir_compile_s(1, here)) is not None:
            ttir.append(compiled)
        for name, runs in front_end_figures(1, here).items():
            figures.setdefault(name, []).extend(runs)
    ttir_medians = {key: statistics.median(t[key] for t in ttir) for key in ("compile_s", "process_s")} if ttir else None
    return (statistics.median(nvcc) if nvcc else None), ttir_medians, figures


def _lowercheck(*args: str) -> list[str]:
    return [sys.executable, "-m", "lowercheck", *args]


def front_end_figures(repeats: int, folder: Path) -> dict[str, list[float]]:
    """Wall seconds of a static diff of the pair and of `lower` of its Triton side: cold (an empty
    lowercheck cache per run), warm with the report reused, warm computed again."""
    static = _lowercheck("diff", *PAIR, "--no-run")
    lower = _lowercheck("lower", PAIR[1])
    figures: dict[str, list[float]] = {name: [] for name in (
        "static diff, cold", "static diff, warm (report reused)", "static diff, warm (--no-reuse)",
        "lower (Triton), cold", "lower (Triton), warm")}
    for i in range(repeats):
        cache = folder / f"static-{i}"
        figures["static diff, cold"].append(timed(static, environment(cache)))
        figures["static diff, warm (report reused)"].append(timed(static, environment(cache)))
        figures["static diff, warm (--no-reuse)"].append(timed([*static, "--no-reuse"], environment(cache)))
        cache = folder / f"lower-{i}"
        figures["lower (Triton), cold"].append(timed(lower, environment(cache)))
        figures["lower (Triton), warm"].append(timed(lower, environment(cache)))
    return figures


def _emulator_vs_interpreter(n: int) -> tuple[float, float, int]:
    """Seconds of the SIMT emulator on vadd.cu and of Triton's interpreter on vadd.py for n elements
    (each the second run in its child process, so imports are not counted), and the emulator's
    thread-operations (threads x IR ops per thread)."""
    import numpy as np

    from lowercheck import ir
    from lowercheck.frontends import cuda
    from lowercheck.runners.base import RunRequest
    from lowercheck.runners.sandbox import run_isolated_batch

    module = cuda.lower(PAIR[0])
    kernel = next(op for op in module.ops if op.name == "func.func")
    ops_per_thread = sum(1 for _ in kernel.walk()) - 1
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.empty(n, np.float32)
    cuda_request = RunRequest("cuda", PAIR[0], "vadd", ir.print_ir(module), {"x": x, "y": y, "out": out, "n": n})
    triton_request = RunRequest("triton", PAIR[1], "vadd", None, {"x": x, "y": y},
                                options={"env": {"TRITON_INTERPRET": "1"}})
    emulator = run_isolated_batch([cuda_request] * 2, timeout_s=600, memory_mb=None)[1]
    interpreter = run_isolated_batch([triton_request] * 2, timeout_s=600, memory_mb=None)[1]
    for result in (emulator, interpreter):
        if result.error:
            raise SystemExit(f"benchmark run failed: {result.error}")
    return emulator.wall_s, interpreter.wall_s, n * ops_per_thread


def _matmul_runs(size: int) -> tuple[float, float] | None:
    """Seconds of the emulator (corpus/matmul/matmul.cu, shared-memory tiles) and of Triton's
    interpreter (corpus/matmul/matmul.py, tl.dot) on size^3, from `lowercheck diff --no-static` run
    twice at the same sizes (the second run of each side, imports excluded)."""
    import json

    source, target = "corpus/matmul/matmul.cu", "corpus/matmul/matmul.py"
    if not (Path(source).exists() and Path(target).exists()):
        return None
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "r.json"
        sizes = [f"--size=m={size},{size}", f"--size=n={size}", f"--size=k={size}"]
        subprocess.run([sys.executable, "-m", "lowercheck", "diff", source, target, "--no-static", *sizes,
                        "--timeout", "900", "--json", str(report)], capture_output=True, text=True)
        if not report.exists():
            return None
        runs = json.loads(report.read_text()).get("runs", [])
    if len(runs) < 2 or runs[1]["status"] == "failed":
        return None
    return runs[1]["wall_s"]["source"], runs[1]["wall_s"]["target"]


def corpus_slice(count: int) -> list:
    """`count` cases of the corpus spread over its folders (every k-th case in path order): the slice
    both corpus runners are timed on."""
    from lowercheck import batch

    cases = [c for c in batch.discover(ROOT / "corpus") if "hostile" not in Path(c.folder).parts]
    step = max(1, len(cases) // count)
    return cases[::step][:count]


def corpus_figures(count: int, folder: Path) -> dict:
    """Cases per minute of the slice with `-j 2` (threads over diff servers) and on a local Ray
    cluster of 2 workers, each from an empty results file and with report reuse off (both compute
    every case); the outcomes must agree."""
    from lowercheck import batch

    cases = corpus_slice(count)
    os.environ["LOWERCHECK_REUSE_REPORTS"] = "0"
    figures: dict = {"cases": len(cases)}
    start = time.perf_counter()
    local = batch.run_corpus(cases, folder / "j2.jsonl", 2, False, 600.0, progress=False)
    figures["-j 2"] = {"wall_s": time.perf_counter() - start,
                       "seconds": sorted(o.seconds for o in local.values())}
    try:
        from lowercheck import ray_corpus

        start = time.perf_counter()
        run = ray_corpus.run_corpus_ray(cases, folder / "ray.jsonl", workers=2, progress=False)
        figures["ray"] = {"wall_s": time.perf_counter() - start, "run_wall_s": run.wall_s,
                          "workers": run.markdown()}
        same = {k: (o.verdict, o.codes) for k, o in local.items()} == \
            {k: (o.verdict, o.codes) for k, o in run.outcomes.items()}
        figures["ray"]["same_outcomes"] = same
    except Exception as err:  # noqa: BLE001 - ray missing or failing: said in the report
        figures["ray"] = {"error": f"{type(err).__name__}: {err}"}
    return figures


def _ratio_rows(figures: dict[str, list[float]], nvcc: float | None, ttir: dict | None) -> list[str]:
    rows = ["| figure | lowercheck s (median) | anchor | anchor s | ratio | target |", "| --- | --- | --- | --- | --- | --- |"]
    for name, runs in figures.items():
        median = statistics.median(runs)
        if name.startswith("static"):
            anchor, anchor_s = "`nvcc -cubin` of vadd.cu", nvcc
        else:
            anchor, anchor_s = "Triton's compile to TTIR, fresh process", (ttir or {}).get("process_s")
        ratio = f"{median / anchor_s:.2f}x" if anchor_s else "-"
        target = TARGETS.get(name)
        verdict = "-" if target is None or not anchor_s else \
            f"<= {target:g}x: {'met' if median / anchor_s <= target else 'MISSED'}"
        rows.append(f"| {name} | {median:.2f} | {anchor} | {f'{anchor_s:.2f}' if anchor_s else 'not here'} | "
                    f"{ratio} | {verdict} |")
    return rows


def markdown(figures: dict[str, list[float]], nvcc: float | None, ttir: dict | None, corpus: dict | None,
             emulator: tuple[float, float, int], n: int, matmul: tuple[float, float] | None, repeats: int) -> str:
    emulator_s, interpreter_s, thread_ops = emulator
    lines = [START, "# Benchmark: lowercheck against the compilers it wraps (`make bench`)", "",
             f"Every figure from one run of `make bench`, fresh processes, imports included; medians of {repeats} "
             "rounds, each measuring the anchors and lowercheck back to back.",
             "Cold: an empty lowercheck cache (the OS's file cache and Triton's own cache warm). Warm, report "
             "reused: the same command again (`lowercheck/report_cache.py`: nothing it depends on changed). Warm, "
             "`--no-reuse`: the report computed again with the front ends' cache filled, what a diff costs when "
             "one side changed.", "", *_ratio_rows(figures, nvcc, ttir), ""]
    if ttir:
        lines.append(f"Triton's compile of `{TRITON_KERNEL}` to TTIR: {ttir['compile_s']:.2f} s after the imports, "
                     f"{ttir['process_s']:.2f} s for the whole process (importing vadd.py imports torch).")
    lines += ["", "What bounds the cold figures (`make profile` below splits them): the Triton side is imported and "
              "captured on shape tensors (`frontends/triton/shapes.py`, no torch._dynamo) in a sandboxed front-end "
              "worker, which starts a Python process and imports torch (which the file itself imports), Triton, "
              "sympy and xDSL before the capture and Triton's compile; the main process parses the CUDA side "
              "meanwhile and waits for it. `nvcc` imports none of that. A warm diff whose report must be computed "
              "pays for the main process's imports (xDSL, isl, sympy) and the comparison; an unchanged pair pays "
              "for a lookup."]
    if corpus:
        j2 = corpus["-j 2"]
        rate = corpus["cases"] / j2["wall_s"] * 60
        lines += ["", f"## Corpus throughput ({corpus['cases']} cases of corpus/, every k-th in path order)", "",
                  "| runner | wall s | cases per minute |", "| --- | --- | --- |",
                  f"| `-j 2` (threads over diff servers) | {j2['wall_s']:.0f} | {rate:.1f} |"]
        ray = corpus["ray"]
        if "error" in ray:
            lines.append(f"| Ray, local cluster of 2 workers | not measured: {ray['error'][:200]} | |")
        else:
            lines.append(f"| Ray, local cluster of 2 workers (cluster start included) | {ray['wall_s']:.0f} | "
                         f"{corpus['cases'] / ray['wall_s'] * 60:.1f} |")
            lines += ["", f"Same verdicts and codes on both runners: {'yes' if ray['same_outcomes'] else 'NO'}.", "",
                      ray["workers"]]
        median = statistics.median(j2["seconds"])
        lines += ["", f"Median full diff of a case (its own time, 2 at once on {os.cpu_count()} cores, front ends' imports "
                      f"paid once per diff server): {median:.2f} s; largest {max(j2['seconds']):.1f} s "
                      f"(target: median <= {MEDIAN_FULL_DIFF_S:g} s: "
                      f"{'met' if median <= MEDIAN_FULL_DIFF_S else 'MISSED'})."]
    matmul_text = ("Tiled matmul 512^3 (corpus/matmul: shared-memory tiles in CUDA, tl.dot in Triton): emulator "
                   f"{matmul[0]:.2f} s, interpreter {matmul[1]:.2f} s, ratio {matmul[0] / matmul[1]:.2f}."
                   if matmul else "Tiled matmul 512^3: not measured (corpus/matmul missing or the run failed).")
    lines += ["", "## Emulator against Triton's interpreter", "",
              f"Vector add, n = {n:,} (16M), the same computation on both (second run in each child process).", "",
              "| engine | seconds | thread-operations per second |", "| --- | --- | --- |",
              f"| lowercheck SIMT emulator (vadd.cu) | {emulator_s:.2f} | {thread_ops / emulator_s:.3g} |",
              f"| Triton interpreter (vadd.py) | {interpreter_s:.2f} | |", "",
              f"Emulator time / interpreter time: {emulator_s / interpreter_s:.2f} (target: at most 1).", "",
              matmul_text, "",
              f"Machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}; measured "
              f"{datetime.date.today().isoformat()}.", END]
    return "\n".join(lines) + "\n"


def write_section(path: Path, text: str, start: str, end: str) -> None:
    """Put `text` (which starts with `start` and ends with `end`) in place of that section of `path`,
    or append it; the rest of the file is kept (bench and profile each own a section)."""
    old = path.read_text() if path.exists() else ""
    if start in old and end in old:
        new = old[:old.index(start)] + text + old[old.index(end) + len(end) + 1:]
    elif old.strip():
        new = text + "\n" + old if start.startswith("<!-- bench") else old.rstrip("\n") + "\n\n" + text
    else:
        new = text
    path.write_text(new)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m lowercheck.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "bench.md")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--corpus-cases", type=int, default=24, help="cases of the corpus slice (0: skip)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lowercheck-bench-") as tmp:
        folder = Path(tmp)
        nvcc, ttir, figures = rounds(args.repeat, folder)
        corpus = corpus_figures(args.corpus_cases, folder) if args.corpus_cases else None
    n = 16 * 2**20
    emulator = _emulator_vs_interpreter(n)
    matmul = _matmul_runs(512)
    text = markdown(figures, nvcc, ttir, corpus, emulator, n, matmul, args.repeat)
    write_section(args.out, text, START, END)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
