"""A load_inline call's shapes at the task's own sizes (`cuda_extension.real_shapes`), where a launch's
grid is checked against the device's limits: only the run at the task's (scaled) sizes maps, and
only where every scaled extent stands for one task size."""

from __future__ import annotations

from lowercheck.frontends.base import TensorArg, ValueArg
from lowercheck.runners.cuda_extension import real_shapes

TASK = {"rows": 131072, "dim": 64}


def test_the_task_run_maps_each_scaled_extent_to_its_task_size():
    binding = {"x": TensorArg((1024, 64), "float32"), "w": TensorArg((64,), "float32"), "eps": ValueArg(1e-6)}
    real = real_shapes(binding, {"rows": 1024, "dim": 64}, TASK)
    assert real == {"x": TensorArg((131072, 64), "float32"), "w": TensorArg((64,), "float32"), "eps": ValueArg(1e-6)}


def test_other_runs_and_unscaled_tasks_map_nothing():
    binding = {"x": TensorArg((1, 64), "float32")}
    assert real_shapes(binding, {"rows": 1, "dim": 64}, TASK) is None  # a batch of one: 1 is no scaled size
    assert real_shapes(binding, {"rows": 1025, "dim": 65}, TASK) is None  # every size + 1
    assert real_shapes(binding, dict(TASK), TASK) is None  # the task run at its own sizes: nothing to map


def test_an_extent_that_could_stand_for_two_task_sizes_maps_nothing():
    task = {"m": 5120, "n": 9216}
    binding = {"a": TensorArg((1024, 1024), "float32")}
    assert real_shapes(binding, {"m": 1024, "n": 1024}, task) is None
