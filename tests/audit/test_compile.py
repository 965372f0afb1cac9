"""`lowercheck.audit.compile`: the task's code compiled for its target (LC642, LC644).

Each flaw of `inputs/` is found with its code at the line the compiler names; clean code gives no
finding; what cannot be checked here (no nvcc, torch's headers, a child that hangs) is a note, never
a finding. nvcc compiles without a GPU (about 0.5 s a file); the Triton files are compiled by one
sandboxed child per file and target (about 1 s a config)."""

from __future__ import annotations

import importlib.util
import shutil
import tempfile
import tomllib
from pathlib import Path

import pytest

from lowercheck.audit.compile import arch_of, check
from lowercheck.perf.targets import TARGETS

INPUTS = Path(__file__).with_name("inputs")
TASKS = Path(__file__).parents[2] / "corpus" / "tasks"
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
needs_triton = pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="triton is not installed")


def _codes(findings) -> list[tuple[str, str, int]]:
    return [(f.code, Path(f.location.file).name, f.location.line) for f in findings]


def test_arch_per_target():
    assert [arch_of(TARGETS[name]) for name in ("h100-sxm", "h200", "a100-80gb", "l4", "tpu-v5e")] == \
        ["sm_90a", "sm_90a", "sm_80", "sm_89", None]


@needs_nvcc
def test_hopper_only_cuda_does_not_compile_for_an_a100():
    findings, notes = check([("solution", INPUTS / "cluster_scale.cu")], "a100-80gb")
    assert _codes(findings) == [("LC642", "cluster_scale.cu", 6)]
    assert findings[0].side == "solution"
    assert "__cluster_dims__ is not supported" in findings[0].message and "sm_80" in findings[0].message
    assert notes == []
    assert check([("solution", INPUTS / "cluster_scale.cu")], "h100-sxm") == ([], [])


@needs_nvcc
def test_cuda_syntax_error_at_the_line_nvcc_names(monkeypatch, tmp_path):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    findings, _ = check([("reference", INPUTS / "missing_semicolon.cu")], "h100-sxm")
    assert _codes(findings) == [("LC642", "missing_semicolon.cu", 6)]
    assert findings[0].side == "reference" and 'expected a ";"' in findings[0].message
    assert list(tmp_path.iterdir()) == []  # nvcc -keep's `.lgenfe.bc` of a failed compile went with its folder


@needs_nvcc
def test_ptxas_error_is_mapped_back_to_the_source_line():
    findings, _ = check([("solution", INPUTS / "async_fence.cu")], "l4")
    assert _codes(findings) == [("LC642", "async_fence.cu", 6)]
    assert "requires .target sm_90" in findings[0].message
    assert check([("solution", INPUTS / "async_fence.cu")], "h200") == ([], [])


@needs_nvcc
def test_torch_extension_headers_are_a_note():
    findings, notes = check([("solution", INPUTS / "inline_extension.py")], "h100-sxm")
    assert findings == []
    assert notes == ["inline_extension.py not compiled: needs torch's C++ headers (`torch/extension.h`), "
                     "which lowercheck does not pass to nvcc"]


def test_cuda_for_a_tpu_needs_no_compiler():
    findings, notes = check([("solution", INPUTS / "cluster_scale.cu"), ("solution", INPUTS / "inline_extension.py")],
                            "tpu-v5e")
    assert _codes(findings) == [("LC642", "cluster_scale.cu", 6), ("LC642", "inline_extension.py", 8)]
    assert all(f.message == "CUDA source for a TPU target" for f in findings)
    assert notes == []


def test_without_nvcc_a_note_and_no_finding(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    findings, notes = check([("solution", INPUTS / "missing_semicolon.cu")], "a100-80gb")
    assert findings == []
    assert notes == ["nvcc not found: missing_semicolon.cu not compiled for sm_80"]


def test_pytorch_and_pallas_files_are_notes():
    assert check([("reference", INPUTS / "reference.py"), ("solution", INPUTS / "pallas_double.py")], "l4") == \
        ([], ["reference.py is PyTorch: nothing to compile", "pallas_double.py is Pallas: not compiled by this check"])


@pytest.fixture(scope="module")
def triton_on_l4():
    files = [("solution", INPUTS / "autotuned_matmul.py"), ("reference", INPUTS / "scaled_add.py"),
             ("solution", INPUTS / "odd_arange.py")]
    return check(files, "l4")


@needs_triton
def test_autotune_config_too_large_for_an_l4(triton_on_l4):
    findings, _ = triton_on_l4
    lc644 = [f for f in findings if f.code == "LC644"]
    assert _codes(lc644) == [("LC644", "autotuned_matmul.py", 12)]  # the second triton.Config's line
    message = lc644[0].message
    assert "BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8, num_stages=3" in message
    assert "131072 bytes of shared memory" in message and "at most 101376" in message
    assert lc644[0].witness["shared"] == 131072 and lc644[0].witness["config"] == 1


@needs_triton
def test_triton_compile_error_at_the_kernel_line(triton_on_l4):
    findings, _ = triton_on_l4
    lc642 = [f for f in findings if f.code == "LC642"]
    assert _codes(lc642) == [("LC642", "odd_arange.py", 10)]
    assert "`row_sum_kernel` with BLOCK=100" in lc642[0].message
    assert "arange's range must be a power of 2" in lc642[0].message


@needs_triton
def test_clean_triton_kernel_gives_nothing(triton_on_l4):
    findings, notes = triton_on_l4
    assert [f for f in findings if f.location.file.endswith("scaled_add.py")] == []
    assert notes == []  # the helper `_axpy` is not compiled alone; BLOCK_SIZE is read from the launch


@needs_triton
def test_the_same_configs_fit_an_h100():
    assert check([("solution", INPUTS / "autotuned_matmul.py")], "h100-sxm") == ([], [])


@needs_triton
def test_triton_for_a_tpu():
    findings, _ = check([("solution", INPUTS / "scaled_add.py")], "tpu-v5e")
    assert _codes(findings) == [("LC642", "scaled_add.py", 15)]


@needs_triton
def test_a_child_that_times_out_is_a_note():
    findings, notes = check([("solution", INPUTS / "slow_import.py")], "h100-sxm", timeout_s=2)
    assert findings == []
    assert notes == ["not checked: compiling slow_import.py timed out after 2 s"]


@pytest.mark.parametrize("task", ["autotune_smem_l4", "cuda_sm80_target"])
def test_corpus_task_flaw_is_found(task):
    folder = TASKS / task
    spec = tomllib.loads((folder / "task.toml").read_text())["task"]
    solution = folder / spec["solution"]
    if solution.suffix == ".cu" and shutil.which("nvcc") is None:
        pytest.skip("nvcc is not on PATH")
    if solution.suffix == ".py" and importlib.util.find_spec("triton") is None:
        pytest.skip("triton is not installed")
    expected = tomllib.loads((folder / "expected.toml").read_text())
    findings, notes = check([("reference", folder / spec["reference"]), ("solution", solution)], spec["target"])
    assert sorted({f.code for f in findings}) == expected["codes"]
    assert all(f.side == "solution" for f in findings)
    assert notes == [f"{Path(spec['reference']).name} is PyTorch: nothing to compile"]
