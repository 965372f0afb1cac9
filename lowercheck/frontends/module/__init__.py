"""A solution module: KernelBench's `class ModelNew(nn.Module)`, whose `forward` is a program that
mixes torch operations with kernel launches (Triton, `load_inline` CUDA), through helpers, in any
order, with weights the module holds.

Such a side is diffed as a whole against the problem's `Model`: KernelBench asks `ModelNew` to take
the same inputs and return the same outputs, so its entry is the problem's interface under its own
parameter names (`interface`), and its runs run the program itself (`runners/module.py`), each
kernel on lowercheck's engine for it. Nothing here imports or runs the user's file.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from lowercheck.errors import SourceLocation, UserError
from lowercheck.frontends.base import EntryCandidate, EntryParam, parse_python, read_python

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from lowercheck.dialects.kernel import EntryOp

LANGUAGE = "module"
SOLUTION_CLASS = "ModelNew"  # KernelBench's name for the solution's module
PROBLEM_CLASS = "Model"
# What a solution's kernels run on (`runners/module.py`'s engines), by what its file says.
_ENGINES = {"triton": re.compile(r"^\s*(import triton|from triton)", re.M),
            "cuda": re.compile(r"\bload_inline\s*\(")}


def module_classes(path: str) -> list[ast.ClassDef]:
    """The classes of the file that have a `forward` method, in source order."""
    tree = parse_python(path)
    return [node for node in tree.body if isinstance(node, ast.ClassDef)
            and any(isinstance(n, ast.FunctionDef) and n.name == "forward" for n in node.body)]


def entries(path: str) -> list[EntryCandidate]:
    """Each module class, `ModelNew` first: its parameters are `forward`'s, without `self`."""
    found = []
    for node in module_classes(path):
        forward = next(n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "forward")
        params = [a.arg for a in [*forward.args.posonlyargs, *forward.args.args, *forward.args.kwonlyargs]][1:]
        found.append(EntryCandidate(node.name, SourceLocation(path, node.lineno, node.col_offset + 1),
                                    tuple(EntryParam(p, "unknown") for p in params),
                                    preferred=node.name == SOLUTION_CLASS))
    return sorted(found, key=lambda c: not c.preferred)


def solution_class(path: str, entry: str | None) -> str | None:
    """The module class of `path` a diff against a problem runs: the one named, else `ModelNew`;
    None when there is none (then the file is diffed as a kernel file)."""
    try:
        names = [node.name for node in module_classes(path)]
    except UserError:
        return None
    if entry is not None:
        return entry if entry in names else None
    return SOLUTION_CLASS if SOLUTION_CLASS in names else None


def engines(path: str) -> list[str]:
    """The engines the solution's kernels need: "triton", "cuda" (both, or none: plain torch)."""
    text = read_python(path)
    return [name for name, pattern in _ENGINES.items() if pattern.search(text)]


def interface(path: str, entry: str, problem: EntryOp) -> ModuleOp:
    """The entry of the solution module `entry`: the problem's parameters (shapes, dtypes, roles)
    under the names of the solution's `forward` parameters, in order, and the problem's outputs."""
    from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
    from xdsl.ir import Block, Region

    from lowercheck.dialects.kernel import EntryOp, ParamOp

    candidate = next(c for c in entries(path) if c.name == entry)
    inputs = [p for p in problem.params if not p.pname.startswith("return") and p.role.data != "temp"]
    names = [p.name for p in candidate.params]
    if len(names) != len(inputs):
        raise UserError(f"`{entry}.forward` takes {len(names)} inputs ({', '.join(names) or 'none'}), the problem's "
                        f"`{problem.sym_name.data}` {len(inputs)} ({', '.join(p.pname for p in inputs)})",
                        candidate.location, hint="KernelBench calls both modules with get_inputs(): the same inputs, "
                                                 "in the same order")
    params = []
    for name, given in zip(names, inputs, strict=True):
        params.append(ParamOp(name, given.kind.data, given.role.data, given.element_type,
                              [s.data for s in given.shape.data]))
    for given in problem.params:
        if given.pname.startswith("return"):
            params.append(ParamOp(given.pname, "buffer", "out", given.element_type, [s.data for s in given.shape.data]))
    op = EntryOp.create(properties={"sym_name": StringAttr(entry), "language": StringAttr(LANGUAGE),
                                    "file": StringAttr(path)}, regions=[Region(Block(params))])
    op.location = FileLineColLoc(StringAttr(path), IntAttr(candidate.location.line),
                                 IntAttr(candidate.location.column))
    return ModuleOp([op])
