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


def _audit_json(args: list[str]) -> dict:
    import json
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "audit.json"
        run_lowercheck(["audit", *args, "--json", str(out)])
        return json.loads(out.read_text())


def test_a_reference_too_large_to_run_here_is_still_measured_on_meta_tensors():
    doc = _audit_json([str(TASKS / "big_matmul.py"), "--harness", "recommended"])
    assert doc["facts"]["meta"]["flops"] == 2 * 4096**3
    assert sorted(f["code"] for f in doc["findings"] if f["severity"] == "error") == ["LC615", "LC632"]
    skipped = doc["questions"]["numerics"]["not_checked"]
    assert skipped and all("more than the CPU runs' budget" in reason for reason in skipped)


def test_meta_tensors_that_cannot_run_the_reference_give_way_to_a_traced_real_call():
    doc = _audit_json([str(TASKS / "data_dependent.py"), "--harness", "recommended"])
    meta = doc["facts"]["meta"]
    assert "meta tensors cannot run the reference" in meta["traced"] and meta["input_bytes"] == 4000
    assert "LC604" in doc["questions"]["numerics"]["codes"]  # the randn in its forward
    assert "LC614" in doc["questions"]["fairness"]["codes"]  # its sizes known from the real call


def test_a_function_reference_is_its_files_one_function():
    doc = _audit_json([str(TASKS / "function_reference.py"), "--harness", "recommended"])
    assert doc["facts"]["entry"] == "scaled_tanh" and doc["facts"]["trials_run"] == 5
    assert doc["questions"]["numerics"]["verdict"] != "not checked"
