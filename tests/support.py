"""Helpers shared by the tests (on the path through pytest's `pythonpath = ["tests"]`)."""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import subprocess
import sys
from pathlib import Path

from lowercheck.runners.base import RunRequest, RunResult


def run_lowercheck(args: list[str]) -> subprocess.CompletedProcess:
    """`lowercheck ARGS` in this test process, with the result of `subprocess.run(...,
    capture_output=True, text=True)`. The front ends' workers and the runners' fork servers stay up
    between calls, so a test pays for importing torch, Triton and JAX once per test process, not once
    per command; each run still goes to its own child process. A usage error's SystemExit becomes its
    exit code, as in the process. The tests that are about the process itself (a hang, a port that
    exits, a missing file once) run `python -m lowercheck` for real."""
    from lowercheck.cli import main

    out, err = io.StringIO(), io.StringIO()
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "200"
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args), keep_workers=True)
            except SystemExit as stop:  # argparse's usage errors (exit 2), as the process would exit
                code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous
    return subprocess.CompletedProcess(["lowercheck", *args], code, out.getvalue(), err.getvalue())


def marked_processes(variable: str, marker: str) -> list[int]:
    """The live processes whose environment has `variable` set to `marker` (a test sets it on the
    command it starts; every process that command starts inherits it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if f"{variable}={marker}".encode() in environ.split(b"\0") and state != "Z":
            found.append(int(entry.name))
    return found


_ROOT = Path(__file__).parents[1]

_TRITON_DRIVER = """
import pickle, sys
from lowercheck.runners.triton_interp import run
request = pickle.load(open(sys.argv[1], "rb"))
pickle.dump(run(request), open(sys.argv[2], "wb"))
"""


def run_in_child(tmp_path: Path, path: Path, entry: str, args: dict) -> RunResult:
    """The Triton interpreter runner on one request, in a fresh process (TRITON_INTERPRET must be
    set before triton is imported), with the caches inside the checkout."""
    request = RunRequest("triton", str(path), entry, None, args, options={"env": {"TRITON_INTERPRET": "1"}})
    req, res = tmp_path / "request.pkl", tmp_path / "result.pkl"
    req.write_bytes(pickle.dumps(request))
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.setdefault("TRITON_CACHE_DIR", str(_ROOT / ".cache" / "triton"))
    env.setdefault("TRITON_HOME", str(_ROOT / ".cache" / "triton-home"))
    env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    done = subprocess.run([sys.executable, "-c", _TRITON_DRIVER, str(req), str(res)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return pickle.loads(res.read_bytes())


def run_emulator(path: str, module, args: dict) -> RunResult:
    """The SIMT emulator on a lowered CUDA module (its entry, `args` by parameter name), in this process."""
    from lowercheck import ir
    from lowercheck.runners import simt

    return simt.run(RunRequest(language="cuda", path=str(path), entry=module.ops.first.sym_name.data,
                               ir=ir.print_ir(module), args=args, seed=0, options={}))
