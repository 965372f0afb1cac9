"""What Triton's compiler accepts and its CPU interpreter cannot run by itself, run through the
runner's shims (`lowercheck.runners.triton_shims`), each run in a fresh process (TRITON_INTERPRET
must be set before triton is imported)."""

from __future__ import annotations

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
