"""The user's Python file: finding its Pallas entries (without importing it) and importing it.

An *entry* is a module-level function whose body calls `pallas_call` (`pl.pallas_call(...)(x, y)`,
or `pallas_call` imported by name). Its kernels are the first arguments of those calls when they
are names (`kernel` or `functools.partial(kernel, ...)`). A function that launches a kernel on a
mesh instead (`plgpu.kernel(...)`, `pl.kernel(...)`, `pl.core_map(...)`: Mosaic GPU's and the
TPU's kernel language, whole refs with explicit copies and barriers, no BlockSpecs) is an entry too,
so that lowering it says at that call that the construct is not modelled (`mesh_kernels`).
"""

from __future__ import annotations

import ast
import os
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from lowercheck.errors import SourceLocation, UserError
from lowercheck.frontends.base import parse_python
from lowercheck.runners.user_code import exec_user_module


@dataclass(frozen=True)
class Entry:
    name: str
    line: int
    column: int
    params: tuple[str, ...]
    kernels: tuple[str, ...]  # kernel function names, in source order
    mesh_kernels: tuple[tuple[str, int, int], ...] = ()  # (the call as spelled, line, column) per mesh launch
    calls: str | None = None  # a wrapper: the entry it calls (it holds no pallas_call itself)


def _is_pallas_call(node: ast.AST) -> bool:
    func = node.func if isinstance(node, ast.Call) else None
    return (isinstance(func, ast.Attribute) and func.attr == "pallas_call") or \
        (isinstance(func, ast.Name) and func.id == "pallas_call")


def _kernel_name(call: ast.Call) -> str | None:
    target = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "kernel"), None)
    if isinstance(target, ast.Call) and target.args and getattr(target.func, "attr", getattr(target.func, "id", "")) \
            == "partial":
        target = target.args[0]
    return target.id if isinstance(target, ast.Name) else None


# The launches of a kernel on a mesh, as attributes of a module of jax.experimental.pallas.
_MESH_LAUNCHES = ("kernel", "core_map")


# The modules whose `kernel` / `core_map` launch on a mesh: Pallas itself and its backends.
_MESH_MODULES = ("jax.experimental.pallas", "jax.experimental.pallas.mosaic_gpu", "jax.experimental.pallas.tpu")


def _pallas_modules(tree: ast.Module) -> set[str]:
    """The names the file binds to Pallas or one of its backends (`pl`, `plgpu`, `pltpu`)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.asname for a in node.names if a.asname and a.name in _MESH_MODULES}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names |= {a.asname or a.name for a in node.names if f"{node.module}.{a.name}" in _MESH_MODULES}
    return names


def _mesh_launch(node: ast.AST, modules: set[str]) -> str | None:
    """`plgpu.kernel` for a call `plgpu.kernel(...)` (or `pl.core_map(...)`), else None."""
    func = node.func if isinstance(node, ast.Call) else None
    if isinstance(func, ast.Attribute) and func.attr in _MESH_LAUNCHES and isinstance(func.value, ast.Name) \
            and func.value.id in modules:
        return f"{func.value.id}.{func.attr}"
    return None


def discover(path: str) -> list[Entry]:
    """The module-level functions of `path` that call `pallas_call` or launch a mesh kernel, in
    source order."""
    tree = parse_python(path)
    modules = _pallas_modules(tree)
    found = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        calls = [n for n in ast.walk(node) if isinstance(n, ast.Call) and _is_pallas_call(n)]
        launches = sorted(((name, n.lineno, n.col_offset + 1) for n in ast.walk(node)
                           if (name := _mesh_launch(n, modules))),
                          key=lambda launch: (not launch[0].endswith(".kernel"), launch[1]))
        if not calls and not launches:
            continue
        kernels = tuple(dict.fromkeys(k for k in map(_kernel_name, calls) if k))
        params = tuple(a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs])
        found.append(Entry(node.name, node.lineno, node.col_offset + 1, params, kernels, tuple(launches)))
    return found


def wrappers(path: str, found: list[Entry]) -> list[Entry]:
    """The other module-level functions of `path` that call an entry of `found` (directly or
    through other functions of the file), each as an entry with the kernels of the first entry it
    reaches in `calls`: wrappers a user may name (`FILE:wrapper`)."""
    tree = parse_python(path)
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    direct = {e.name for e in found}
    return [e for name in functions if name not in direct
            and (e := _calling_entry(functions, name, found)) is not None]


def _calling_entry(functions: dict[str, ast.FunctionDef], name: str, found: list[Entry]) -> Entry | None:
    by_name = {e.name: e for e in found}
    seen, todo, reached = {name}, [name], []
    while todo:
        for node in ast.walk(functions[todo.pop()]):
            callee = node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else None
            if callee in by_name:
                reached.append(by_name[callee])
            elif callee in functions and callee not in seen:
                seen.add(callee)
                todo.append(callee)
    if not reached:
        return None
    node = functions[name]
    params = tuple(a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs])
    return Entry(name, node.lineno, node.col_offset + 1, params,
                 tuple(dict.fromkeys(k for e in reached for k in e.kernels)),
                 tuple(dict.fromkeys(m for e in reached for m in e.mesh_kernels)), calls=reached[0].name)


_MODULES: dict[tuple[str, int], ModuleType] = {}


def load(path: str) -> ModuleType:
    """Import the user's file once per (path, mtime). Raises UserError at the failing line."""
    file = Path(path).resolve()
    key = (str(file), file.stat().st_mtime_ns)
    if key in _MODULES:
        return _MODULES[key]
    try:
        module = exec_user_module(str(file), "lowercheck_pallas_")
    except Exception as err:  # noqa: BLE001 - any failure of the user's import is the user's error
        raise UserError(f"importing {path} raised {type(err).__name__}: {err}", user_line(err, path)) from None
    _MODULES[key] = module
    return module


def user_line(err: BaseException, path: str) -> SourceLocation | None:
    """The innermost frame of `err`'s traceback in the user's file."""
    real = os.path.realpath(path)
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        if os.path.realpath(frame.filename) == real:
            return SourceLocation(path, frame.lineno or 1, (frame.colno or 0) + 1 if frame.colno is not None else 0)
    return SourceLocation(path, 1)
