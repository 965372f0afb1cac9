"""A null pointer passed to a kernel ([w2 1/7]: DeepSpeed's fused residual LayerNorm passes
`nullptr` for an optional input, through a macro): the kernel receives a buffer of no elements
(`null0`, a temp of shape [0]), so a kernel that leaves it alone is checked as it is, and one that
reads it is out of bounds there (LC201), never LC901."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import run_lowercheck

INPUTS = Path(__file__).parent / "inputs"
REFERENCE = "import torch\n\n\ndef double(x):\n    return 2 * x\n"


@pytest.mark.parametrize("entry", ["launch_plain", "launch_macro"])
def test_a_null_argument_is_a_buffer_of_no_elements(entry: str) -> None:
    done = run_lowercheck(["lower", f"{INPUTS / 'null_arg.cu'}:{entry}", "--no-loc"])
    assert done.returncode == 0, done.stderr
    assert 'kernel.param {name = "null0", kind = "buffer", role = "temp", element_type = f32, shape = ["0"]}' \
        in done.stdout
    assert 'args = ["out", "null0", "x", "n"]' in done.stdout


def test_a_kernel_that_reads_the_null_argument_is_out_of_bounds(tmp_path: Path) -> None:
    reference = tmp_path / "double.py"
    reference.write_text(REFERENCE)
    done = run_lowercheck(["diff", str(reference), f"{INPUTS / 'null_arg.cu'}:launch_plain", "--size", "n=1,300"])
    assert done.returncode == 0, done.stdout + done.stderr
    reads = tmp_path / "reads.cu"
    reads.write_text((INPUTS / "null_arg.cu").read_text().replace("out[i] = 2.0f * x[i];",
                                                                   "out[i] = 2.0f * x[i] + res[i];"))
    done = run_lowercheck(["diff", str(reference), f"{reads}:launch_plain", "--size", "n=1,300"])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "error[LC201]: out-of-bounds load from `null0`" in done.stdout
