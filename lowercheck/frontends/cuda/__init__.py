"""The CUDA front end: a `.cu` file's host launcher and the kernels it launches, as lowercheck's IR.

A KernelBench-style `.py` file (CUDA source in a string passed to torch's `load_inline`) is read the
same way: its `torch::Tensor` host functions are the launchers (see host.py).

- `entries(path)`: the host functions that launch kernels (`k<<<grid, block>>>(args)`);
- `lower(path, entry, binding)`: a module with one `kernel.entry` (the launcher's parameters, with
  roles from what the kernels read and write, and its launches as index expressions) and one
  `func.func` per launched kernel (docs/CONVENTIONS-IR.md).

Parsing is libclang against `shim.h` (parse.py); kernels lower in lower.py, launchers in host.py.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import clang.cindex as ci
from xdsl.dialects.builtin import (
    ArrayAttr,
    FileLineColLoc,
    IntAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Block, Operation, Region
from xdsl.utils.exceptions import VerifyException

from lowercheck import symbolic
from lowercheck.dialects._expr import expr_array
from lowercheck.dialects.kernel import AtenOp, EntryOp, LaunchOp, ParamOp, split_view
from lowercheck.errors import LowercheckError, SourceLocation, Unsupported, UserError
from lowercheck.frontends.base import Binding, EntryCandidate, EntryParam, NeedsConcreteSizes, TensorArg, ValueArg
from lowercheck.frontends.cuda import parse
from lowercheck.frontends.cuda.ctype import CType, from_clang
from lowercheck.frontends.cuda.host import (
    HostFunction,
    HostReader,
    is_stream,
    is_tensor,
    kernel_symbol,
    host_callee,
    launched_kernel,
    launches_reached,
)
from lowercheck.frontends.cuda.lower import KernelLowering, memref_uses

LANGUAGE = "cuda"
EXTENSIONS = (".cu", ".cuh")  # and `.py` files calling load_inline (frontends/__init__.py)

__all__ = ["EXTENSIONS", "LANGUAGE", "entries", "lower", "python_signature", "source_notes"]


def source_notes(path: str | os.PathLike) -> list[str]:
    """Headers replaced by empty ones and host functions skipped for their clang errors."""
    return parse.source_notes(path)


@dataclass(frozen=True)
class Launcher:
    """A host function that launches a kernel, under the name the user gives it: its own, or for a
    launcher template's instance (`instances.py`) the template's (the default instance) or
    `name<args>` (the others)."""

    name: str
    fn: ci.Cursor


def _launchers(path: str | os.PathLike, with_errors: bool = False, every_instance: bool = False) -> list[Launcher]:
    """The host functions that launch a kernel, in source order; those holding a clang error only if
    `with_errors`. A launcher template is its default instance (the first for float), and with
    `every_instance` also each other instance."""
    tu = parse.translation_unit(path)
    broken = {parse.decl_key(fn) for fn in parse.errored_functions(path)}
    found = [Launcher(fn.spelling, fn) for fn in parse.function_definitions(tu)
             if not parse.is_kernel(fn) and not parse.is_device_only(fn) and fn.spelling != "main"  # a program
             and launches_reached(fn)
             and (with_errors or parse.decl_key(fn) not in broken)]
    by_template: dict[str, list[Launcher]] = {}
    for instance, fn in parse.launcher_instances(path):
        if launches_reached(fn) and (with_errors or parse.deferred_error(path, [fn]) is None):
            name = instance.shown if instance.args is not None else _instance_name(fn)  # as the file writes it
            by_template.setdefault(fn.spelling, []).append(Launcher(name, fn))
    for name, shown in by_template.items():
        default = next((i for i, launcher in enumerate(shown) if re.search(r"<float\b", launcher.name)), 0)
        found.append(Launcher(name, shown[default].fn))
        if every_instance:
            found += [launcher for i, launcher in enumerate(shown) if i != default]
    return sorted(found, key=lambda launcher: (launcher.fn.location.line, launcher.fn.location.column))


def _instance_name(fn: ci.Cursor) -> str:
    """`launch<__half>`, `launch<float, 4>`: the template's name and the instance's arguments."""
    args = []
    for i in range(max(fn.get_num_template_arguments(), 0)):
        if fn.get_template_argument_kind(i) == ci.TemplateArgumentKind.TYPE:
            args.append(fn.get_template_argument_type(i).spelling)
        else:
            args.append(str(fn.get_template_argument_value(i)))
    return f"{fn.spelling}<{', '.join(args)}>"


def entries(path: str | os.PathLike) -> list[EntryCandidate]:
    """The host functions in `path` that launch a kernel, in source order."""
    shown = str(path)
    found = []
    launchers = _launchers(path, every_instance=True)
    if not launchers:
        _raise_parse_error(path)
    defaults = {launcher.name for launcher in _launchers(path)}
    run = parse.forward_calls(path) if shown.endswith(".py") else set()
    for launcher in launchers:
        fn = launcher.fn
        params = []
        for p in (c for c in fn.get_children() if c.kind == ci.CursorKind.PARM_DECL):
            if is_stream(p.type):
                continue
            if is_tensor(p.type):
                params.append(EntryParam(p.spelling, "buffer"))
                continue
            t = from_clang(p.type)
            if t is None or (t.kind == "ptr" and t.elem is not None and t.elem.kind == "void"):
                params.append(EntryParam(p.spelling, "unknown"))
            elif t.kind == "ptr":
                assert t.elem is not None
                params.append(EntryParam(p.spelling, "buffer", t.elem.dtype))
            else:
                params.append(EntryParam(p.spelling, "scalar", t.dtype))
        kernels = tuple(dict.fromkeys(kernel_symbol(launched_kernel(c)) for c in launches_reached(fn)))
        found.append(EntryCandidate(launcher.name, parse.location(fn, shown), tuple(params), kernels,
                                    None if launcher.name in defaults else fn.spelling,
                                    preferred=launcher.name in run))
    return found


_COMPARISONS = frozenset({"==", "!=", "<", ">", "<=", ">="})


def _comparison(node: ci.Cursor) -> bool:
    """A binary operator that compares: its operator token follows its left operand."""
    lhs = parse.children(node)[0]
    after = [t.spelling for t in node.get_tokens() if t.extent.start.offset >= lhs.extent.end.offset]
    return bool(after) and after[0] in _COMPARISONS


def compared_values(path: str | os.PathLike, entry: str) -> dict[str, list[int]]:
    """Per integer parameter of the launcher `entry`, the constants its code compares it with, in
    source order (`num_bits == 8`, `q_type == quantize::Type::Symmetric`, `case 4:` of a `switch
    (num_bits)`): the values at which it chooses its launches, to lower it at when the default
    values make none (`lowercheck.lowering`)."""
    fn = _resolve(path, entry)
    params = {parse.decl_key(c): c.spelling for c in fn.get_children() if c.kind == ci.CursorKind.PARM_DECL}
    found: dict[str, list[int]] = {}

    def param_of(e: ci.Cursor) -> str | None:
        while e.kind == ci.CursorKind.UNEXPOSED_EXPR and len(parse.children(e)) == 1:
            e = parse.children(e)[0]
        if e.kind == ci.CursorKind.DECL_REF_EXPR and e.referenced is not None:
            return params.get(parse.decl_key(e.referenced))
        return None

    def note(name: str | None, value: ci.Cursor) -> None:
        constant = parse.evaluate(value)
        if name is not None and isinstance(constant, int) and constant not in found.setdefault(name, []):
            found[name].append(constant)

    switched: list[str | None] = []

    def walk(node: ci.Cursor) -> None:
        kind = node.kind
        if kind == ci.CursorKind.BINARY_OPERATOR and len(parse.children(node)) == 2 and _comparison(node):
            lhs, rhs = parse.children(node)
            note(param_of(lhs), rhs)
            note(param_of(rhs), lhs)
        if kind == ci.CursorKind.SWITCH_STMT and parse.children(node):
            switched.append(param_of(parse.children(node)[0]))
            for child in parse.children(node)[1:]:
                walk(child)
            switched.pop()
            return
        if kind == ci.CursorKind.CASE_STMT and switched and parse.children(node):
            note(switched[-1], parse.children(node)[0])
        for child in parse.children(node):
            walk(child)

    walk(fn)
    return {name: values for name, values in found.items() if values}


def python_signature(path: str | os.PathLike, function: str) -> tuple[list[str], str]:
    """How Python calls the host function `function` of a `load_inline` file: its parameters, in
    order, and what it returns ("tensor", "list" for a `std::vector`, "tuple", or "void")."""
    tu = parse.translation_unit(path)
    found = [fn for fn in parse.function_definitions(tu) if fn.spelling == function and not parse.is_kernel(fn)]
    if not found:
        raise UserError(f"{path}: the extension has no C++ function `{function}`", SourceLocation(str(path), 1),
                        hint="list in `functions=[...]` the host functions the CUDA source defines")
    fn = found[0]
    params = [c.spelling for c in fn.get_children() if c.kind == ci.CursorKind.PARM_DECL]
    result = fn.result_type.get_canonical().spelling
    kind = ("void" if result == "void" else "list" if "vector" in result else "tuple" if "tuple" in result
            else "tensor")
    return params, kind


def lower(path: str | os.PathLike, entry: str | None = None, binding: Binding | None = None) -> ModuleOp:
    """The module for the host launcher `entry` (None: the file's only launcher) in `path`."""
    shown = str(path)
    fn = _resolve(path, entry)
    error = parse.deferred_error(path, _reachable(fn, parse.translation_unit(path)))
    if error is not None:  # a kernel or device function this launcher needs does not parse
        raise error
    try:
        return _lower(fn, shown, binding)
    except (LowercheckError, NeedsConcreteSizes):  # the latter: lowered again at concrete sizes
        raise
    except Exception as err:  # a bug of this front end must still end at the user's launcher
        raise Unsupported(f"the CUDA front end failed on this launcher ({type(err).__name__}: {err}); "
                          "please report it", parse.location(fn, shown)) from err


def _lower(fn, shown: str, binding: Binding | None) -> ModuleOp:
    given = {name: arg.shape for name, arg in (binding.args if binding else {}).items()
             if isinstance(arg, TensorArg)}
    fixed = {name: arg.value for name, arg in (binding.args if binding else {}).items()
             if isinstance(arg, ValueArg) and (arg.value is None or isinstance(arg.value, (bool, int)))}
    dtypes = {name: arg.dtype for name, arg in (binding.args if binding else {}).items()
              if isinstance(arg, TensorArg) and arg.dtype}
    host = HostReader(fn, shown, given, binding.sizes if binding else None, fixed, dtypes).read()
    reached = launches_reached(fn)
    if not host.launches and reached and (binding is None or binding.sizes is None):
        # Read symbolically, every launch is either made or undecided (then read at concrete sizes):
        # none made means the reading went past them (a construct it does not follow).
        raise Unsupported(f"`{fn.spelling}` launches kernels (at line {reached[0].location.line}) that lowercheck's "
                          "reading of its host code never reaches", parse.location(fn, shown),
                          hint="the launch is inside a construct the host reader skips; call it from a plain "
                               "function, or report the construct")
    kernels: dict[str, Operation] = {}
    dynamic_shared: set[str] = set()  # kernels with `extern __shared__`: their last argument is its size
    constants: dict[str, list[tuple[str, CType, int]]] = {}  # per kernel, the `__constant__` it reads
    for launch in host.launches:
        if launch.symbol not in kernels:
            lowering = KernelLowering(shown, nulls=launch.nulls)
            kernels[launch.symbol] = lowering.lower_kernel(launch.kernel, launch.symbol)
            if lowering.shared_bytes is not None:
                dynamic_shared.add(launch.symbol)
            constants[launch.symbol] = lowering.constants
    entry_op = _entry(host, kernels, binding or Binding(), shown, dynamic_shared, constants)
    module = ModuleOp([entry_op, *kernels.values()])
    try:
        module.verify()
    except VerifyException as err:  # a bug of this front end, reported at the user's launcher
        raise Unsupported(f"the CUDA front end produced invalid IR ({err}); please report it",
                          parse.location(fn, shown)) from err
    return module


def _step_buffers(args: list[str]) -> list[str]:
    """The buffers an ATen step reads: its operands that name one (`x`, `x@[4, 8]`, `[a, b]`)."""
    names = []
    for arg in args:
        for item in arg.strip("[]").split(","):
            item = item.strip().split("@")[0]
            if item.isidentifier() and item not in ("None", "True", "False"):
                names.append(item)
    return names


def _raise_parse_error(path: str | os.PathLike) -> None:
    """For a file without a launcher that parses: clang's own error in the launchers that do not
    parse (else in any function, else anywhere in the file), instead of "no launcher"; nothing when
    everything parsed."""
    error = parse.deferred_error(path, [launcher.fn for launcher in _launchers(path, with_errors=True)]
                                 or parse.errored_functions(path)) or parse.first_error(path)
    if error is not None:
        raise error


def _reachable(fn: ci.Cursor, tu: ci.TranslationUnit) -> list[ci.Cursor]:
    """What a lowering of the launcher `fn` reads: `fn`, the kernels it launches, and every function
    those call, transitively, in any file. Host functions the launcher calls (an error check that
    prints with std::cerr) are not lowered, so their errors do not matter."""
    found: dict[tuple[int, int], ci.Cursor] = {}
    todo = [fn] + [k for k in (launched_kernel(c) for c in launches_reached(fn)) if k is not None]
    todo += [callee for c in parse.walk(fn) if (callee := host_callee(c)) is not None and launches_reached(callee)]
    while todo:
        current = todo.pop()
        key = parse.decl_key(current)
        if key in found:
            continue
        found[key] = current
        if current is fn:
            continue  # the launcher's own calls are read by host.py, not lowered
        for c in parse.walk(current):
            if c.kind == ci.CursorKind.CALL_EXPR and c.referenced is not None:
                definition = c.referenced.get_definition()
                if definition is not None:
                    todo.append(definition)
    return list(found.values())


def _resolve(path: str | os.PathLike, entry: str | None) -> ci.Cursor:
    launchers = _launchers(path)
    names = [launcher.name for launcher in launchers]
    if entry is not None and entry not in names:  # named: a launcher that does not parse gives its clang error
        error = parse.deferred_error(path, [launcher.fn for launcher in _launchers(path, True, True)
                                            if launcher.name == entry])
        if error is not None:
            raise error
    if entry is None:
        if len(launchers) == 1:
            return launchers[0].fn
        if not launchers:
            _raise_parse_error(path)
            raise UserError(f"{path} has no host function that launches a kernel", SourceLocation(str(path), 1),
                            hint="add a launcher, e.g. `void launch(float* x, int n) { "
                                 "k<<<(n + 255) / 256, 256>>>(x, n); }`")
        called = parse.forward_calls(path) if str(path).endswith(".py") else set()
        run = [n for n in names if n in called]
        if len(run) == 1:  # the one a KernelBench file's `forward` calls
            return launchers[names.index(run[0])].fn
        raise UserError(f"{path} has several launchers: {', '.join(names)}", parse.location(launchers[0].fn, str(path)),
                        hint=f"name one: `{path}:{names[0]}`")
    for launcher in _launchers(path, every_instance=True):
        if launcher.name == entry:
            return launcher.fn
    tu = parse.translation_unit(path)
    host = next((fn for fn in parse.function_definitions(tu) if fn.spelling == entry and not parse.is_kernel(fn)
                 and not parse.is_device_only(fn)), None)
    if host is not None:  # named: a host function that launches nothing (it computes with ATen alone)
        return host
    kernel = next((fn for fn in parse.function_definitions(tu) if fn.spelling == entry and parse.is_kernel(fn)), None)
    if kernel is not None:
        raise UserError(f"`{entry}` in {path} is a kernel, not a host launcher", parse.location(kernel, str(path)),
                        hint=f"name the host function that launches it: {', '.join(names) or 'none'}")
    instances = [launcher.name for launcher in _launchers(path, every_instance=True) if launcher.name not in names]
    raise UserError(f"{path} has no launcher named `{entry}`", SourceLocation(str(path), 1),
                    hint=f"launchers in the file: {', '.join(names) or 'none'}"
                         + (f"; other instances of its launcher templates: {', '.join(instances)}" if instances else ""))


def _loc(where: SourceLocation) -> FileLineColLoc:
    return FileLineColLoc(StringAttr(where.file), IntAttr(where.line), IntAttr(where.column))


def _entry(host: HostFunction, kernels: dict[str, Operation], binding: Binding, shown: str,
           dynamic_shared: set[str] = frozenset(),
           constants: dict[str, list[tuple[str, CType, int]]] | None = None) -> EntryOp:
    """The entry: the launcher's parameters, the buffers it returns or allocates, the `__constant__`
    variables its kernels read (the buffer `cudaMemcpyToSymbol` fills them from, else an input of
    their own), and one `kernel.launch` per launch."""
    constants = constants or {}
    params = {name for name, _, _ in host.params}
    symbol_args: dict[str, str] = {}  # a constant -> the entry buffer that holds it
    own: dict[str, tuple[CType, int]] = {}  # constants no host buffer fills: entry inputs of their own
    for launch in host.launches:
        for name, elem, count in constants.get(launch.symbol, []):
            source = host.symbols.get(name)
            if source is None:
                source = name if name not in params else f"constant_{name}"
                own.setdefault(source, (elem, count))
            symbol_args[name] = source
    launch_args = {id(launch): list(launch.args) + [symbol_args[name] for name, _, _ in constants.get(launch.symbol, [])]
                   for launch in host.launches}
    reads: dict[str, bool] = {}
    writes: dict[str, bool] = {}
    for launch in host.launches:
        uses = memref_uses(kernels[launch.symbol])
        for arg, (read, written) in zip(launch_args[id(launch)], uses):
            arg, _ = split_view(arg)  # `x[n*k:]`: a view of the buffer x
            reads[arg] = reads.get(arg, False) or read
            writes[arg] = writes.get(arg, False) or written
    host_written = set()  # written by an ATen step of the host function, not (only) by kernels
    for step in host.operators:
        for arg in _step_buffers(step.args):
            reads[arg] = True
        if step.result.name in {a.split("@")[0] for a in step.args} and not step.target.endswith("_"):
            continue
        writes[step.result.name] = True
        host_written.add(step.result.name)
    ops: list[Operation] = []
    for name, t, cursor in host.params:
        if t.kind == "ptr":
            assert t.elem is not None
            role = {(True, True): "inout", (False, True): "out"}.get(
                (reads.get(name, False), writes.get(name, False)), "in")
            arg = binding.args.get(name)
            shape = arg.shape if isinstance(arg, TensorArg) else host.shapes.get(name, ())
            op = ParamOp(name, "buffer", role, t.elem.ir, shape)
        else:
            op = ParamOp(name, "scalar", "scalar" if t.is_float else "size", t.ir)
        op.location = _loc(parse.location(cursor, shown))
        ops.append(op)
    kernel_written = {split_view(a)[0] for launch in host.launches
                      for a, (_, written) in zip(launch_args[id(launch)], memref_uses(kernels[launch.symbol]))
                      if written}
    for buffer in host.returned:  # a torch host function's result: written by its kernels, or by torch
        assert buffer.ctype.elem is not None
        by_host = buffer.name in host_written and buffer.name not in kernel_written
        op = ParamOp(buffer.name, "buffer", "out", buffer.ctype.elem.ir, buffer.shape,
                     written_by="host" if by_host else None)
        op.location = _loc(parse.location(host.cursor, shown))
        ops.append(op)
    for buffer in host.temps:
        assert buffer.ctype.elem is not None
        op = ParamOp(buffer.name, "buffer", "temp", buffer.ctype.elem.ir, buffer.shape)
        op.location = _loc(parse.location(host.cursor, shown))
        ops.append(op)
    for name, (elem, count) in own.items():  # `__constant__ float coeffs[16];` that nothing here fills
        op = ParamOp(name, "buffer", "in", elem.ir, [str(count)])
        op.location = _loc(parse.location(host.cursor, shown))
        ops.append(op)
    def steps_after(count: int) -> None:
        for step in host.operators:
            if step.after == count:
                elem = step.result.ctype.elem
                assert elem is not None
                op = AtenOp(f"aten.{step.target}", step.result.name, step.args, list(step.result.shape), elem.ir)
                op.location = _loc(parse.location(step.cursor, shown))
                ops.append(op)

    for count, launch in enumerate(host.launches):
        steps_after(count)
        args = launch_args[id(launch)]
        shared = launch.shared_bytes if launch.shared_bytes is not None else 0
        if launch.symbol in dynamic_shared:  # the kernel's trailing `dynamic_shared_bytes` argument
            args.append(symbolic.format(shared))
        properties = {"callee": SymbolRefAttr(launch.symbol),
                      "grid": expr_array(launch.grid), "block": expr_array(launch.block),
                      "args": ArrayAttr([StringAttr(a) for a in args])}
        if launch.shared_bytes is not None:
            properties["shared_bytes"] = StringAttr(symbolic.format(launch.shared_bytes))
        op = LaunchOp.create(properties=properties)
        op.location = _loc(parse.location(launch.cursor, shown))
        ops.append(op)
    steps_after(len(host.launches))
    entry = EntryOp.create(properties={"sym_name": StringAttr(host.cursor.spelling),
                                       "language": StringAttr(LANGUAGE), "file": StringAttr(shown)},
                           regions=[Region(Block(ops))])
    entry.location = _loc(parse.location(host.cursor, shown))
    return entry
