"""What every front end provides, and what it is given.

A front end is a module `lowercheck.frontends.<language>` with the same public names:

- ``LANGUAGE: str`` and ``EXTENSIONS: tuple[str, ...]``;
- ``entries(path) -> list[EntryCandidate]``: the entry points in a file (cheap; for ENTRY resolution);
- ``lower(path, entry, binding) -> ModuleOp``: the module holding one `kernel.entry` (its params and
  launches, see `lowercheck.dialects.kernel`) and the kernels it launches (`func.func` for CUDA,
  `tt.func` for Triton), every op with its source `loc(...)`.

Front ends raise `UserError` (exit 2) for unusable input and `Unsupported` (exit 3, LC901) for
constructs they cannot model, always with the user's file:line. They import dialects, never each
other, never runners.
"""

from __future__ import annotations

import ast
import inspect
import os
import traceback
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from lowercheck.errors import SourceLocation, Unsupported, UserError, read_user_text

if TYPE_CHECKING:
    from xdsl.ir import Attribute


@cache
def element_types() -> dict[str, Attribute]:
    """Element types of tensors, by torch-style dtype name (the names bindings and specs use). Made
    on first use: this module is on the way to starting the front ends' workers, xDSL's builtin
    dialect (0.15 s to import) is not."""
    from xdsl.dialects.builtin import (
        BFloat16Type,
        Float8E4M3FNType,
        Float8E5M2Type,
        Float16Type,
        Float32Type,
        Float64Type,
        IntegerType,
    )

    return {"float32": Float32Type(), "float16": Float16Type(), "bfloat16": BFloat16Type(),
            "float8_e4m3fn": Float8E4M3FNType(), "float8_e5m2": Float8E5M2Type(),
            "float64": Float64Type(), "int8": IntegerType(8), "uint8": IntegerType(8),
            "int16": IntegerType(16), "int32": IntegerType(32), "int64": IntegerType(64),
            "bool": IntegerType(1)}


def element_type(dtype: str, where: SourceLocation | None = None) -> Attribute:
    if dtype not in (types := element_types()):
        raise Unsupported(f"tensors of `{dtype}` are not supported yet", where)
    return types[dtype]


@dataclass(frozen=True)
class EntryParam:
    """A parameter as the entry's signature shows it. kind: buffer | scalar | unknown (untyped
    Python); dtype: a torch-style name (float32, int32, ...) where the signature says it."""

    name: str
    kind: str
    dtype: str | None = None


@dataclass(frozen=True)
class EntryCandidate:
    name: str
    location: SourceLocation
    params: tuple[EntryParam, ...]
    launches: tuple[str, ...] = ()  # kernels it launches, when known without running anything
    # Another instance of a launcher template (`launch<__half>`): the template's name, which names its
    # default instance; an entry chosen without a name is never one of these.
    instance_of: str | None = None
    # A function that calls the entry `calls` (a wrapper around the function holding the launch),
    # chosen only by name as well.
    calls: str | None = None
    # The file's own code names it as what it runs (a KernelBench file's `forward` calls it): of
    # several entries, the one chosen when the user names none.
    preferred: bool = False
    # A kernel itself (`@triton.jit def add_kernel(...)`), no launcher: chosen only by name, and
    # launched on the grid the spec's `[launch]` gives.
    kernel: bool = False

    @property
    def chosen_unnamed(self) -> bool:
        """Whether a file's entry may be this one when the user names none."""
        return self.instance_of is None and self.calls is None and not self.kernel


@dataclass(frozen=True)
class TensorArg:
    """A tensor argument: its shape (size names or integers) and dtype."""

    shape: tuple[str | int, ...]
    dtype: str


@dataclass(frozen=True)
class SizeArg:
    """An integer argument that receives the size `size` (a name in `Binding.sizes`)."""

    size: str


@dataclass(frozen=True)
class ScalarArg:
    """A non-size scalar argument (e.g. saxpy's `a`): its dtype and the value runs use."""

    dtype: str
    value: float | int = 1.5


@dataclass(frozen=True)
class ValueArg:
    """A value the entry receives as it is, in every run (a spec's `value = "mean"`, `none = true`, a
    flag): not a parameter of the lowered IR, never swept, like a default the user chose."""

    value: bool | int | float | str | tuple | None


@dataclass(frozen=True)
class TupleArg:
    """A tuple argument (a custom_vjp backward's residuals): arrays and values, in order. The
    arrays are the entry's parameters `NAME_0`, `NAME_1`, ... (by their index in the tuple)."""

    items: tuple[TensorArg | ValueArg, ...]

    def item_names(self, name: str) -> list[str | None]:
        return [f"{name}_{i}" if isinstance(item, TensorArg) else None for i, item in enumerate(self.items)]


Arg = TensorArg | SizeArg | ScalarArg | ValueArg | TupleArg


@dataclass(frozen=True)
class Binding:
    """What each entry parameter receives. sizes=None asks for a symbolic lowering (expressions over
    the size names); a front end that cannot lower symbolically raises `NeedsConcreteSizes`."""

    args: dict[str, Arg] = field(default_factory=dict)
    sizes: dict[str, int] | None = None
    grid: tuple[str, ...] | None = None  # when the entry is a kernel itself: its launch grid


class NeedsConcreteSizes(Exception):
    """The front end can lower this entry only for concrete sizes; the reason says why."""


class NeedsThoroughCall(Exception):
    """A front end's fast path could not answer this call (the Triton capture on shape tensors met
    something beyond shapes); the reason says why. The front-end worker's call server makes the
    call again, once, in a fresh process with `CAPTURE_ENV` set to "fake"."""


# How the Triton front end captures a wrapper: unset, on shape tensors and, where they fall short,
# again on torch's fake tensors in the same process; "fresh": where they fall short, raise
# NeedsThoroughCall (a front-end worker's calls, which the call server can make again in a fresh
# process); "fake": on torch's fake tensors only.
CAPTURE_ENV = "LOWERCHECK_CAPTURE"


def read_python(path: str) -> str:
    """A Python file's text as Python reads it (`errors.read_user_text`; CRLF line ends too)."""
    return read_user_text(path, "Python source").replace("\r\n", "\n")


def function_def(path: str, entry: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The `def entry(...)` of a Python file (`Class.method`: that class's method, an autograd
    Function's `forward`), or None (also for a file that does not parse: the front end says why)."""
    try:
        tree = ast.parse(read_python(path))
    except (OSError, SyntaxError, ValueError, UserError):
        return None
    owner, _, name = entry.rpartition(".")
    scope: ast.AST = tree
    if owner:
        found = next((n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == owner), None)
        if found is None:
            return None
        scope = found
    return next((n for n in ast.walk(scope) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.name == name), None)


# Calls that keep a tensor's name (`dx.view(shape)` returns dx, reshaped).
_SAME_TENSOR = frozenset({"view", "reshape", "contiguous", "to", "float", "half", "bfloat16", "squeeze", "unsqueeze",
                          "view_as", "reshape_as", "flatten", "type_as", "clone", "detach"})


def returned_names(path: str, entry: str) -> list[str | None]:
    """The variable each value the Python function `entry` returns is, in order (`return y, rstd`
    -> y, rstd; `dx.view(shape)` is dx), None where it is no variable, from the function's last
    `return` (a wrapper returns its results at its end; nested functions are not its returns)."""
    func = function_def(path, entry) if path.endswith(".py") else None
    if func is None:
        return []
    returns: list[ast.Return] = []
    stack: list[ast.AST] = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return) and node.value is not None:
            returns.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
    if not returns:
        return []
    value = max(returns, key=lambda n: n.lineno).value
    values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]

    def name_of(node: ast.expr) -> str | None:
        while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SAME_TENSOR:
            node = node.func.value
        return node.id if isinstance(node, ast.Name) else None

    return [name_of(v) for v in values]


def returned_variables(path: str, entry: str, tensor_items: list[bool]) -> list[str | None]:
    """The variable names of the returned tensors, in order, for a return value whose top-level
    items are tensors or not (`tensor_items`): [] where the names do not line up with the items."""
    names = returned_names(path, entry)
    if len(names) != len(tensor_items):
        return []
    return [name for name, is_tensor in zip(names, tensor_items, strict=True) if is_tensor]


def definition(fn) -> SourceLocation | None:
    """Where the user's function `fn` is defined (its `def` line), through decorators' wrappers."""
    code = getattr(inspect.unwrap(getattr(fn, "func", fn)), "__code__", None)
    return SourceLocation(code.co_filename, code.co_firstlineno) if code is not None else None


def user_frame(err: BaseException, file: str, shown: str) -> SourceLocation | None:
    """The innermost frame of `err`'s traceback in the user's `file`, shown as `shown`."""
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        if os.path.realpath(frame.filename) == os.path.realpath(file):
            return SourceLocation(shown, frame.lineno or 1, (frame.colno or 0) + 1 if frame.colno is not None else 0)
    return None


def parse_python(path: str) -> ast.Module:
    """The file's syntax tree (`read_python`); a syntax error is a UserError at its line and column."""
    try:
        return ast.parse(read_python(path), filename=path)
    except SyntaxError as err:
        raise UserError(f"syntax error: {err.msg}", SourceLocation(path, err.lineno or 1, err.offset or 0)) from None
    except ValueError as err:  # e.g. "source code string cannot contain null bytes"
        raise UserError(f"{path} is not Python source: {err}", SourceLocation(path, 1)) from None
