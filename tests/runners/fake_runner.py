"""A runner for the sandbox tests only: it misbehaves on request (options["do"]).

Registered in the child through $LOWERCHECK_RUNNERS, so the tests need no real kernel.
"""

from __future__ import annotations

import ctypes
import os
import resource
import time

import numpy as np

from lowercheck.runners.base import RunRequest, RunResult


WARMED_IN = 0  # the process that ran warm_up(): the fork server, when the child was forked from one


def warm_up() -> None:
    global WARMED_IN
    WARMED_IN = os.getpid()


def run(request: RunRequest) -> RunResult:
    action = request.options["do"]
    if action == "processes":
        return RunResult(outputs={"pid": np.array([os.getpid()]), "parent": np.array([os.getppid()]),
                                  "warmed_in": np.array([WARMED_IN]), "group": np.array([os.getpgid(0)])})
    if action == "double":
        return RunResult(outputs={name: np.asarray(value) * 2 for name, value in request.args.items()})
    if action == "env":
        name = request.options["name"]
        return RunResult(outputs={name: np.frombuffer(os.environ.get(name, "").encode(), np.uint8)})
    if action == "limits":
        return RunResult(outputs={"as": np.array(resource.getrlimit(resource.RLIMIT_AS)),
                                  "core": np.array(resource.getrlimit(resource.RLIMIT_CORE))})
    if action == "raise":
        raise ValueError("the kernel is broken")
    if action == "unsupported":  # the runner's own limit, as the emulator raises it
        from lowercheck.errors import SourceLocation, Unsupported

        raise Unsupported("`memref.atomic_rmw` of kind 99", SourceLocation("k.cu", 7))
    if action == "sleep":
        if "pidfile" in request.options:
            with open(request.options["pidfile"], "w") as out:
                out.write(f"{os.getpid()} {os.getppid()}")
        time.sleep(600)
    if action == "allocate":
        return RunResult(outputs={"big": np.ones(1 << 34, np.uint8)})  # 16 GiB
    if action == "segfault":
        ctypes.string_at(0)
    if action == "exit":
        os._exit(3)
    raise AssertionError(f"unknown action {action}")
