"""A Pallas TPU kernel that copies its blocks in by hand (`pltpu.make_async_copy` on a DMA
semaphore, jax's paged attention): lowered as a copy, and run in interpret mode against a
reference; a kernel that copies the wrong window is found by the static checks and the runs."""

from __future__ import annotations

from pathlib import Path

from support import run_lowercheck

KERNEL = Path(__file__).parents[1] / "frontends" / "pallas" / "inputs" / "constructs" / "manual_dma.py"
REFERENCE = "import torch\n\n\ndef double(x):\n    return torch.clamp(2.0 * x, -1.0, 1.0)\n"
SPEC = '[sizes]\nn = [1024]\n[args.x]\nshape = ["n"]\ndtype = "float32"\n'


def _files(tmp_path: Path, kernel: str | None = None) -> tuple[Path, Path, Path]:
    ref, spec, port = tmp_path / "ref.py", tmp_path / "spec.toml", tmp_path / "port.py"
    ref.write_text(REFERENCE)
    spec.write_text(SPEC)
    port.write_text(kernel if kernel is not None else KERNEL.read_text())
    return ref, spec, port


def test_a_manual_dma_kernel_is_equivalent_to_its_reference(tmp_path: Path) -> None:
    ref, spec, port = _files(tmp_path)
    done = run_lowercheck(["diff", str(ref), str(port), "--spec", str(spec)])
    assert "verdict: equivalent" in done.stdout, done.stdout + done.stderr
    assert "n=1024" in done.stdout


def test_a_dma_of_the_wrong_window_is_found(tmp_path: Path) -> None:
    wrong = KERNEL.read_text().replace("pl.ds(i * 128, 128)", "pl.ds(0, 128)")  # every program copies block 0
    ref, spec, port = _files(tmp_path, wrong)
    done = run_lowercheck(["diff", str(ref), str(port), "--spec", str(spec)])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "verdict: different" in done.stdout
