"""Reuse a whole static diff's report when nothing it depends on has changed.

A static diff (`--no-run`) is a function of the two files, of what their lowering read (the headers a
CUDA file includes, the Python files beside a Python side), of the spec, of the options and of the
tools (lowercheck's own sources and the versions of `cache.PACKAGES`). So, as
ccache's direct mode does, a report is stored under a key made of the command's options and the
tools, together with a manifest of every file it depends on and that file's SHA-256; it is reused
only while every file of the manifest still has its digest, and then costs no import of torch,
Triton, xDSL, isl or sympy (the CLI looks here before it imports the diff). A report that depends
on more than its inputs is not stored: one with a run, or with a finding about a process that failed
or ran out of time (LC902), or a diff that ended with an error.

The entries live in lowercheck's cache folder (`cache.folder()`, kind `reports`); deleting it is
always safe.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path

from lowercheck import cache

KIND = "reports"
# Findings whose presence means the report depends on more than its inputs (a timeout, a crash).
_NOT_REPEATABLE = {"LC902"}
# Environment variables that change what a lowering or a check gives (cache folders excluded).
_ENV_PREFIXES = ("LOWERCHECK_", "TRITON_", "JAX_", "XLA_")
# Left out: the cache folders, the switch of this cache, and what lowercheck sets for its own children
# (the device target: the key has `gpu`), so a second diff in one process keys as the first did.
_ENV_IGNORED = ("LOWERCHECK_CACHE_DIR", "TRITON_CACHE_DIR", "TRITON_HOME", "JAX_COMPILATION_CACHE_DIR",
                "LOWERCHECK_DEVICE_TARGET", "LOWERCHECK_REUSE_REPORTS")


def key(sides: Iterable[str], options: dict) -> str:
    """The key of one diff: its two sides (absolute paths with their entries), the options that
    shape the report, the environment that the front ends read, the working folder (the report's
    paths are relative to it) and the tools' versions."""
    environment = {k: v for k, v in os.environ.items() if k.startswith(_ENV_PREFIXES) and k not in _ENV_IGNORED}
    # the working folder too: the report shows paths relative to it
    return cache.key("report", list(sides), sorted(options.items()), sorted(environment.items()), os.getcwd(),
                     cache.versions(), sys.version)


def lookup(digest: str) -> dict | None:
    """The stored report document, when every file it depends on is unchanged; else None."""
    text = cache.get(KIND, digest)
    if text is None:
        return None
    try:
        entry = json.loads(text)
        files, listings, report = entry["files"], entry["listings"], entry["report"]
    except (ValueError, KeyError, TypeError):
        return None  # a torn or foreign entry: recompute
    for path, expected in files.items():
        if _file_digest(path) != expected:
            return None
    for folder, expected in listings.items():
        if _listing_digest(folder) != expected:
            return None
    return report


def store(digest: str, report: dict, files: Iterable[str]) -> None:
    """Keep `report` (a diff's JSON document, before the configuration's code policy) with the
    digests of `files` and the Python files listed in each Python side's folder (a new file there
    could be imported), unless it depends on more than them."""
    if report.get("runs") or any(f["code"] in _NOT_REPEATABLE for f in report.get("findings", ())):
        return
    manifest = {}
    for path in sorted(set(files)):
        found = _file_digest(path)
        if found is None:
            return  # a dependency that vanished meanwhile: nothing trustworthy to keep
        manifest[path] = found
    listings = {folder: _listing_digest(folder) for folder in sorted(
        {os.path.dirname(os.path.realpath(side["path"])) for side in (report["source"], report["target"])
         if side["path"].endswith(".py")})}
    cache.put(KIND, digest, json.dumps({"files": manifest, "listings": listings, "report": report}, default=str))


def dependencies(report: dict) -> list[str]:
    """The files each side's lowering read: a CUDA file and its headers; a Python file and the
    Python files beside it (`cache.python_dependencies`, the front-end cache's rule)."""
    found: list[str] = []
    for side in (report["source"], report["target"]):
        path = side["path"]
        if side["language"] == "cuda":
            from lowercheck.frontends.cuda.parse import included_files

            found += [os.path.realpath(path), *included_files(path)]
        if path.endswith(".py"):
            found += [str(p) for p in cache.python_dependencies(path)]
    return found


def _file_digest(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None


def _listing_digest(folder: str) -> str:
    """The names of the Python files in `folder` (`cache.python_dependencies`' rule)."""
    names = sorted(p.name for p in Path(folder).glob("*.py"))
    return hashlib.sha256("\0".join(names).encode()).hexdigest()
