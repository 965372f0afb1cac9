"""Front ends, one module per language, all with the same public names (see `base.py`).

`frontend_for(path)` picks one by extension (and, for `.py` files, by what the file imports) and
imports it lazily, so a CUDA-only run never pays for importing torch and Triton.
"""

from __future__ import annotations

import atexit
import importlib
import os
import re
from pathlib import Path
from types import ModuleType

from lowercheck.errors import SourceLocation, UserError, read_user_text

_BY_EXTENSION = {".cu": "cuda", ".cuh": "cuda"}
_PYTHON_KINDS = (  # (language, a pattern the file matches), first match wins
    # KernelBench style: CUDA source in a string compiled by torch's load_inline
    ("cuda", re.compile(r"\bload_inline\s*\((?=[\s\S]*\bcuda_sources\b)")),
    # jax's Pallas in any spelling: `from jax.experimental import pallas`, `import
    # jax.experimental.pallas as pl`, Mosaic GPU's `from jax.experimental.pallas import mosaic_gpu`
    ("pallas", re.compile(r"\bjax\.experimental(\s+import\s+pallas\b|\.pallas\b)|pallas_call")),
    ("triton", re.compile(r"^\s*(import triton|from triton)", re.M)),
    # a launcher of a Triton kernel it imports (`from ops.jsd import _jsd_kernel` ... `_jsd_kernel[(BT,)](`)
    ("triton", re.compile(r"^\s*from\s+[\w.]+\s+import\s+\(?[^\n]*?\b(\w+)\b[\s\S]*?^[^\n#]*\b\1\[\s*(?:\(|grid\b|lambda\b)",
                          re.M)),
    # a PyTorch reference: a KernelBench problem (class Model) or a function on tensors
    ("torch", re.compile(r"^\s*(import torch|from torch)", re.M)),
)


def language_of(path: str) -> str:
    file = Path(path)
    if not file.exists():
        raise UserError(f"file not found: {path}", hint="check the path (ENTRY goes after a colon: file.cu:name)")
    if file.is_dir():
        raise UserError(f"{path} is a directory, not a kernel source", SourceLocation(path, 1),
                        hint="name the file itself: FILE or FILE:ENTRY")
    suffix = file.suffix
    if suffix in _BY_EXTENSION:
        read_user_text(path, "CUDA source")  # a binary, non-UTF-8 or huge file: said here, at the entry
        return _BY_EXTENSION[suffix]
    if suffix == ".py":
        text = read_user_text(path, "Python source")  # before any front end imports it
        for language, pattern in _PYTHON_KINDS:
            if pattern.search(text):
                return language
        raise UserError("this Python file is no kernel or reference lowercheck knows (it imports none of "
                        "triton, jax's pallas, torch)", SourceLocation(path, 1),
                        hint="a Triton port imports triton, a Pallas port calls pl.pallas_call, a PyTorch "
                             "reference imports torch and defines class Model or a function")
    raise UserError(f"unknown file type `{suffix or '(none)'}`: {path}", SourceLocation(path, 1),
                    hint="lowercheck reads CUDA (.cu, .cuh) and Python (.py: Triton, Pallas, PyTorch) files")


# Front ends that import and run the user's code do it in a worker process (see isolated.py).
RUNS_USER_CODE = ("triton", "pallas", "torch")
_WORKERS: dict[str, object] = {}


def frontend_for(path: str) -> ModuleType:
    """The front end for `path`: the module itself, or an `IsolatedFrontend` with the same API."""
    language = language_of(path)
    if language in RUNS_USER_CODE:
        if language not in _WORKERS:
            from lowercheck.frontends.isolated import IsolatedFrontend

            if not _WORKERS:
                atexit.register(_stop_workers_of, os.getpid())
            _WORKERS[language] = IsolatedFrontend(language)
        return _WORKERS[language]  # type: ignore[return-value] # same API as a front-end module
    return importlib.import_module(f"lowercheck.frontends.{language}")


def stop_workers() -> None:
    """End the worker processes now (a worker's own interpreter shutdown takes seconds)."""
    for worker in _WORKERS.values():
        worker.close(kill=True)  # type: ignore[attr-defined] # an IsolatedFrontend
    _WORKERS.clear()


def _stop_workers_of(owner: int) -> None:
    """At exit, the workers a caller kept (`cli.main(keep_workers=True)`: the corpus tests, the diff
    servers) go with their temporary folders; not from a forked child, whose exit ends none of its
    parent's workers."""
    if os.getpid() == owner:
        stop_workers()


def start_workers(paths: list[str]) -> None:
    """Start the worker processes of these files' front ends now, so their imports overlap ours."""
    in_process = []
    for path in paths:
        try:
            if language_of(path) not in RUNS_USER_CODE:
                in_process.append(path)  # imported below: importing it first would delay the workers' start
                continue
            frontend = frontend_for(path)
        except UserError:
            continue  # reported when the file is used
        if hasattr(frontend, "warm_up") and not isinstance(frontend, ModuleType):
            frontend.warm_up(path)
    for path in in_process:  # here, in the main thread: the diff's threads importing it at once would
        frontend_for(path)   # each find the other's half-imported modules (Python's import deadlock avoidance)


def split_entry(arg: str) -> tuple[str, str | None]:
    """`file.cu:name` -> ("file.cu", "name"); a path without a colon has no ENTRY. A name may carry
    template arguments (`file.cu:launch<__half>`: an instance of a launcher template)."""
    path, sep, entry = arg.rpartition(":")
    if sep and path and _ENTRY_NAME.fullmatch(entry):
        return path, entry
    return arg, None


def absolute(side: str) -> str:
    """FILE or FILE:ENTRY with FILE made absolute as given (`os.path.abspath`, links kept: a report
    names the files it was asked about): front-end workers and run children start in other
    folders, where a relative path would name another file. The CLI and the API do it once, at
    their entry."""
    path, entry = split_entry(side)
    return os.path.abspath(path) + (f":{entry}" if entry else "")


_ENTRY_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?(?:<[\w\s,:*&<>]*>)?")  # `Class.forward` too
