"""KernelBench-style files as they are ([w2 1/7]): `.cuda()`, device="cuda", `assert x.is_cuda` and
`torch.cuda.synchronize()` work on a machine without a GPU (the CUDA device is mapped onto the CPU
in the processes that run user code, lowercheck/cuda_on_cpu.py), and the report says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from support import run_lowercheck

from lowercheck.cuda_on_cpu import mentions_cuda

HERE = Path(__file__).parent
CORPUS = HERE.parents[1] / "corpus"
pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="the mapping is for machines without a GPU")


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_kernelbench_problem_written_for_a_gpu(tmp_path: Path) -> None:
    problem = (HERE / "inputs" / "bias_relu_problem.py").read_text()
    problem = problem.replace("torch.randn(BATCH, FEATURES), torch.randn(FEATURES)",
                              'torch.randn(BATCH, FEATURES).cuda(), torch.randn(FEATURES, device="cuda")')
    problem = problem.replace("        return torch.relu(x + bias)",
                              "        assert x.is_cuda and bias.is_cuda\n        return torch.relu(x + bias)")
    assert ".cuda()" in problem and "assert x.is_cuda" in problem
    path = _write(tmp_path, "problem.py", problem)
    out = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(path), str(HERE.parent / "frontends" / "cuda" / "inputs" / "kernelbench_relu.py"),
                           "--json", str(out)])
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(out.read_text())
    assert any("places tensors on a CUDA device" in n for n in doc["notes"])
    assert doc["runs"] and any(r["sizes"] == {"x_size0": 24, "x_size1": 200} for r in doc["runs"])


def test_a_triton_wrapper_that_allocates_on_the_gpu(tmp_path: Path) -> None:
    port = (CORPUS / "vector_add" / "vadd.py").read_text().replace(
        "    out = torch.empty_like(x)",
        '    assert x.is_cuda\n    out = torch.empty(x.shape, device="cuda", dtype=x.dtype)\n    torch.cuda.synchronize()')
    path = _write(tmp_path, "vadd_cuda.py", port)
    done = run_lowercheck(["diff", str(CORPUS / "vector_add" / "vadd.cu"), str(path), "--size", "n=1,1000"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "places tensors on a CUDA device" in done.stdout


def test_which_files_rely_on_the_mapping(tmp_path: Path) -> None:
    assert mentions_cuda(str(_write(tmp_path, "a.py", "x = torch.ones(3).to('cuda')\n")))
    assert not mentions_cuda(str(_write(tmp_path, "b.py", "x = torch.ones(3)\n")))


PERSISTENT = HERE / "inputs" / "rowsum_persistent.py"


@pytest.mark.parametrize("entry", ["rowsum", "rowsum_by_driver"])
@pytest.mark.parametrize(("gpu", "sms"), [(None, 132), ("l4", 58)])
def test_device_queries_answer_as_the_gpu_target(entry: str, gpu: str | None, sms: int) -> None:
    """A persistent wrapper sizes its grid by the SM count, asked of torch or of Triton's driver: on
    a machine without a GPU the answer is the --gpu target's (default h100-sxm, 132 SMs)."""
    done = run_lowercheck(["lower", f"{PERSISTENT}:{entry}", "--no-loc"] + (["--gpu", gpu] if gpu else []))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f'grid = ["Min({sms}, m)", "1", "1"]' in done.stdout


def test_an_unknown_gpu_target_is_bad_input() -> None:
    done = run_lowercheck(["lower", f"{PERSISTENT}:rowsum", "--gpu", "h900"])
    assert done.returncode == 2 and "unknown target 'h900'" in done.stderr, done.stdout + done.stderr


def test_a_persistent_port_is_launched_with_the_targets_sm_count(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(HERE / "inputs" / "rowsum.cu"), f"{PERSISTENT}:rowsum", "--gpu", "a100-80gb",
                           "--no-run", "--json", str(out)])
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(out.read_text())
    assert any("answer as NVIDIA A100 80GB" in n for n in doc["notes"]), doc["notes"]
    launches = [f for f in doc["findings"] if f["code"] == "LC101"]
    assert launches and "Min(108, m)" in launches[0]["message"]
