"""The user's Python file: importing it (without running a kernel) and finding its wrappers.

A *kernel* is a module-level `@triton.jit` function (possibly under `@triton.autotune` /
`@triton.heuristics`). A *wrapper* is a module-level Python function that is not a kernel and
whose body launches one: a call `K[grid](...)` where `K` names a kernel of the module.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from lowercheck.errors import SourceLocation, UserError
from lowercheck.frontends.base import parse_python, user_frame
from lowercheck.runners.user_code import exec_user_module, is_autograd_method


@dataclass(frozen=True)
class Wrapper:
    name: str
    line: int
    column: int
    params: tuple[str, ...]
    launches: tuple[str, ...]  # kernel names, in source order


@dataclass(frozen=True)
class Kernel:
    name: str
    line: int
    column: int
    params: tuple[str, ...]


def is_kernel(obj: object) -> bool:
    """A Triton kernel object: a JITFunction or an autotune/heuristics wrapper around one."""
    from triton.runtime.jit import KernelInterface

    return isinstance(obj, KernelInterface)


def jit_function(obj: object):
    """The JITFunction under autotune/heuristics wrappers."""
    from triton.runtime.jit import JITFunction

    while not isinstance(obj, JITFunction):
        obj = obj.fn
    return obj


_MODULES: dict[tuple[str, int], ModuleType] = {}


def load(path: str) -> ModuleType:
    """Import the user's file once per (path, mtime). Raises UserError at the failing line."""
    file = Path(path).resolve()
    if os.environ.get("TRITON_INTERPRET"):
        # @triton.jit would build interpreter objects that cannot be compiled.
        raise UserError("TRITON_INTERPRET is set in lowercheck's own process",
                        hint="unset TRITON_INTERPRET: lowercheck runs the interpreter in a child")
    key = (str(file), file.stat().st_mtime_ns)
    if key in _MODULES:
        return _MODULES[key]
    try:
        module = exec_user_module(str(file), "lowercheck_user_")  # Triton finds a kernel's globals through its module
    except SyntaxError as err:
        raise UserError(f"syntax error: {err.msg}", SourceLocation(path, err.lineno or 1, err.offset or 0)) from None
    except Exception as err:  # noqa: BLE001 - any failure of the user's import is the user's error
        raise UserError(f"importing the file raised {type(err).__name__}: {err}",
                        user_frame(err, str(file), path)) from None
    _MODULES[key] = module
    return module


def discover(path: str, module: ModuleType) -> tuple[list[Wrapper], list[Kernel]]:
    """The module-level wrappers and kernels of the file, in source order."""
    tree = parse_python(path)
    kernels: list[Kernel] = []
    wrappers: list[Wrapper] = []
    kernel_names = {n for n, v in vars(module).items() if is_kernel(v)}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        params = tuple(a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs))
        if node.name in kernel_names:
            kernels.append(Kernel(node.name, node.lineno, node.col_offset + 1, params))
            continue
        if not callable(getattr(module, node.name, None)):
            continue
        launched = [name for name in _launches(node) if name in kernel_names]
        if launched:
            wrappers.append(Wrapper(node.name, node.lineno, node.col_offset + 1, params, tuple(launched)))
    wrappers += _autograd_methods(tree, module, kernel_names)
    return wrappers, kernels


def _autograd_methods(tree: ast.Module, module: ModuleType, kernel_names: set[str]) -> list[Wrapper]:
    """The `forward` of each of the file's torch.autograd.Function classes that launches a kernel
    of the file itself (`Class.forward`, its parameters after `ctx`): liger's embedding launches
    from there, and a port often does. A `backward` reads what `forward` saved in `ctx`, which a
    call of its own does not have: it is no entry."""
    found = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for method in node.body:
            if not (isinstance(method, ast.FunctionDef) and method.name == "forward"
                    and is_autograd_method(getattr(module, node.name, None), method.name)):
                continue
            launched = [name for name in _launches(method) if name in kernel_names]
            args = (*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs)[1:]  # after ctx
            if launched:
                found.append(Wrapper(f"{node.name}.{method.name}", method.lineno, method.col_offset + 1,
                                     tuple(a.arg for a in args), tuple(launched)))
    return found


def _launches(fn: ast.FunctionDef) -> list[str]:
    """Names `K` of the calls `K[grid](...)` (or `mod.K[grid](...)`) in `fn`."""
    found: list[str] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
            target = node.func.value
            if isinstance(target, ast.Name):
                found.append(target.id)
            elif isinstance(target, ast.Attribute):
                found.append(target.attr)
    return list(dict.fromkeys(found))
