"""Reading a task: the file's values over a preset's over the defaults, and bad task files as exit 2
with the file:line and a hint (never a traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import run_lowercheck

from lowercheck.audit import presets, task
from lowercheck.errors import UserError

PROBLEM = Path(__file__).parents[2] / "corpus" / "tasks" / "relu_sound" / "problem.py"


def _write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "problem.py").write_text(PROBLEM.read_text())
    path = tmp_path / "task.toml"
    path.write_text(text)
    return path


def test_file_values_win_over_the_preset_and_origins_say_where(tmp_path):
    path = _write(tmp_path, '[task]\nreference = "problem.py"\n[harness]\npreset = "kernelbench"\n'
                            '[harness.correctness]\natol = 1e-3\n[harness.timing]\nl2_flush = true\n')
    loaded = task.load(str(path))
    assert loaded.harness.correctness.atol == 1e-3
    assert loaded.harness.correctness.rtol == presets.PRESETS["kernelbench"].correctness.rtol
    assert loaded.harness.timing.l2_flush is True and loaded.harness.timing.reps == 100
    assert loaded.harness.origins["correctness.atol"].endswith("task.toml:6")
    assert loaded.harness.origins["timing.reps"] == "preset kernelbench"
    assert loaded.location("l2_flush").line == 8 and loaded.location("reps").line == 4  # the preset's line


def test_the_command_line_preset_replaces_the_files(tmp_path):
    path = _write(tmp_path, '[task]\nreference = "problem.py"\n[harness]\npreset = "kernelbench"\n')
    assert task.load(str(path), "torch-testing").harness.timing is None


def test_untimed_task_drops_the_presets_timing(tmp_path):
    path = _write(tmp_path, '[task]\nreference = "problem.py"\n[harness]\npreset = "recommended"\ntimed = false\n')
    assert task.load(str(path)).harness.timing is None


def test_tolerance_per_dtype(tmp_path):
    path = _write(tmp_path, '[task]\nreference = "problem.py"\n[harness.correctness]\n'
                            'atol = { float32 = 1e-5, bfloat16 = 1e-2 }\n')
    correctness = task.load(str(path)).harness.correctness
    assert correctness.tolerance("float32")[0] == 1e-5 and correctness.tolerance("bfloat16")[0] == 1e-2
    with pytest.raises(UserError, match="no entry for float16"):
        correctness.tolerance("float16")


def test_a_bare_problem_is_a_task_with_the_kernelbench_harness():
    loaded = task.load(str(PROBLEM))
    assert loaded.harness.preset == "kernelbench" and loaded.reference == PROBLEM.resolve()
    assert loaded.inputs_location().line == PROBLEM.read_text().splitlines().index("def get_inputs():") + 1


@pytest.mark.parametrize("text, line, message", [
    ('[task]\nreference = "problem.py"\n[harness.timing]\nrepetitions = 5\n', 4, "unknown key `repetitions`"),
    ('[task]\nreference = "problem.py"\n[harness.correctness]\natol = "loose"\n', 4, "atol = 'loose' is not valid"),
    ('[task]\nreference = "problem.py"\n[harness.correctness]\nseed = "sometimes"\n', 4, "one of per-trial"),
    ('[task]\nreference = "missing.py"\n', 2, "is not a file"),
    ('[task]\nreference = "problem.py"\ntarget = "v100"\n', 3, "unknown target"),
    ('[task]\nreference = "problem.py"\nkind = "porting"\n', 3, "unknown task kind"),
    ('[task]\nreference = "problem.py"\n[harness]\npreset = "nvbench"\n', 4, "unknown harness preset"),
    ('[task]\nreference = "problem.py"\nextra = 1\n', 3, "unknown key `extra`"),
    ('[task\n', 1, "not valid TOML"),
])
def test_bad_task_files_name_the_line(tmp_path, text, line, message):
    path = _write(tmp_path, text)
    result = run_lowercheck(["audit", str(path)])
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"task.toml:{line}: error: " in result.stderr and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr


def test_bad_command_line(tmp_path):
    assert run_lowercheck(["audit", str(tmp_path / "none.toml")]).returncode == 2
    result = run_lowercheck(["audit", str(PROBLEM), "--harness", "nvbench"])
    assert result.returncode == 2 and "unknown harness 'nvbench'" in result.stderr
    result = run_lowercheck(["audit", str(PROBLEM), "--gpu", "v100"])
    assert result.returncode == 2 and "unknown target" in result.stderr
    (tmp_path / "notes.txt").write_text("x")
    assert run_lowercheck(["audit", str(tmp_path / "notes.txt")]).returncode == 2


def test_the_issues_own_example_task_file(tmp_path):
    """The task file as the issue writes it (inputs = "get_inputs", timing keys) loads and audits."""
    (tmp_path / "problem.py").write_text(PROBLEM.read_text())
    path = tmp_path / "task.toml"
    path.write_text('[task]\nkind = "translation"\nreference = "problem.py"\ntarget = "h100-sxm"\n'
                    '[harness.correctness]\natol = 1e-2\nrtol = 1e-2\ninputs = "get_inputs"\ntrials = 5\n'
                    '[harness.timing]\nwarmup = 3\nreps = 10\nl2_flush = false\nstatistic = "mean"\n'
                    'streams = "current"\n')
    result = run_lowercheck(["audit", str(path)])
    assert result.returncode == 1, result.stdout + result.stderr  # mean of 10, current stream, ...
    assert "error[LC623]: the mean of 10 calls" in result.stdout and "error[LC622]" in result.stdout


def test_inputs_given_as_shapes_and_distributions(tmp_path):
    """`inputs` as shapes + distributions replaces get_inputs: ReLU on `rand` inputs is the identity."""
    (tmp_path / "relu.py").write_text("import torch\n\n\ndef relu(x):\n    return torch.relu(x)\n")
    path = tmp_path / "task.toml"
    path.write_text('[task]\nreference = "relu.py"\n[harness]\npreset = "recommended"\ntimed = false\n'
                    '[harness.correctness]\natol = 0.0\nrtol = 0.0\n'
                    'inputs = { x = { shapes = [[33, 1001], [17, 999]], distribution = "rand" } }\n')
    loaded = task.load(str(path))
    assert loaded.harness.correctness.input_list()[0]["distribution"] == "rand"
    result = run_lowercheck(["audit", str(path)])
    assert result.returncode == 1 and "error[LC611]: `relu` returns its input unchanged" in result.stdout
    assert "LC632" not in result.stdout  # two shapes: not one fixed shape
    path.write_text(path.read_text().replace('distribution = "rand"', 'distribution = "poisson"'))
    bad = run_lowercheck(["audit", str(path)])
    assert bad.returncode == 2 and "task.toml:9: error: harness.correctness.inputs" in bad.stderr
