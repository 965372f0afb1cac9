"""The one protocol of every runner (SIMT emulator, Triton interpreter, ...).

A runner module exposes ``run(request: RunRequest) -> RunResult``. It runs inside a child process
(`lowercheck.runners.sandbox`), so it may crash or hang without harming lowercheck. Runners never
import front ends: the CUDA emulator gets the lowered IR as MLIR text; the Triton runner imports the
user's own file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class RunRequest:
    language: str  # selects the runner: "cuda" -> simt, "triton" -> triton_interp
    path: str
    entry: str
    ir: str | None  # MLIR text of the lowered module (needed by the emulator)
    # One value per entry parameter, by name: np.ndarray for tensors (outputs arrive poisoned),
    # int or float for scalars.
    args: dict[str, Any]
    seed: int = 0
    # "env": environment variables for the child; "sizes": the size binding of this run (launch
    # expressions may name sizes that are no parameter, e.g. a KernelBench tensor's `x_size0`).
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class OutOfBounds:
    """An access outside its buffer, caught before it touched memory."""

    buffer: str
    kind: str  # read | write
    index: int  # flat element index
    extent: int  # elements in the buffer
    where: dict[str, int] = field(default_factory=dict)  # e.g. {"pid": 3, "lane": 55} or block/thread


@dataclass
class RunEvent:
    """Something a runner saw that is a finding by itself: a race (LC207/LC203), a divergent barrier
    (LC208), a read of uninitialised memory (LC210), an index that wrapped its C type (LC209)."""

    code: str
    message: str
    buffer: str | None = None
    where: dict[str, int] = field(default_factory=dict)  # block/thread/lane/index values
    location: tuple[str, int, int] | None = None  # file, line, column of the op


@dataclass
class RunResult:
    # Final values: every tensor parameter by name (outputs, and inputs to check they are unchanged),
    # and returned tensors as "return0", "return1", ...
    outputs: dict[str, np.ndarray] = field(default_factory=dict)
    oob: list[OutOfBounds] = field(default_factory=list)
    error: str | None = None
    # compile | crash | timeout | oom | user (the kernel's or its wrapper's own faults), or runner:
    # the runner itself could not run it (an interpreter or emulator gap): inconclusive, never "different"
    error_kind: str | None = None
    wall_s: float = 0.0
    oob_total: int = 0  # every out-of-bounds access; `oob` keeps only the first few
    events: list[RunEvent] = field(default_factory=list)
    # What a runner learnt beyond the arrays (plain data: numbers, strings, lists, dicts), e.g. the
    # task probe's operator trace and input facts (`lowercheck.runners.task_probe`).
    facts: dict[str, Any] = field(default_factory=dict)
