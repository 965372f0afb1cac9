"""A Triton kernel on host-side TMA descriptors (`TensorDescriptor.from_tensor`, liger's MLP):
lowered as its tensors' block accesses, and run by Triton's interpreter with the out-of-bounds guard
on the descriptors' tensors; a kernel storing its block one row off is found."""

from __future__ import annotations

from pathlib import Path

from support import run_lowercheck

KERNEL = Path(__file__).parents[1] / "frontends" / "triton" / "inputs" / "host_descriptor.py"
REFERENCE = "import torch\n\n\ndef scale(x):\n    return 2.0 * x\n"
SPEC = '[sizes]\nb = [2]\nm = [100]\nn = [200]\n[args.x]\nshape = ["b", "m", "n"]\ndtype = "float32"\n'


def _files(tmp_path: Path, kernel: str) -> tuple[Path, Path, Path]:
    ref, spec, port = tmp_path / "ref.py", tmp_path / "spec.toml", tmp_path / "port.py"
    ref.write_text(REFERENCE)
    spec.write_text(SPEC)
    port.write_text(kernel)
    return ref, spec, port


def test_a_kernel_on_host_descriptors_is_equivalent_to_its_reference(tmp_path: Path) -> None:
    ref, spec, port = _files(tmp_path, KERNEL.read_text())
    done = run_lowercheck(["diff", str(ref), str(port), "--spec", str(spec)])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verdict: equivalent" in done.stdout


def test_a_block_stored_one_row_off_is_found(tmp_path: Path) -> None:
    wrong = KERNEL.read_text().replace("out_desc.store([b, rows, cols]", "out_desc.store([b, rows + 1, cols]")
    ref, spec, port = _files(tmp_path, wrong)
    done = run_lowercheck(["diff", str(ref), str(port), "--spec", str(spec)])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "verdict: different" in done.stdout
