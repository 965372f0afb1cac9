"""Our runner's limits are not the kernel's faults ([w2 2/7] item 3). Triton's CPU interpreter cannot
run some kernels that Triton's compiler accepts: lowercheck bridges the gaps it knows (libdevice
calls, float scalar arguments: runners/triton_shims.py), and any other failure inside an interpreted
kernel is inconclusive (LC902, severity inconclusive, exit 3), never "different"; an exception in
the port's own Python stays the port's fault (exit 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import run_lowercheck

from lowercheck.runners.triton_shims import function_of

REFERENCE = '''import torch


def f(x: torch.Tensor) -> torch.Tensor:
    return {body}
'''

PORT = '''import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def f_kernel(x_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, {value}, mask=mask)


def f(x):
    out = torch.empty_like(x)
    n = x.numel()
    {before}f_kernel[(triton.cdiv(n, 128),)](x, out, 2.0, n, BLOCK=128)
    return out
'''


def _diff(tmp_path: Path, body: str, value: str, before: str = "") -> tuple[int, dict]:
    (tmp_path / "ref.py").write_text(REFERENCE.format(body=body))
    (tmp_path / "port.py").write_text(PORT.format(value=value, before=before))
    out = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(tmp_path / "ref.py"), str(tmp_path / "port.py"), "--size", "n=1,300",
                           "--json", str(out)])
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(out.read_text())


@pytest.mark.parametrize("body,value", [
    ("torch.tanh(x)", "libdevice.tanh(x)"),
    ("torch.erf(x) * 2.0", "libdevice.erf(x) * alpha.to(tl.float32)"),  # a float argument, typed as fp32
    ("torch.exp(x)", "tl.extra.cuda.libdevice.fast_expf(x)"),
], ids=["libdevice_tanh", "float_argument", "cuda_libdevice"])
def test_what_the_interpreter_cannot_run_by_itself_runs(tmp_path: Path, body: str, value: str) -> None:
    code, doc = _diff(tmp_path, body, value)
    assert code == 0, doc["findings"]
    assert doc["runs"] and all(r["status"] in ("ok", "NaN/Inf differ") for r in doc["runs"])


def test_an_interpreter_gap_is_inconclusive_not_different(tmp_path: Path) -> None:
    """A directed-rounding libdevice call has no shim: the interpreter fails inside the kernel."""
    code, doc = _diff(tmp_path, "x + x", "libdevice.add_rd(x, x)")
    assert code == 3, doc["findings"]
    gaps = [f for f in doc["findings"] if f["code"] == "LC902"]
    assert gaps and all(f["severity"] == "inconclusive" and f["witness"]["error_kind"] == "runner" for f in gaps)
    assert "add_rd" in gaps[0]["message"] and "a limit of the runner" in gaps[0]["message"]
    assert doc["verdict"] == "inconclusive"


def test_the_port_s_own_exception_is_its_fault(tmp_path: Path) -> None:
    """Captured it behaves; run (TRITON_INTERPRET is set in the run's child only) it raises."""
    code, doc = _diff(tmp_path, "x + x", "x + x", before="import os\n    if os.environ.get('TRITON_INTERPRET'):\n"
                      "        raise ValueError('the port rejects every input')\n    ")
    assert code == 1
    (fault, *_) = [f for f in doc["findings"] if f["code"] == "LC902"]
    assert fault["severity"] == "error" and "ValueError" in fault["message"]


def test_libdevice_symbols_map_to_numpy() -> None:
    assert function_of("__nv_tanhf") is function_of("__nv_tanh") is not None
    assert function_of("__nv_fast_expf") is function_of("__nv_expf")
    assert function_of("__nv_isnanf") is not None and function_of("__nv_fsqrt_rn") is not None
    assert function_of("__nv_fadd_rd") is None and function_of("__nv_cyl_bessel_i0f") is None
