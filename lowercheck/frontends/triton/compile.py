"""Triton's own compiler, run as far as TTIR, and the TTIR read into xDSL.

`specialize` decides a launch's signature/constexprs/attributes the way `JITFunction.run` does (ints
equal to 1 become constexprs, multiples of 16 get `tt.divisibility`), or, for a symbolic lowering,
without specialising integers at all. `ttir` runs Triton's front end and its TTIR pipeline
(`make_ir` + the backend's "ttir" stage: what `triton.compile` runs first; the later stages, PTX and
ptxas, are not needed) and prints the module in MLIR's generic form with inline locations, which
the `tt` dialect parses.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import (
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    ModuleOp,
    NameLoc,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Operation

from lowercheck.errors import SourceLocation, UserError
from lowercheck.frontends.base import NeedsConcreteSizes

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


def specialize(fn, bound: dict[str, Any], options: dict[str, Any], symbolic: bool) -> Variant:
    """The variant `fn` compiles to for arguments `bound` (param name -> captured value).

    Tensors are passed to Triton's own specializer as `MockTensor(dtype)` (16-byte aligned, as every
    torch allocation is). In a symbolic lowering integers are never specialised; symbolic ones are
    i32 (i64 when their hint exceeds int32).
    """
    import torch
    from triton._C.libtriton import native_specialize_impl
    from triton.runtime.jit import MockTensor

    backend = _backend()
    signature: list[tuple[str, str]] = []
    constexprs: list[tuple[str, Any]] = []
    attrs: list[tuple[int, int]] = []
    for index, param in enumerate(fn.params):
        value = bound[param.name]
        if param.is_constexpr:
            if isinstance(value, (torch.SymInt, torch.SymBool, torch.SymFloat)):
                raise NeedsConcreteSizes(f"the constexpr `{param.name}` of `{fn.__name__}` depends on sizes")
            signature.append((param.name, "constexpr"))
            constexprs.append((param.name, value))
            continue
        if isinstance(value, torch.SymInt):
            hint = value.node.hint
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
    return Variant(tuple(signature), tuple(constexprs), tuple(attrs), opts)


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


@contextlib.contextmanager
def _captured_stderr() -> Iterator[list[str]]:
    """MLIR writes diagnostics to fd 2 from C++; keep them to report the user's line."""
    out: list[str] = []
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            yield out
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            out.append(tmp.read().decode(errors="replace"))


_TTIR_CACHE: dict[tuple, str] = {}
_DIAGNOSTIC = re.compile(r'^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$', re.M)


def ttir(fn, variant: Variant, shown_file: str) -> str:
    """TTIR of one variant, in MLIR's generic form with inline locations (cached per process)."""
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
        with _captured_stderr() as diagnostics:
            module = src.make_ir(target, options, backend.get_codegen_implementation(options),
                                 backend.get_module_map(), context)
            module = stages["ttir"](module, {})
    except CompilationError as err:
        raise UserError(f"Triton cannot compile `{fn.__name__}`: {err.error_message or 'error'}",
                        _compile_error_location(err, fn, shown_file)) from None
    except Exception as err:  # noqa: BLE001 - MLIR failures arrive as RuntimeError + stderr
        found = _DIAGNOSTIC.search("".join(diagnostics))
        if found:
            where = SourceLocation(shown_file, int(found["line"]), int(found["col"]))
            raise UserError(f"Triton cannot compile `{fn.__name__}`: {found['msg']}", where) from None
        raise UserError(f"Triton cannot compile `{fn.__name__}`: {err}",
                        SourceLocation(shown_file, fn.def_file_line_number)) from None
    text = str(module)
    _TTIR_CACHE[key] = text
    return text


def _compile_error_location(err, fn, shown_file: str) -> SourceLocation:
    """`err.node` is relative to the source of the jit function that failed (maybe a helper)."""
    import sys

    from triton.runtime.jit import JITFunction

    start = fn.def_file_line_number
    module = sys.modules.get(fn.__module__)
    for value in vars(module).values() if module else ():
        if isinstance(value, JITFunction) and value.src == err.src:
            start = value.def_file_line_number
    node = err.node
    line = start + getattr(node, "lineno", 1) - 1
    return SourceLocation(shown_file, line, getattr(node, "col_offset", -1) + 1)


def to_xdsl(text: str, symbol: str, real_file: str, shown_file: str) -> list[Operation]:
    """The tt.func ops of one TTIR module: the kernel renamed to `symbol`, helper functions to
    `<name>__<symbol>`, every op's location a `FileLineColLoc` in `shown_file`."""
    from lowercheck.dialects.tt import CallOp, FuncOp
    from lowercheck.ir import parse

    module: ModuleOp = parse(text, name=f"<ttir of {symbol}>")
    funcs = [op for op in module.body.block.ops if isinstance(op, FuncOp)]
    renamed: dict[str, str] = {}
    for func in funcs:
        public = func.sym_visibility is None or func.sym_visibility.data == "public"
        renamed[func.sym_name.data] = symbol if public else f"{func.sym_name.data}__{symbol}"
    for func in funcs:
        func.sym_name = StringAttr(renamed[func.sym_name.data])
    paths = {real_file, os.path.realpath(real_file)}
    for op in module.walk():
        op.location = _file_line_col(op.location, paths, shown_file)
        if isinstance(op, CallOp) and op.callee.string_value() in renamed:
            op.callee = SymbolRefAttr(renamed[op.callee.string_value()])
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    arg_loc = getattr(arg, "location", None)
                    if isinstance(arg_loc, NameLoc):
                        arg.location = NameLoc(arg_loc.desc, _file_line_col(arg_loc.location, paths, shown_file))
    for func in funcs:
        func.detach()
    return funcs


def _file_line_col(loc: Attribute, paths: set[str], shown: str) -> Attribute:
    """The innermost file:line:col of an MLIR location (names, call sites and fusions peeled)."""
    if isinstance(loc, NameLoc):
        return _file_line_col(loc.location, paths, shown)
    if isinstance(loc, CallSiteLoc):
        return _file_line_col(loc.callee, paths, shown)
    if isinstance(loc, FusedLoc):
        for inner in loc.locations.data:
            found = _file_line_col(inner, paths, shown)
            if isinstance(found, FileLineColLoc):
                return found
    if isinstance(loc, FileLineColLoc):
        name = shown if loc.filename.data in paths else loc.filename.data
        return FileLineColLoc(StringAttr(name), loc.line, loc.column)
    return loc
