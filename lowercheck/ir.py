"""One place that knows every dialect: parse and print lowercheck's IR as MLIR text."""

from __future__ import annotations

from functools import cache

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, gpu, math, memref, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.printer import Printer

from lowercheck.dialects.access import Access
from lowercheck.dialects.kernel import Kernel


@cache
def _dialects() -> tuple:
    found = [builtin.Builtin, func.Func, arith.Arith, scf.Scf, memref.MemRef, math.Math, gpu.GPU,
             Kernel, Access]
    try:
        from lowercheck.dialects.tt import TT
    except ImportError:  # the tt dialect arrives with the Triton front end
        pass
    else:
        found.append(TT)
    return tuple(found)


def context() -> Context:
    ctx = Context()
    for dialect in _dialects():
        ctx.load_dialect(dialect)
    return ctx


def parse(text: str, name: str = "<ir>") -> ModuleOp:
    """Parse MLIR text (custom or generic form) into a verified module."""
    module = Parser(context(), text, name).parse_module()
    module.verify()
    return module


def print_ir(op: Operation, debuginfo: bool = False) -> str:
    """MLIR text that `parse` reads back; with debuginfo, ops carry their source `loc(...)`."""
    from io import StringIO

    out = StringIO()
    Printer(stream=out, print_debuginfo=debuginfo).print_op(op)
    return out.getvalue() + "\n"
