"""What Triton's compiler accepts and its CPU interpreter cannot run by itself, run through the
runner's shims (`lowercheck.runners.triton_shims`), each run in a fresh process (TRITON_INTERPRET
must be set before triton is imported)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np

from lowercheck.runners.base import RunRequest, RunResult

ROOT = Path(__file__).parents[3]
INPUTS = Path(__file__).parent / "inputs"

_DRIVER = """
import pickle, sys
from lowercheck.runners.triton_interp import run
request = pickle.load(open(sys.argv[1], "rb"))
pickle.dump(run(request), open(sys.argv[2], "wb"))
"""


def run_in_child(tmp_path: Path, path: Path, entry: str, args: dict) -> RunResult:
    request = RunRequest("triton", str(path), entry, None, args, options={"env": {"TRITON_INTERPRET": "1"}})
    req, res = tmp_path / "request.pkl", tmp_path / "result.pkl"
    req.write_bytes(pickle.dumps(request))
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.setdefault("TRITON_CACHE_DIR", str(ROOT / ".cache" / "triton"))
    env.setdefault("TRITON_HOME", str(ROOT / ".cache" / "triton-home"))
    env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    done = subprocess.run([sys.executable, "-c", _DRIVER, str(req), str(res)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return pickle.loads(res.read_bytes())


def test_autotuned_kernel_runs_without_a_gpu_driver(tmp_path: Path) -> None:
    # Autotuning times each config on the GPU driver ("0 active drivers" on a CPU): the first runs.
    x = np.random.default_rng(0).standard_normal(4096).astype(np.float32)
    result = run_in_child(tmp_path, INPUTS / "autotuned.py", "neg_copy", {"x": x})
    assert result.error is None, result.error
    np.testing.assert_array_equal(result.outputs["return0"], -x)
