"""The Pallas runner (`lowercheck.runners.pallas_interp`) in its child process: the interpreter's
results, the poison of outputs no program writes, and the user's failures with their line."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from lowercheck.runners import poison
from lowercheck.runners.base import RunRequest
from lowercheck.runners.sandbox import run_isolated_batch

INPUTS = Path(__file__).parent / "inputs"


def run(name: str, entry: str, **args):
    request = RunRequest(language="pallas", path=str(INPUTS / name), entry=entry, ir=None, args=args)
    return run_isolated_batch([request], timeout_s=120)[0]


def test_vadd_runs_and_unwritten_outputs_keep_the_poison() -> None:
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    good = run("vadd_pallas.py", "vadd", x=x, y=y)
    assert good.error is None, good.error
    np.testing.assert_array_equal(good.outputs["return0"], x + y)
    np.testing.assert_array_equal(good.outputs["x"], x)  # inputs come back unchanged
    assert not poison.mask(good.outputs["return0"]).any()
    shifted = run("vadd_out_shifted.py", "vadd", x=x, y=y)  # block 0 of the output is never written
    assert shifted.error is None, shifted.error
    unwritten = poison.mask(shifted.outputs["return0"])
    assert unwritten[:256].all() and not unwritten[256:].any()


def test_a_failing_entry_reports_the_users_line() -> None:
    result = run("vadd_pallas.py", "vadd", x=np.zeros(8, np.float32), y=np.zeros((2, 4), np.float32))
    assert result.error_kind == "user"
    assert "vadd_pallas.py:" in result.error


def test_a_tpu_kernel_runs_in_tpu_interpret_mode_which_checks_bounds() -> None:
    """A TPU kernel (scalar prefetch, Mosaic compiler params) runs in JAX's TPU interpret mode: its
    results as the plain interpreter's, and a page index outside `x` stops the run at that read,
    reported as an out-of-bounds read of `x` (the plain interpreter clamps it silently)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 128)).astype(np.float32)
    pages = np.array([3, 0, 15, 7, 7, 1], np.int32)
    good = run("paged_rows_tpu.py", "gather_rows", pages=pages, x=x)
    assert good.error is None and good.oob == [], (good.error, good.oob)
    np.testing.assert_array_equal(good.outputs["return0"], 2 * x[pages])
    bad = run("paged_rows_tpu.py", "gather_rows", pages=np.array([3, 0, 40, 7, 7, 1], np.int32), x=x)
    assert bad.error_kind == "user"
    (event,) = bad.oob
    assert (event.buffer, event.kind, event.index, event.extent) == ("x", "read", 40 * 128, 16 * 128), event
