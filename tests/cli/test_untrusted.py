"""A port that hangs when run becomes a finding (LC902), never a dead or stuck lowercheck."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

VADD_CU = Path(__file__).parents[2] / "corpus" / "vector_add" / "vadd.cu"

HANGING_PORT = '''import torch
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    i = 0
    while i < n:  # never advances: the kernel spins forever
        i = i * 1
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def vadd(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    vadd_kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
    return out
'''


def test_a_hanging_port_is_a_run_failure(tmp_path: Path) -> None:
    port = tmp_path / "vadd_hang.py"
    port.write_text(HANGING_PORT)
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, "-m", "lowercheck", "diff", str(VADD_CU), str(port), "--size", "n=100",
                           "--timeout", "15", "--json", str(report)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    doc = json.loads(report.read_text())
    failures = [f for f in doc["findings"] if f["code"] == "LC902"]
    assert failures and failures[0]["side"] == "target" and "timeout" in failures[0]["message"]
    assert doc["runs"][0]["status"] == "failed"
