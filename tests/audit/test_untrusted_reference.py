"""A task's reference is untrusted code: it runs in a sandboxed child; exiting, raising or hanging
there is a finding or an inconclusive verdict, never lowercheck's own exit."""

from __future__ import annotations

from pathlib import Path

from support import run_lowercheck

TASKS = Path(__file__).parent / "tasks"


def test_a_reference_calling_sys_exit_is_a_finding_not_our_exit_code():
    result = run_lowercheck(["audit", str(TASKS / "exits.py")])
    assert result.returncode == 1, result.stdout + result.stderr
    assert "exits.py:6: error[LC902]: the task's reference does not run (user): SystemExit: 0" in result.stdout
    assert "verdict: flawed" in result.stdout


def test_a_reference_that_raises_names_its_line():
    result = run_lowercheck(["audit", str(TASKS / "raises.py"), "--harness", "torch-testing"])
    assert result.returncode == 1
    assert "raises.py:5: error[LC902]" in result.stdout and "cannot be multiplied" in result.stdout


def test_a_hanging_reference_is_cut_at_the_timeout_and_inconclusive():
    # the recommended harness has no flaw of its own, so the verdict rests on the reference alone
    result = run_lowercheck(["audit", str(TASKS / "hangs.py"), "--harness", "recommended", "--timeout", "4"])
    assert result.returncode == 3, result.stdout + result.stderr
    assert "inconclusive: lowercheck could not run the reference here (timeout)" in result.stdout


def test_timing_is_measured_only_on_a_real_gpu():
    """Without a CUDA device the report says the measured timing is not checked here; with one, the
    reference is timed natively (warm and cold L2, a launch) and the figures are in the report."""
    import json
    import tempfile

    from lowercheck import cuda_on_cpu

    task = Path(__file__).parents[2] / "corpus" / "tasks" / "add_timed_sound" / "task.toml"
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "audit.json"
        result = run_lowercheck(["audit", str(task), "--json", str(out)])
        doc = json.loads(out.read_text())
    assert result.returncode == 0, result.stdout + result.stderr
    if cuda_on_cpu.real_cuda_available():
        timing = doc["facts"]["timing"]
        assert 0 < timing["launch_s"] < timing["cold_s"] and timing["warm_s"] > 0
    else:
        assert "timing" not in doc["facts"]
        assert any("no CUDA device here" in note for note in doc["notes"])
