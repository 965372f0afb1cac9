"""Triton's own compiler, run as far as TTIR, and the TTIR read into xDSL.

`specialize` decides a launch's signature/constexprs/attributes the way `JITFunction.run` does (ints
equal to 1 become constexprs, multiples of 16 get `tt.divisibility`), or, for a symbolic lowering,
without specialising integers at all. `ttir` runs Triton's front end and its TTIR pipeline
(`make_ir` + the backend's "ttir" stage: what `triton.compile` runs first; the later stages, PTX and
ptxas, are not needed) and prints the module in MLIR's generic form with inline locations, which
the `tt` dialect parses.
"""

from __future__ import annotations

import ctypes
import os
import re
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    DictionaryAttr,
    FileLineColLoc,
    FusedLoc,
    ModuleOp,
    NameLoc,
    StringAttr,
    SymbolRefAttr,
    UnregisteredAttr,
    UnregisteredOp,
)
from xdsl.ir import Attribute, Operation, ParametrizedAttribute
from xdsl.utils.exceptions import ParseError, VerifyException

from lowercheck.diagnostics import captured_stderr
from lowercheck.errors import SourceLocation, Unsupported, UserError
from lowercheck.frontends.base import NeedsConcreteSizes
from lowercheck.frontends.triton.structure import structure

TARGET = ("cuda", 90, 32)
_INT32 = range(-(2**31), 2**31)


@dataclass(frozen=True)
class Variant:
    """One compilation of a kernel: what `ASTSource` needs, and the order of the TTIR func's params."""

    signature: tuple[tuple[str, str], ...]  # (param, "*fp32" | "i32" | ... | "constexpr")
    constexprs: tuple[tuple[str, Any], ...]
    attrs: tuple[tuple[int, int], ...]  # (param index, divisibility)
    options: tuple[tuple[str, Any], ...]  # num_warps, num_stages, ...

    @property
    def runtime_params(self) -> list[str]:
        """The params the TTIR func takes, in order (constexprs are folded in)."""
        return [name for name, ty in self.signature if ty != "constexpr"]


def _backend():
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend

    return make_backend(GPUTarget(*TARGET))


def specialize(fn, bound: dict[str, Any], options: dict[str, Any], symbolic: bool,
               launched_at: SourceLocation | None = None) -> Variant:
    """The variant `fn` compiles to for arguments `bound` (param name -> captured value) and launch
    options `options` (checked as Triton checks them, a fault at `launched_at`).

    Tensors are passed to Triton's own specializer as `MockTensor(dtype)` (16-byte aligned, as every
    torch allocation is). In a symbolic lowering integers are never specialised; symbolic ones are
    i32 (i64 when their hint exceeds int32).
    """
    import torch
    from triton._C.libtriton import native_specialize_impl
    from triton.runtime.jit import MockTensor

    from lowercheck.frontends.triton.shapes import Size, is_size

    backend = _backend()
    signature: list[tuple[str, str]] = []
    constexprs: list[tuple[str, Any]] = []
    attrs: list[tuple[int, int]] = []
    for index, param in enumerate(fn.params):
        value = bound[param.name]
        if param.is_constexpr:
            if isinstance(value, (torch.SymInt, torch.SymBool, torch.SymFloat)) or is_size(value):
                raise NeedsConcreteSizes(f"the constexpr `{param.name}` of `{fn.__name__}` depends on sizes")
            if isinstance(value, torch.Tensor):  # Triton's code generator fails on it with a TypeError
                dtype = str(value.dtype).removeprefix("torch.")
                raise UserError(f"the constexpr `{param.name}` of `{fn.__name__}` receives a tensor "
                                f"({dtype}[{', '.join(str(s) for s in value.shape)}]), where Triton needs a "
                                "Python number", launched_at,
                                hint="the wrapper argument it comes from is a number or a list of numbers, "
                                     "not a tensor: say so in --spec") from None
            signature.append((param.name, "constexpr"))
            constexprs.append((param.name, value))
            continue
        if isinstance(value, (torch.SymInt, Size)):
            hint = value.hint if isinstance(value, Size) else value.node.hint
            ty = param.annotation_type or ("i32" if hint is None or hint in _INT32 else "i64")
            signature.append((param.name, ty))
            continue
        standin = MockTensor(value.dtype) if isinstance(value, torch.Tensor) else value
        specialise = not param.do_not_specialize and not (symbolic and isinstance(value, int))
        ty, attr = native_specialize_impl(backend, standin, param.is_const, specialise,
                                          not param.do_not_specialize_on_alignment)
        if param.annotation_type:  # `n: tl.int64` fixes the type: never a constexpr then
            ty = param.annotation_type
            if ty == "u1" or ty[:2] in ("fp", "bf"):
                attr = None
        elif ty == "constexpr":  # an int equal to 1, or None, as JITFunction.run specialises it
            signature.append((param.name, "constexpr"))
            constexprs.append((param.name, attr))
            continue
        signature.append((param.name, ty))
        if attr == "D":
            attrs.append((index, 16))
    opts = tuple(sorted((k, v) for k, v in options.items() if k in _OPTION_NAMES))
    _check_options(fn, dict(opts), launched_at)
    return Variant(tuple(signature), tuple(constexprs), tuple(attrs), opts)


def _check_options(fn, options: dict[str, Any], launched_at: SourceLocation | None) -> None:
    """Launch options as Triton's backend reads them: one that depends on sizes (`num_warps` computed
    from a symbolic size) needs concrete sizes; one Triton rejects (`num_warps=1000`) is the launch's
    fault, at the launch."""
    import torch

    from lowercheck.frontends.triton.shapes import is_size

    for name, value in options.items():
        if isinstance(value, (torch.SymInt, torch.SymBool, torch.SymFloat)) or is_size(value):
            raise NeedsConcreteSizes(f"the launch option `{name}` of `{fn.__name__}` depends on sizes")
    try:
        _backend().parse_options(dict(options))
    except (AssertionError, ValueError, TypeError) as err:
        given = ", ".join(f"{k}={v!r}" for k, v in options.items())
        raise UserError(f"Triton rejects the launch options of `{fn.__name__}` ({given}): {err}", launched_at,
                        hint="give the wrapper's arguments (--spec) values for which its launch options "
                             "are valid") from None


def num_warps(variant: Variant) -> int:
    return _backend().parse_options(dict(variant.options)).num_warps


_OPTION_NAMES = ("num_warps", "num_stages", "num_ctas", "maxnreg", "debug", "enable_fp_fusion")

_printer_ready = False


def _print_generic_with_locations() -> None:
    """Make libtriton print MLIR generically with inline locations (once per process)."""
    global _printer_ready
    if _printer_ready:
        return
    from triton._C import libtriton

    lib = ctypes.CDLL(libtriton.__file__)
    lib._ZN4mlir27registerAsmPrinterCLOptionsEv()
    flags = [b"lowercheck", b"--mlir-print-op-generic", b"--mlir-print-debuginfo",
             b"--mlir-print-local-scope"]
    argv = (ctypes.c_char_p * (len(flags) + 1))(*flags, None)
    lib.LLVMParseCommandLineOptions.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p]
    lib.LLVMParseCommandLineOptions(len(flags), argv, None)
    _printer_ready = True


_TTIR_CACHE: dict[tuple, str] = {}
_DIAGNOSTIC = re.compile(r'^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$', re.M)


def ttir(fn, variant: Variant, entry_file: str) -> str:
    """TTIR of one variant, in MLIR's generic form with inline locations (cached per process).
    Errors are at the user's line, in `entry_file` as the user named it or in the file that defines
    the failing function (`shown_path`)."""
    key = (id(fn), fn.cache_key, variant)
    if key in _TTIR_CACHE:
        return _TTIR_CACHE[key]
    from triton._C.libtriton import ir
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.compiler.errors import CompilationError

    _print_generic_with_locations()
    backend = _backend()
    target = GPUTarget(*TARGET)
    src = ASTSource(fn=fn, signature=dict(variant.signature), constexprs=dict(variant.constexprs),
                    attrs={(i,): [["tt.divisibility", d]] for i, d in variant.attrs})
    options = backend.parse_options(dict(variant.options))
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    stages: dict[str, Any] = {}
    backend.add_stages(stages, options, src.language)
    try:
        with captured_stderr() as diagnostics:
            module = src.make_ir(target, options, backend.get_codegen_implementation(options),
                                 backend.get_module_map(), context)
            module = stages["ttir"](module, {})
    except CompilationError as err:
        raise UserError(f"Triton cannot compile `{fn.__name__}`: {err.error_message or 'error'}",
                        _compile_error_location(err, fn, entry_file)) from None
    except Exception as err:  # noqa: BLE001 - MLIR failures arrive as RuntimeError + stderr
        found = _DIAGNOSTIC.search("".join(diagnostics))
        if found:
            where = SourceLocation(shown_path(found["file"], entry_file), int(found["line"]), int(found["col"]))
            raise UserError(f"Triton cannot compile `{fn.__name__}`: {found['msg']}", where) from None
        raise UserError(f"Triton cannot compile `{fn.__name__}`: {err}",
                        SourceLocation(shown_path(fn.fn.__code__.co_filename, entry_file),
                                       fn.def_file_line_number)) from None
    text = str(module)
    _TTIR_CACHE[key] = text
    return text


def _compile_error_location(err, fn, entry_file: str) -> SourceLocation:
    """`err.node` is relative to the source of the jit function that failed (maybe a helper the
    kernel's module defines or imports)."""
    import sys

    from triton.runtime.jit import JITFunction

    failed = fn
    module = sys.modules.get(fn.__module__)
    for value in vars(module).values() if module else ():
        if isinstance(value, JITFunction) and value.src == err.src:
            failed = value
    node = err.node
    line = failed.def_file_line_number + getattr(node, "lineno", 1) - 1
    return SourceLocation(shown_path(failed.fn.__code__.co_filename, entry_file), line,
                          getattr(node, "col_offset", -1) + 1)


def shown_path(file: str, entry_file: str) -> str:
    """How a location's file is shown: the entry's file as the user named it; a kernel or helper
    imported from elsewhere under its own path (relative to the current folder when inside it)."""
    real = os.path.realpath(file)
    if real == os.path.realpath(entry_file):
        return entry_file
    relative = os.path.relpath(real)
    return real if relative.startswith(os.pardir) else relative


def to_xdsl(text: str, symbol: str, entry_file: str) -> list[Operation]:
    """The tt.func ops of one TTIR module: the kernel renamed to `symbol`, helper functions to
    `<name>__<symbol>`, every op's location a `FileLineColLoc` (its file as `shown_path`), early returns as
    `scf.if` (`structure`). An op lowercheck's IR has no dialect for is Unsupported at its line."""
    from lowercheck.dialects.tt import CallOp, FuncOp

    module = _parse_ttir(text, symbol, entry_file)
    funcs = [op for op in module.body.block.ops if isinstance(op, FuncOp)]
    renamed: dict[str, str] = {}
    for func in funcs:
        public = func.sym_visibility is None or func.sym_visibility.data == "public"
        renamed[func.sym_name.data] = symbol if public else f"{func.sym_name.data}__{symbol}"
    for func in funcs:
        func.sym_name = StringAttr(renamed[func.sym_name.data])
    for op in module.walk():
        op.location = _file_line_col(op.location, entry_file)
        if isinstance(op, CallOp) and op.callee.string_value() in renamed:
            op.callee = SymbolRefAttr(renamed[op.callee.string_value()])
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    arg_loc = getattr(arg, "location", None)
                    if isinstance(arg_loc, NameLoc):
                        arg.location = NameLoc(arg_loc.desc, _file_line_col(arg_loc.location, entry_file))
    for func in funcs:
        structure(func, _source_location)
    _reject_unknown_ops(module)
    _unique_value_names(module)
    for func in funcs:
        try:
            func.verify()
        except VerifyException as err:  # xDSL's verifiers are stricter than MLIR's in places
            raise Unsupported(f"lowercheck's IR rejects the TTIR of `{func.sym_name.data}`: {err}",
                              _source_location(func), hint=_READS) from None
        func.detach()
    return funcs


_READS = "lowercheck reads the TTIR ops and types of dialects/tt.py"
_TTIR_LOCATION = re.compile(r'"(?P<file>[^"]+)":(?P<line>\d+):(?P<col>\d+)\)')


def _parse_ttir(text: str, symbol: str, entry_file: str) -> ModuleOp:
    """TTIR as Triton printed it: with the `cf` branches of early returns (removed by `structure`)
    and any op of a dialect lowercheck does not load (rejected by `_reject_unknown_ops`), so that
    neither is a parse error. Anything else xDSL cannot read is Unsupported at the user's line that
    the offending TTIR line names."""
    from xdsl.dialects.cf import Cf
    from xdsl.parser import Parser

    from lowercheck import ir

    context = ir.context()
    context.allow_unregistered = True
    context.load_dialect(Cf)
    try:
        return Parser(context, text, f"<ttir of {symbol}>").parse_module()
    except ParseError as err:
        line = text.splitlines()[err.span.get_location().line - 1]
        found = _TTIR_LOCATION.search(line)
        where = None
        if found:
            where = SourceLocation(shown_path(found["file"], entry_file), int(found["line"]), int(found["col"]))
        raise Unsupported(f"lowercheck cannot read the TTIR of `{symbol}`: {err.msg}", where, hint=_READS) from None


def _reject_unknown_ops(module: ModuleOp) -> None:
    """The first op, type or attribute that lowercheck's own IR (`ir.context`) cannot hold, as
    Unsupported at its op's line."""
    from lowercheck import ir

    known = ir.context()
    for op in module.walk():
        name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
        unknown = None if known.get_optional_op(name) else f"`{name}`"
        for attr in (*op.result_types, *op.properties.values(), *op.attributes.values()):
            if unknown is None and (found := _unregistered(attr)) is not None:
                unknown = f"`{'!' if found.is_type.data else '#'}{found.attr_name.data}` (in `{name}`)"
        if unknown is not None:
            raise Unsupported(f"Triton's {unknown} has no counterpart in lowercheck's IR", _source_location(op),
                              hint=_READS)


def _unregistered(attr: Attribute) -> UnregisteredAttr | None:
    """An attribute or type of a dialect lowercheck does not load, in `attr` or among its parameters."""
    if isinstance(attr, UnregisteredAttr):
        return attr
    inner = (attr.data.values() if isinstance(attr, DictionaryAttr) else attr.data if isinstance(attr, ArrayAttr)
             else attr.parameters if isinstance(attr, ParametrizedAttribute) else ())
    return next((found for a in inner if isinstance(a, Attribute) and (found := _unregistered(a))), None)


_NUMBERED = re.compile(r"(_\d+)+$")


def _unique_value_names(module: ModuleOp) -> None:
    """TTIR names values after the Python variables and numbers repeats (`%q_tile_1` for the
    variable `q_tile_1`, `%q_tile_1_37` for its next op). xDSL keeps each name without its last
    number (`q_tile_1_37` -> `q_tile_1`, `q_tile_2` -> `q_tile`) and its printer numbers repeated
    names by appending `_N` without checking what is taken, so `q_tile_1` and a second `q_tile` both
    print as `%q_tile_1`, which no parser reads back. Dropping every number leaves the numbering to
    the printer alone."""
    for op in module.walk():
        values = [*op.results, *(arg for region in op.regions for block in region.blocks for arg in block.args)]
        for value in values:
            if value.name_hint is not None:
                value.name_hint = _NUMBERED.sub("", value.name_hint) or None


def _source_location(op: Operation) -> SourceLocation | None:
    """An op's `FileLineColLoc` (after `_file_line_col`) as the user's file:line:col."""
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return SourceLocation(loc.filename.data, loc.line.data, loc.column.data)
    return None


def _file_line_col(loc: Attribute, entry_file: str) -> Attribute:
    """The innermost file:line:col of an MLIR location (names, call sites and fusions peeled)."""
    if isinstance(loc, NameLoc):
        return _file_line_col(loc.location, entry_file)
    if isinstance(loc, CallSiteLoc):
        return _file_line_col(loc.callee, entry_file)
    if isinstance(loc, FusedLoc):
        for inner in loc.locations.data:
            found = _file_line_col(inner, entry_file)
            if isinstance(found, FileLineColLoc):
                return found
    if isinstance(loc, FileLineColLoc):
        return FileLineColLoc(StringAttr(shown_path(loc.filename.data, entry_file)), loc.line, loc.column)
    return loc
