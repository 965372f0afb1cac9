"""LC304: an output that differs between two runs on the same inputs, with the size of the change."""

from __future__ import annotations

import warnings

import numpy as np

from lowercheck.compare.dynamic import determinism_findings
from lowercheck.runners.base import RunResult


def lc304(first: list[float], second: list[float]) -> list:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from NaN-only differences
        return determinism_findings("target", RunResult(outputs={"out": np.array(first, np.float32)}),
                                    RunResult(outputs={"out": np.array(second, np.float32)}), {"n": len(first)})


def test_a_changed_value_is_reported_with_its_largest_change():
    [found] = lc304([1.0, 2.0, 3.0], [1.0, 2.5, 3.25])
    assert found.code == "LC304" and "2 elements, by up to 0.5" in found.message
    assert found.witness["index"] == 1


def test_nan_in_one_run_only_is_reported_without_a_distance():
    [found] = lc304([1.0, float("nan")], [1.0, 2.0])
    assert "1 elements, NaN in one run and not in the other" in found.message


def test_nan_in_both_runs_is_no_change():
    assert lc304([float("nan"), 1.0], [float("nan"), 1.0]) == []
