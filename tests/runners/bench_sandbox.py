"""What the sandbox costs: not a test (pytest does not collect it), a measurement to rerun.

    .venv/bin/python tests/runners/bench_sandbox.py [--repeat 5] [--stages 20] [--skip-diffs]

Two variants, interleaved so that both see the same load:
- `sandbox`: lowercheck as it is;
- `none`: every process lowercheck starts imports `sitecustomize` from a folder this script writes
  (PYTHONPATH), which replaces the sandbox's entry points (`confine.enter`, `confine.hold`, where
  present) by what was there before the sandbox: the stage's folders made, TMPDIR, the address-space
  limit. The switch lives here only; the product reads no variable for it.

Measured, median of `--repeat`: a static diff (`--no-run`) and a full diff of
corpus/vector_add/vadd.cu against vadd.py, each with an empty front-end cache (so every front-end
call runs) and `--no-reuse`; and, median of `--stages`, one stage on a warm server: a run batch of
one request (the fake runner) and a front-end call (`entries` of vadd.py in a warm worker).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAIR = [str(ROOT / "corpus/vector_add/vadd.cu"), str(ROOT / "corpus/vector_add/vadd.py")]
SITE = '''
import os
if os.environ.get("BENCH_SANDBOX_COUNT"):  # one line per sandboxed stage
    from lowercheck.runners import confine
    _enter = confine.enter

    def counted(box):
        with open(os.environ["BENCH_SANDBOX_COUNT"], "a") as out:  # before the sandbox denies it
            out.write("stage\\n")
        return _enter(box)

    confine.enter = counted
if os.environ.get("BENCH_SANDBOX_OFF"):
    import resource
    from lowercheck.runners import confine

    def enter(box):
        for folder in box.writable:
            os.makedirs(folder, exist_ok=True)
        if box.memory_mb is not None:
            limit = box.memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        if box.writable:
            for name in ("TMPDIR", "TMP", "TEMP"):
                os.environ[name] = box.writable[0]
            import tempfile
            tempfile.tempdir = None
        return []

    confine.enter = enter
    if hasattr(confine, "hold"):
        confine.hold = lambda: []
    confine.shortfall = lambda: ()
'''


def _env(off: bool, site: Path) -> dict[str, str]:
    env = dict(os.environ)
    for name, sub in (("TRITON_CACHE_DIR", "triton"), ("TRITON_HOME", "triton-home"),
                      ("JAX_COMPILATION_CACHE_DIR", "jax"), ("XDG_CACHE_HOME", "xdg")):
        env.setdefault(name, str(ROOT / ".cache" / sub))
    env["PYTHONPATH"] = os.pathsep.join([str(site), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("BENCH_SANDBOX_OFF", None)
    if off:
        env["BENCH_SANDBOX_OFF"] = "1"
    return env


def _diff(env: dict[str, str], static: bool) -> float:
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-cache-") as cache:
        env = {**env, "LOWERCHECK_CACHE_DIR": cache}
        command = [str(ROOT / ".venv/bin/lowercheck"), "diff", *PAIR, "--no-reuse", *(["--no-run"] if static else [])]
        start = time.perf_counter()
        done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
        took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return took


STAGES = '''
import json, os, statistics, sys, tempfile, time
sys.path.insert(0, os.path.join(sys.argv[1], "tests", "runners"))
from lowercheck.runners.base import RunRequest
from lowercheck.runners.sandbox import run_isolated_batch, stop_servers
from lowercheck.frontends.isolated import IsolatedFrontend
count, vadd = int(sys.argv[2]), sys.argv[3]
request = RunRequest("fake", "", "", None, {"x": __import__("numpy").arange(4.0)},
                     options={"do": "double", "env": {"LOWERCHECK_RUNNERS": "fake=fake_runner",
                                                      "PYTHONPATH": os.path.join(sys.argv[1], "tests", "runners")
                                                      + os.pathsep + os.environ.get("PYTHONPATH", "")}})
run_isolated_batch([request])  # the server starts and warms up
runs = []
for _ in range(count):
    start = time.perf_counter()
    result = run_isolated_batch([request])[0]
    runs.append(time.perf_counter() - start)
    assert result.error is None, result.error
stop_servers()
frontend = IsolatedFrontend("triton")
calls = []
with tempfile.TemporaryDirectory() as folder:
    for k in range(count + 1):
        os.environ["LOWERCHECK_CACHE_DIR"] = os.path.join(folder, str(k))  # nothing cached: the call runs
        start = time.perf_counter()
        frontend.entries(vadd)
        if k:  # the first call waits for the worker's imports
            calls.append(time.perf_counter() - start)
frontend.close()
print(json.dumps({"run": statistics.median(runs), "call": statistics.median(calls)}))
'''


def _stages(env: dict[str, str], count: int) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", STAGES, str(ROOT), str(count), PAIR[1]], env=env, cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the stage benchmark failed:\n{done.stdout}{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--stages", type=int, default=20)
    parser.add_argument("--skip-diffs", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-site-") as site:
        (Path(site) / "sitecustomize.py").write_text(SITE)
        envs = {"sandbox": _env(False, Path(site)), "none": _env(True, Path(site))}
        times: dict[str, list[float]] = {}
        for kind in ("static", "full"):  # how many sandboxed stages each diff has
            with tempfile.TemporaryDirectory() as folder:
                count = Path(folder) / "count"
                _diff({**envs["sandbox"], "BENCH_SANDBOX_COUNT": str(count)}, kind == "static")
                print(f"{kind} diff: {len(count.read_text().splitlines())} sandboxed stages")
        for _ in range(args.repeat if not args.skip_diffs else 0):
            for variant, env in envs.items():
                for kind in ("static", "full"):
                    times.setdefault(f"{kind} diff, {variant}", []).append(_diff(env, kind == "static"))
        for variant, env in envs.items():
            for stage, took in _stages(env, args.stages).items():
                times[f"one {stage} stage, {variant}"] = [took]
        print(f"load average before/after: {os.getloadavg()[0]:.1f}")
        for name, values in times.items():
            print(f"{name:28s} median {statistics.median(values) * 1000:8.0f} ms   "
                  f"({', '.join(f'{v * 1000:.0f}' for v in values)})")


if __name__ == "__main__":
    main()
