"""A content-addressed cache of front-end results (entries and lowered IR as text).

Lowering a Triton port imports torch and Triton and compiles each kernel: seconds. The result only
depends on the source files, the binding and the tool versions, so it is stored under a key made of
them. The folder is `$LOWERCHECK_CACHE_DIR`, else `.cache/lowercheck` under the current directory
(never the home directory). Delete it at will.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from functools import cache
from pathlib import Path

from lowercheck import __version__


def folder() -> Path:
    return Path(os.environ.get("LOWERCHECK_CACHE_DIR", Path.cwd() / ".cache" / "lowercheck"))


@cache
def tool_digest() -> str:
    """lowercheck's own sources: a changed front end must not reuse results of the old one."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for folder in (root, root.parent / "dialects", root.parent / "passes"):
        for source in sorted(folder.rglob("*.py")) + sorted(folder.rglob("*.h")):
            digest.update(source.read_bytes())
    return digest.hexdigest()


# The packages whose versions change what a lowering or a comparison gives.
PACKAGES = ("triton", "torch", "xdsl", "libclang", "islpy", "jax", "numpy", "sympy")


@cache
def versions() -> str:
    """lowercheck's sources and the versions of the packages it wraps: part of every cache key."""
    from importlib import metadata  # 30 ms to import: not on the way to starting the front ends' workers

    found = [tool_digest()]
    for package in PACKAGES:
        try:
            found.append(f"{package}={metadata.version(package)}")
        except metadata.PackageNotFoundError:
            found.append(f"{package}=none")
    return ";".join(found)


def python_dependencies(path: str) -> list[Path]:
    """The files a Python side's lowering depends on: the file and its sibling Python files (it may
    import them)."""
    file = Path(path).resolve()
    return sorted([file, *(p for p in file.parent.glob("*.py") if p != file)])


def source_digest(path: str) -> str:
    """A digest of `python_dependencies(path)` and the tools: the key of what its lowering gave."""
    file = Path(path).resolve()
    digest = hashlib.sha256(f"{__version__};{versions()};{file.name}".encode())
    for sibling in python_dependencies(path):
        try:
            digest.update(sibling.name.encode() + b"\0" + sibling.read_bytes() + b"\0")
        except OSError:
            continue
    return digest.hexdigest()


def key(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def get(kind: str, digest: str) -> str | None:
    path = folder() / kind / digest[:2] / digest
    try:
        return path.read_text()
    except OSError:
        return None


def put(kind: str, digest: str, text: str) -> None:
    """Store `text` under `digest`. Safe against writers of the same key at once (each writes a
    file of its own name, then renames it into place: a reader sees the old entry or the whole new
    one) and against a writer killed midway (it leaves at most its own partial file, which no key
    names)."""
    path = folder() / kind / digest[:2] / digest
    partial = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=f".{digest[:16]}-", suffix=".part",
                                         delete=False) as out:
            partial = out.name
            out.write(text)
        os.replace(partial, path)
        partial = None
    except OSError:
        pass  # a read-only disk only costs time
    finally:
        if partial is not None:
            with contextlib.suppress(OSError):
                os.unlink(partial)
