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

from support import run_in_child

ROOT = Path(__file__).parents[3]
INPUTS = Path(__file__).parent / "inputs"



def test_autotuned_kernel_runs_without_a_gpu_driver(tmp_path: Path) -> None:
    # Autotuning times each config on the GPU driver ("0 active drivers" on a CPU): the first runs.
    x = np.random.default_rng(0).standard_normal(4096).astype(np.float32)
    result = run_in_child(tmp_path, INPUTS / "autotuned.py", "neg_copy", {"x": x})
    assert result.error is None, result.error
    np.testing.assert_array_equal(result.outputs["return0"], -x)


_COUNTED = """
import inspect, os, pickle, sys
import numpy as np
from lowercheck.runners.base import RunRequest
from lowercheck.runners.triton_interp import run
from triton.runtime import interpreter

calls = []
scan = inspect.getmembers
interpreter.inspect.getmembers = lambda *a, **k: calls.append(a[0]) or scan(*a, **k)
x = np.random.default_rng(0).standard_normal((16, 37)).astype(np.float32)
request = RunRequest("triton", sys.argv[1], "row_cumsum_twice", None, {"x": x}, options={})
first = run(request)  # installs the shims (which find the builtins here, once)
before = len(calls)
second = run(request)
pickle.dump((second.error, second.outputs.get("return0"), len(calls) - before, x), open(sys.argv[2], "wb"))
"""

_PATCHES = """
import pickle, sys
import triton.language
from triton.runtime import interpreter
from lowercheck.runners import triton_shims

sys.path.insert(0, sys.argv[1])
import nested_jit

def patched(fn):
    scope = interpreter._patch_lang(fn)
    changes = [(repr(obj), name) for obj, name, _ in scope._changes]
    scope.restore()
    return changes

kernels = [nested_jit.row_cumsum_twice_kernel.fn, nested_jit._twice.fn]
import triton.language.standard as standard
kernels.append(standard.cumsum.fn)  # its module sees `core`, not `tl`: other packages are patched
before = [patched(fn) for fn in kernels]
triton_shims.install()
# the block-pointer shims put `tl.advance` back, which Triton 3.9's language module no longer has
after = [[c for c in patched(fn) if c not in added] for fn in kernels
         for added in [[(repr(triton.language), "advance")]]]
pickle.dump((before, after), open(sys.argv[2], "wb"))
"""


def _child(tmp_path: Path, code: str, *args: str):
    """`code` run with ARGS and a result path in a fresh process under TRITON_INTERPRET=1: what it pickled there."""
    out = tmp_path / "out.pkl"
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    done = subprocess.run([sys.executable, "-c", code, *args, str(out)], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    return pickle.loads(out.read_bytes())


def test_nested_jit_calls_do_not_scan_the_language_again(tmp_path: Path) -> None:
    # Each of the 16 programs calls tl.cumsum and a helper: the interpreter patches the language
    # before each call, and used to list every package's members (inspect.getmembers) each time.
    error, out, scans, x = _child(tmp_path, _COUNTED, str(INPUTS / "nested_jit.py"))
    assert error is None, error
    np.testing.assert_allclose(out, 2 * np.cumsum(x, axis=1), rtol=1e-6, atol=1e-5)
    assert scans == 0


def test_the_language_is_patched_as_the_interpreter_patches_it(tmp_path: Path) -> None:
    before, after = _child(tmp_path, _PATCHES, str(INPUTS))
    assert all(before) and before == after
