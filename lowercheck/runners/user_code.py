"""Running the user's Python file in a runner's child process: importing it under a private module
name, and saying where in it an exception came from. Shared by the Triton and Pallas runners."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import traceback
from types import ModuleType


class UserFailure(Exception):
    """The user's code failed (import, call): the message names their file:line."""


def import_user_file(path: str, first_line: bool = False) -> ModuleType:
    from lowercheck import cuda_on_cpu

    if cuda_on_cpu.mentions_cuda(path):  # `.cuda()`, device="cuda": on the CPU when there is no GPU
        cuda_on_cpu.install()
    file = os.path.realpath(path)
    name = "lowercheck_run_" + hashlib.sha1(file.encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise UserFailure(f"{path}: cannot import")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # noqa: BLE001 - the user's import failed
        raise UserFailure(describe(err, path, first_line)) from None
    return module


def describe(err: BaseException, path: str, first_line: bool = False) -> str:
    """`file:line: Type: message` at the innermost frame in the user's file (an interpreter's
    wrapping error gives way to its cause); `first_line`: the message's first line only."""
    real = os.path.realpath(path)
    where = path
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        if os.path.realpath(frame.filename) == real:
            where = f"{path}:{frame.lineno}"
            break
    cause = err.__cause__ if type(err).__name__ == "InterpreterError" and err.__cause__ else err
    message = (str(cause).strip().splitlines() or [""])[0] if first_line else str(cause)
    return f"{where}: {type(cause).__name__}: {message}"
