"""The user's Python file: its reference entries, found without importing it.

- a class named `Model` or `ModelNew` with a `forward` method (KernelBench's format): the entry is
  the class, its parameters are `forward`'s (without `self`); `get_inputs()` gives example inputs and
  `get_init_inputs()` the constructor's arguments;
- otherwise every public module-level function (not `get_inputs`, `get_init_inputs`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from lowercheck.errors import SourceLocation, UserError
from lowercheck.frontends.base import EntryCandidate, EntryParam, parse_python

MODEL_CLASSES = ("Model", "ModelNew")
HELPERS = ("get_inputs", "get_init_inputs")


@dataclass(frozen=True)
class Entry:
    name: str
    line: int
    column: int
    params: tuple[str, ...]
    is_module: bool  # an nn.Module class (constructed with get_init_inputs()), else a function
    has_inputs: bool  # the file defines get_inputs()


def discover(path: str) -> list[Entry]:
    tree = parse_python(path)
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    has_inputs = "get_inputs" in functions
    models = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name in MODEL_CLASSES:
            forward = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None)
            if forward is None:
                raise UserError(f"class `{node.name}` has no forward method", SourceLocation(path, node.lineno),
                                hint="a KernelBench Model defines forward(self, *inputs)")
            models.append(Entry(node.name, node.lineno, node.col_offset + 1, _params(forward, path)[1:], True, has_inputs))
    if models:
        return models
    return [Entry(n.name, n.lineno, n.col_offset + 1, _params(n, path), False, has_inputs)
            for n in functions.values() if n.name not in HELPERS and not n.name.startswith("_")]


def candidates(path: str) -> list[EntryCandidate]:
    return [EntryCandidate(e.name, SourceLocation(path, e.line, e.column),
                           tuple(EntryParam(p, "unknown") for p in e.params)) for e in discover(path)]


def has_example_inputs(path: str) -> bool:
    """Whether the file says its own inputs (`get_inputs()`): then its shapes need no spec."""
    return any(e.has_inputs for e in discover(path))


def _params(node: ast.FunctionDef, path: str) -> tuple[str, ...]:
    args = node.args
    if args.vararg is not None:
        raise UserError(f"`{node.name}` takes *{args.vararg.arg}: lowercheck needs named parameters",
                        SourceLocation(path, node.lineno), hint="name each input tensor")
    return tuple(a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs])
