"""The Triton interpreter runner, each run in a fresh process (TRITON_INTERPRET must be set before
triton is imported): correct results, out-of-bounds accesses caught and masked, poison visible."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lowercheck.runners import poison
from support import run_in_child

ROOT = Path(__file__).parents[2]
INPUTS = Path(__file__).parent / "inputs"
FRONTEND_INPUTS = ROOT / "tests" / "frontends" / "triton" / "inputs"



@pytest.fixture
def xy() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)


def test_vadd_is_correct(tmp_path: Path, xy) -> None:
    x, y = xy
    result = run_in_child(tmp_path, FRONTEND_INPUTS / "vadd.py", "add", {"x": x, "y": y})
    assert result.error is None, result.error
    assert result.oob == []
    np.testing.assert_array_equal(result.outputs["return0"], x + y)
    np.testing.assert_array_equal(result.outputs["x"], x)  # inputs come back unchanged


def test_out_param_and_float_scalar(tmp_path: Path, xy) -> None:
    x, y = xy
    out = poison.fill(np.empty(1000, np.float32))
    result = run_in_child(tmp_path, FRONTEND_INPUTS / "saxpy.py", "saxpy",
                          {"a": 1.5, "x": x, "y": y, "out": out, "n": 1000})
    assert result.error is None, result.error
    np.testing.assert_allclose(result.outputs["out"], 1.5 * x + y, rtol=1e-6)


def test_missing_mask_is_out_of_bounds_and_masked(tmp_path: Path, xy) -> None:
    x, y = xy
    result = run_in_child(tmp_path, INPUTS / "triton_nomask.py", "add", {"x": x, "y": y})
    assert result.error is None, result.error
    events = {(e.buffer, e.kind): e for e in result.oob}
    assert set(events) == {("x", "read"), ("y", "read"), ("return0", "write")}
    for event in events.values():
        assert (event.index, event.extent, event.where["pid"]) == (1000, 1000, 0)
    np.testing.assert_array_equal(result.outputs["return0"], x + y)


def test_unwritten_output_keeps_poison(tmp_path: Path, xy) -> None:
    x, _ = xy
    result = run_in_child(tmp_path, INPUTS / "triton_partial.py", "copy", {"x": x})
    assert result.error is None, result.error
    out = result.outputs["return0"]
    np.testing.assert_array_equal(out[:500], x[:500])
    assert poison.mask(out)[500:].all() and not poison.mask(out)[:500].any()


def test_wrapper_error_names_the_line(tmp_path: Path, xy) -> None:
    x, _ = xy
    result = run_in_child(tmp_path, FRONTEND_INPUTS / "wrapper_raises.py", "copy", {"x": x})
    assert result.error_kind == "user"
    assert "wrapper_raises.py:15: AttributeError" in result.error


def test_block_pointers_run_as_the_pointer_blocks_and_masks_they_stand_for(tmp_path: Path) -> None:
    """Triton 3.6's block pointers (3.9 removed them; models still write them) in the interpreter:
    with boundary_check the copy is exact at sizes that are no multiple of the block; without it, the
    accesses past the tensor are recorded (and masked off) like any pointer's."""
    x = np.random.default_rng(0).standard_normal((20, 40)).astype(np.float32)
    checked = run_in_child(tmp_path, INPUTS / "triton_block_ptr.py", "copy", {"x": x})
    assert checked.error is None, checked.error
    assert checked.oob == []
    np.testing.assert_array_equal(checked.outputs["return0"], x)
    unchecked = run_in_child(tmp_path, INPUTS / "triton_block_ptr.py", "copy_unchecked", {"x": x})
    assert unchecked.error is None, unchecked.error
    assert {(e.buffer, e.kind) for e in unchecked.oob} == {("x", "read"), ("return0", "write")}
