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
    WARMED_IN = int(os.readlink("/proc/self"))  # as lowercheck's process numbers it (the server is PID 1 inside)


def outer_ids(pid: str) -> tuple[int, int, int]:
    """(pid, parent, process group) of a process as lowercheck's own processes number them: /proc
    is the one of the namespace outside the sandbox."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    own = int(os.readlink("/proc/self")) if pid == "self" else int(pid)
    return own, int(fields[1]), int(fields[2])


def run(request: RunRequest) -> RunResult:
    action = request.options["do"]
    if action == "processes":  # as lowercheck's process sees them (the child runs in its server's PID namespace)
        pid, parent, group = outer_ids("self")
        return RunResult(outputs={"pid": np.array([pid]), "parent": np.array([parent]),
                                  "warmed_in": np.array([WARMED_IN]), "group": np.array([group]),
                                  "pid_inside": np.array([os.getpid()])})
    if action == "namespaces":
        return RunResult(outputs={name: np.frombuffer(os.readlink(f"/proc/self/ns/{name}").encode(), np.uint8)
                                  for name in ("pid", "net")})
    if action == "daemon":  # a double fork into a session of its own, as a daemon starts; its pid in `pidfile`
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                with open(request.options["pidfile"], "w") as out:
                    out.write(os.readlink("/proc/self"))
                os.execvp("sleep", ["sleep", "600"])
            os._exit(0)
        os.wait()
        while not os.path.exists(request.options["pidfile"]) or not open(request.options["pidfile"]).read():
            time.sleep(0.01)
        time.sleep(0.1)  # until it is `sleep`
        return RunResult()
    if action == "plant":  # a file in each of its caches, and one in the caches' shared folder
        planted = {}
        for name in ("TRITON_CACHE_DIR", "JAX_COMPILATION_CACHE_DIR"):
            for where, folder in (("own", os.environ[name]), ("shared", request.options["shared"][name])):
                try:
                    with open(os.path.join(folder, "planted"), "w") as out:
                        out.write("a forged kernel")
                    planted[f"{name}:{where}"] = np.array([1])
                except OSError:
                    planted[f"{name}:{where}"] = np.array([0])
        return RunResult(outputs=planted)
    if action == "echo":  # every argument back as it arrived (the inputs unchanged)
        return RunResult(outputs={name: np.array(value) for name, value in request.args.items()})
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
        if "pidfile" in request.options:  # (in a folder the sandbox lets it write: a cache of its environment)
            pid, server, _ = outer_ids("self")
            with open(request.options["pidfile"], "w") as out:
                out.write(f"{pid} {server}")
        time.sleep(600)
    if action == "allocate":
        return RunResult(outputs={"big": np.ones(1 << 34, np.uint8)})  # 16 GiB
    if action == "segfault":
        ctypes.string_at(0)
    if action == "exit":
        os._exit(3)
    raise AssertionError(f"unknown action {action}")
