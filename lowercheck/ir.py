"""One place that knows every dialect: parse and print lowercheck's IR as MLIR text."""

from __future__ import annotations

from functools import cache

from xdsl.context import Context
from xdsl.dialects import builtin, func, gpu, math, memref, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.printer import Printer

from lowercheck.dialects.access import Access
from lowercheck.dialects.kernel import Kernel


@cache
def _dialects() -> tuple:
    from lowercheck.dialects.simt import SIMT
    from lowercheck.dialects.tt import TT, arith_with_tensors

    # TTIR applies arith ops to tensors; the widened arith accepts both forms.
    return (builtin.Builtin, func.Func, arith_with_tensors(), scf.Scf, memref.MemRef, math.Math, gpu.GPU,
            Kernel, Access, TT, SIMT)


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
    _Printer(stream=out, print_debuginfo=debuginfo).print_op(op)
    return out.getvalue() + "\n"


class _Printer(Printer):
    """xDSL 0.75's custom `scf.while` printer calls `print_operation_type`, which with debuginfo adds
    the op's `loc(...)` in the middle of the op (`print_op` adds it again at the end); the parser
    rejects that. Print the type alone there."""

    def print_operation_type(self, op: Operation) -> None:
        if isinstance(op, scf.WhileOp) and not self.print_generic_format:
            self.print_function_type(op.operand_types, op.result_types)
        else:
            super().print_operation_type(op)
