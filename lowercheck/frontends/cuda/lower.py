"""Lower a `__global__` kernel's clang AST to func/arith/scf/memref/math/gpu (docs/CONVENTIONS-IR.md).

Locals are SSA values in an environment keyed by their declaration; control flow rebuilds them:
- `if` is `scf.if` yielding the variables either branch assigned;
- a statement that may leave early (`return` in the kernel or a helper, `continue` in a loop) takes
  the rest of its sequence into its branches: `if (i >= n) return; REST` is `scf.if (i >= n) {} else
  {REST}`;
- a canonical counted `for` is `scf.for` over index, any other loop `scf.while`, the variables the
  loop assigns being iter_args;
- `__device__` helpers are inlined; a helper's `return v` sets its frame's return slot.

Clang has already applied C's conversions (implicit casts are `UNEXPOSED_EXPR` with one child), so
each cast node converts its child to its own type with the `_CONVERSIONS` table. Operators, math
functions and GPU builtin variables are tables too.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import clang.cindex as ci
from xdsl.dialects import arith, func, gpu, memref, scf
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FileLineColLoc,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from lowercheck.dialects import simt
from lowercheck.errors import LowercheckError, Unsupported
from lowercheck.frontends.cuda import ctype as ct
from lowercheck.frontends.cuda import ptx
from lowercheck.frontends.cuda.ctype import CType
from lowercheck.frontends.cuda.parse import (
    INCREMENTS,
    assigned_decl,
    children,
    decl_key,
    evaluate,
    is_null_pointer,
    location,
    member_name,
    unary_operator,
    walk,
)

K = ci.CursorKind
B = ci.BinaryOperator


@dataclass(frozen=True)
class Ptr:
    """A pointer value: a buffer (memref block argument) and an element offset (index) into it."""

    base: SSAValue
    offset: SSAValue | None
    ctype: CType
    lead: tuple[SSAValue, ...] = ()  # the outer indices of a multi-dimensional array, applied so far
    null: bool = False  # a kernel parameter this launch passes as nullptr (`p != nullptr` is false)

    @property
    def rank(self) -> int:
        return len(self.base.type.shape)  # type: ignore[attr-defined]  # base is a memref


@dataclass(frozen=True)
class Choice:
    """A pointer chosen by a condition between two (`cnt == 0 ? out : (cnt == 1 ? k : v)`, one output
    buffer per block of a grid axis): every access through it is an `scf.if` on `cond` accessing
    one or the other, so the static checks see each buffer's accesses under their condition."""

    cond: SSAValue
    yes: Ptr | Choice
    no: Ptr | Choice

    @property
    def ctype(self) -> CType:
        return self.yes.ctype

    @property
    def leaf(self) -> Ptr:
        return self.yes if isinstance(self.yes, Ptr) else self.yes.leaf


@dataclass(eq=False)
class PointerTable:
    """A local array of pointers (`const T* bases[TOP_K]`, one row per chosen expert): the pointers'
    offsets in a local array of i64 (`offsets`), all into one buffer (`base`, set by the first
    store). Reading an entry is a pointer into that buffer at the offset read back."""

    offsets: SSAValue  # memref<N x i64>
    pointer: CType  # the entries' type
    base: SSAValue | None = None
    lead: tuple[SSAValue, ...] = ()


@dataclass(frozen=True)
class PointerRows:
    """A table of device pointers the kernel receives (`int32_t** block_lists`): `table[i]` is the
    element offset of pointer i into `rows`, the memory they all point into (`ctype.pointer_rows`)."""

    table: Ptr
    rows: Ptr


@dataclass(frozen=True)
class PointerSlot:
    """Entry `index` of a PointerTable, as a place to read or assign."""

    table: PointerTable
    index: SSAValue


@dataclass(frozen=True)
class Undef:
    """A variable declared without a value (read before written is undefined behaviour in C)."""

    ctype: CType


@dataclass(frozen=True)
class Group:
    """A cooperative_groups group: the thread block (size None), a `thread_block_tile<size>`, or
    the active lanes of a warp (`coalesced_threads()`: coalesced, at most 32)."""

    size: int | None
    coalesced: bool = False


@dataclass(frozen=True)
class Vec:
    """A `float4`-style value, lane by lane (vectors are scalarised: docs/CONVENTIONS-IR.md)."""

    lanes: tuple[SSAValue, ...]
    ctype: CType


@dataclass(frozen=True)
class Packed:
    """The bits of a value of type `ctype` (a `uint4`) read through a reinterpreted pointer from a
    buffer of `elem`s: the buffer's own elements, in order. The copies of packed vectors that LLM
    kernels make (`reinterpret_cast<uint4*>(dst)[0] = reinterpret_cast<const uint4*>(src)[0]`, or
    a `memcpy` of 16 bytes) move these elements as they are."""

    lanes: tuple[SSAValue, ...]
    elem: CType
    ctype: CType


@dataclass(frozen=True)
class Address:
    """A pointer as a shared-window address (`__cvta_generic_to_shared(p)`, an integer in C): inline
    PTX reads it as the pointer it came from; any other use of it as a number is not modelled."""

    ptr: Ptr


@dataclass(frozen=True, eq=False)
class Obj:
    """A struct or class object of one thread: a local cell per field (an array field: a local array;
    a struct field: an Obj of its own), so that a member's address (`&params.scale`, which LLM
    kernels pass to their load helpers) is a pointer like any other and methods update it in place."""

    fields: dict[str, Ptr | Obj | Fixed]
    record: str  # the type's name, for messages
    decls: dict[str, ci.Cursor] = field(default_factory=dict)  # each field's declaration (its default value)
    memory: Ptr | None = None  # an object in memory as bytes (`(int64_t*)&res`): its first byte


@dataclass(frozen=True)
class Fixed:
    """A member of an object that holds a value rather than a cell: a pointer (a buffer), or any
    member of a struct the kernel receives by value (`batch_desc.tokens_to_seq`), which it reads
    and never assigns. `value` None: a member lowercheck does not model (a pointer to pointers)."""

    value: Value | None
    ctype: CType


OBJECT = CType("struct")  # the CType an Obj travels with (never an IR type)

Value = SSAValue | Ptr | Choice | Undef | Group | Vec | Packed | Address | Obj | PointerTable | PointerRows
_LANES = {"x": 0, "y": 1, "z": 2, "w": 3}


@dataclass
class Frame:
    """One function being lowered (the kernel or an inlined helper)."""

    cursor: ci.Cursor
    returns: CType
    ret_key: str
    loop_depth: int = 0
    breaks: list[str | None] = field(default_factory=list)  # each enclosing loop's break flag
    this: Obj | None = None  # a method's (or constructor's) object

    @property
    def returned_key(self) -> str:
        """The flag a `return` inside a loop sets: the loops stop and what follows them is skipped."""
        return self.ret_key + ":returned"


# ---------------------------------------------------------------- tables
def _int_or_float(signed_int, unsigned_int, flt):
    def pick(t: CType):
        if t.is_float:
            return flt
        return signed_int if t.signed else unsigned_int

    return pick


_ARITH: dict[B, Callable[[CType], type[Operation] | None]] = {
    B.Add: _int_or_float(arith.AddiOp, arith.AddiOp, arith.AddfOp),
    B.Sub: _int_or_float(arith.SubiOp, arith.SubiOp, arith.SubfOp),
    B.Mul: _int_or_float(arith.MuliOp, arith.MuliOp, arith.MulfOp),
    B.Div: _int_or_float(arith.DivSIOp, arith.DivUIOp, arith.DivfOp),  # C truncates: divsi
    B.Rem: _int_or_float(arith.RemSIOp, arith.RemUIOp, None),
    B.Shl: _int_or_float(arith.ShLIOp, arith.ShLIOp, None),
    B.Shr: _int_or_float(arith.ShRSIOp, arith.ShRUIOp, None),
    B.And: _int_or_float(arith.AndIOp, arith.AndIOp, None),
    B.Or: _int_or_float(arith.OrIOp, arith.OrIOp, None),
    B.Xor: _int_or_float(arith.XOrIOp, arith.XOrIOp, None),
}
_COMPOUND = {B.MulAssign: B.Mul, B.DivAssign: B.Div, B.RemAssign: B.Rem, B.AddAssign: B.Add,
             B.SubAssign: B.Sub, B.ShlAssign: B.Shl, B.ShrAssign: B.Shr, B.AndAssign: B.And,
             B.XorAssign: B.Xor, B.OrAssign: B.Or}
# predicate for (signed int, unsigned int, float); floats use ordered compares, `!=` unordered as C.
_COMPARE = {B.LT: ("slt", "ult", "olt"), B.GT: ("sgt", "ugt", "ogt"), B.LE: ("sle", "ule", "ole"),
            B.GE: ("sge", "uge", "oge"), B.EQ: ("eq", "eq", "oeq"), B.NE: ("ne", "ne", "une")}
_BUILTIN_VARS = {"threadIdx": gpu.ThreadIdOp, "blockIdx": gpu.BlockIdOp, "blockDim": gpu.BlockDimOp,
                 "gridDim": gpu.GridDimOp}
_DIMS = {"x": gpu.DimensionEnum.X, "y": gpu.DimensionEnum.Y, "z": gpu.DimensionEnum.Z}
# A cooperative_groups thread block's dim3 queries: the builtins they stand for.
_BLOCK_QUERIES = {"group_index": gpu.BlockIdOp, "thread_index": gpu.ThreadIdOp, "dim_threads": gpu.BlockDimOp,
                  "group_dim": gpu.BlockDimOp}
_SHIFTS = (B.Shl, B.Shr)
_LOOPS = (K.FOR_STMT, K.WHILE_STMT, K.DO_STMT)
_CASTS = (K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR,
          K.CXX_CONST_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR)


def _math_table() -> dict[str, Callable[[list[SSAValue], CType], list[Operation]]]:
    """Math functions by name: C (`expf`, `exp`), CUDA's float overloads and fast intrinsics."""
    unary = {"exp": mathd.ExpOp, "exp2": mathd.Exp2Op, "expm1": mathd.ExpM1Op, "log": mathd.LogOp,
             "log2": mathd.Log2Op, "log10": mathd.Log10Op, "log1p": mathd.Log1pOp,
             "sqrt": mathd.SqrtOp, "rsqrt": mathd.RsqrtOp, "cbrt": mathd.CbrtOp, "sin": mathd.SinOp,
             "cos": mathd.CosOp, "tan": mathd.TanOp, "asin": mathd.AsinOp, "acos": mathd.AcosOp,
             "atan": mathd.AtanOp, "sinh": mathd.SinhOp, "cosh": mathd.CoshOp, "tanh": mathd.TanhOp,
             "asinh": mathd.AsinhOp, "acosh": mathd.AcoshOp, "atanh": mathd.AtanhOp,
             "erf": mathd.ErfOp, "fabs": mathd.AbsFOp, "floor": mathd.FloorOp, "ceil": mathd.CeilOp,
             "trunc": mathd.TruncOp, "round": mathd.RoundOp, "rint": mathd.RoundEvenOp}
    binary = {"pow": mathd.PowFOp, "atan2": mathd.Atan2Op, "copysign": mathd.CopySignOp,
              "fmax": arith.MaxnumfOp, "fmin": arith.MinnumfOp}  # C: a NaN operand yields the other one
    table: dict[str, Callable[[list[SSAValue], CType], list[Operation]]] = {}
    for name, op in unary.items():
        for spelling in (name, name + "f", "__" + name + "f"):
            table[spelling] = lambda a, t, op=op: [op(a[0])]
    for name, op in binary.items():
        for spelling in (name, name + "f", "__" + name + "f"):
            table[spelling] = lambda a, t, op=op: [op(a[0], a[1])]
    table["fma"] = table["fmaf"] = lambda a, t: [mathd.FmaOp(a[0], a[1], a[2])]
    table["__fdividef"] = lambda a, t: [arith.DivfOp(a[0], a[1])]
    # Round-to-nearest-even arithmetic (`__fadd_rn`, `__dmul_rn`, `__frsqrt_rn`): IEEE's default, so the
    # plain operation; the other rounding modes (_rz, _ru, _rd) are not modelled.
    rounded = {"add": arith.AddfOp, "sub": arith.SubfOp, "mul": arith.MulfOp, "div": arith.DivfOp}
    for name, op in rounded.items():
        for prefix in ("__f", "__d"):
            table[f"{prefix}{name}_rn"] = lambda a, t, op=op: [op(a[0], a[1])]
    table["__fsqrt_rn"] = table["__dsqrt_rn"] = lambda a, t: [mathd.SqrtOp(a[0])]
    table["__frsqrt_rn"] = lambda a, t: [mathd.RsqrtOp(a[0])]
    table["__fmaf_rn"] = table["__fma_rn"] = lambda a, t: [mathd.FmaOp(a[0], a[1], a[2])]
    table["abs"] = table["llabs"] = lambda a, t: [mathd.AbsIOp(a[0])]
    table["min"] = lambda a, t: [_int_or_float(arith.MinSIOp, arith.MinUIOp, arith.MinimumfOp)(t)(a[0], a[1])]
    table["max"] = lambda a, t: [_int_or_float(arith.MaxSIOp, arith.MaxUIOp, arith.MaximumfOp)(t)(a[0], a[1])]
    return table


_MATH = _math_table()


def _strip(cursor: ci.Cursor) -> ci.Cursor:
    """The expression under parentheses and implicit casts."""
    while cursor.kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR) and len(children(cursor)) == 1:
        cursor = children(cursor)[0]
    return cursor


# ---------------------------------------------------------------- the lowering
class KernelLowering:
    """Lowers one kernel (and the helpers it calls) into a `func.func` with the `gpu.kernel` attribute."""

    def __init__(self, shown: str, nulls: frozenset[str] = frozenset()):
        self.shown = shown
        self.nulls = nulls  # the pointer parameters the launch passes as nullptr
        self.block: Block = Block()
        self.env: dict[object, Value] = {}
        self.types: dict[object, CType] = {}
        self.frames: list[Frame] = []
        self.at: ci.Cursor | None = None  # the construct being lowered, for error locations
        self.prelude: list[Operation] = []  # allocations, placed at the top of the kernel
        self.globals: dict[object, Ptr] = {}  # file-scope `__shared__` arrays, allocated on first use
        self.cells: dict[object, Ptr] = {}  # `__shared__ float total;`: a one-element shared array
        self.shared_bytes: SSAValue | None = None  # the kernel argument for `extern __shared__`
        # `__constant__` arrays without an initialiser the kernel reads: (name, element type, count) of
        # each extra kernel argument, in order (the host fills them: `cudaMemcpyToSymbol`).
        self.constants: list[tuple[str, CType, int]] = []
        self.serial = 0  # numbers the synthetic flags of loops with `break`
        # Locals and parameters whose address is taken (`_warp(warp, &val)`): they live in a
        # one-element local buffer (a cell, as shared scalars do), so that pointers to them work.
        self.addressed: set[tuple[int, int]] = set()
        self.as_bytes: set[tuple[int, int]] = set()  # addressed locals whose cells are bytes

    # -------------------------------------------------------- helpers
    def where(self, cursor: ci.Cursor):
        return location(cursor, self.shown)

    def unsupported(self, what: str, cursor: ci.Cursor) -> Unsupported:
        return Unsupported(f"{what} is not supported by the CUDA front end", self.where(cursor))

    def _loc(self, cursor: ci.Cursor) -> FileLineColLoc:
        loc = self.where(cursor)
        return FileLineColLoc(StringAttr(loc.file), IntAttr(loc.line), IntAttr(loc.column))

    def emit(self, op: Operation, cursor: ci.Cursor) -> Operation:
        op.location = self._loc(cursor)
        self.block.add_op(op)
        return op

    def emit1(self, op: Operation, cursor: ci.Cursor) -> SSAValue:
        return self.emit(op, cursor).results[0]

    def ctype(self, t: ci.Type, cursor: ci.Cursor) -> CType:
        """The CType of `t`; an array, or a pointer to one, is a pointer to its scalar element (the
        Ptr value that holds it keeps the dimensions)."""
        canon = t.get_canonical()
        if canon.kind == ci.TypeKind.POINTER and _is_array(canon.get_pointee()):
            canon = canon.get_pointee()
        if _is_array(canon):
            while _is_array(canon):
                canon = canon.element_type.get_canonical()
            return CType("ptr", 64, False, self.ctype(canon, cursor))
        found = ct.from_clang(t)
        if found is None:
            raise self.unsupported(f"the type `{t.spelling}`", cursor)
        return found

    def constant(self, value: int | float, t: CType, cursor: ci.Cursor) -> SSAValue:
        if t.is_float:
            return self.emit1(arith.ConstantOp(FloatAttr(float(value), t.ir)), cursor)
        bits = t.bits
        v = int(value) & ((1 << bits) - 1)
        if bits > 1 and v >= 1 << (bits - 1):
            v -= 1 << bits
        return self.emit1(arith.ConstantOp(IntegerAttr(v, IntegerType(bits))), cursor)

    def index_const(self, value: int, cursor: ci.Cursor) -> SSAValue:
        return self.emit1(arith.ConstantOp(IntegerAttr(value, IndexType())), cursor)

    def to_index(self, v: SSAValue, t: CType, cursor: ci.Cursor) -> SSAValue:
        """An integer as an index; unsigned values narrower than 64 bits are zero-extended first."""
        if not t.is_int:
            raise self.unsupported("a non-integer index", cursor)
        if not t.signed and t.bits < 64:
            v = self.emit1(arith.ExtUIOp(v, IntegerType(64)), cursor)
        return self.emit1(arith.IndexCastOp(v, IndexType()), cursor)

    def scalar(self, v: Value, cursor: ci.Cursor) -> SSAValue:
        if isinstance(v, (Ptr, Choice)):
            raise self.unsupported("this use of a pointer value", cursor)
        if isinstance(v, Vec):
            raise self.unsupported(f"this use of a `{v.ctype.dtype}` vector value as a scalar", cursor)
        if isinstance(v, Packed):
            raise self.unsupported(f"using the bits of `{v.elem.dtype}` elements as a `{v.ctype.dtype}`", cursor)
        if isinstance(v, Address):
            raise self.unsupported("a shared-memory address (`__cvta_generic_to_shared`) used as a number", cursor)
        if isinstance(v, Undef):
            return self.constant(0, v.ctype, cursor)
        return v

    def vec(self, v: Value, t: CType, cursor: ci.Cursor) -> Vec:
        """`v` as a vector of type `t` (an uninitialised one is zeros)."""
        if isinstance(v, Vec):
            return v
        if isinstance(v, Undef) and t.kind == "vec":
            assert t.elem is not None
            return Vec(tuple(self.constant(0, t.elem, cursor) for _ in range(t.lanes)), t)
        if isinstance(v, Packed) and t.kind == "vec" and v.elem.width * len(v.lanes) == t.width:
            assert t.elem is not None  # a float4 read from bytes: its lanes, from their bits
            return Vec(tuple(self.repack(v.lanes, t.elem.ir, cursor)), t)
        raise self.unsupported(f"`{_text(cursor)}` as a vector", cursor)

    # -------------------------------------------------------- conversions
    def convert(self, v: Value, src: CType, dst: CType, cursor: ci.Cursor) -> Value:
        if src == dst or (isinstance(v, Address) and dst.is_int):  # an address stays one as any integer
            return v
        if src.kind == "ptr" and dst.kind == "bool" and isinstance(v, Ptr):  # `if (bias)`: null only if passed so
            return self.constant(0 if v.null else 1, ct.BOOL, cursor)
        if src.kind == "ptr" or dst.kind == "ptr":
            if src.kind == dst.kind == "ptr" and src.elem == dst.elem:
                return v
            if isinstance(v, Choice):  # each of the pointers it chooses between, converted
                return Choice(v.cond, self.convert(v.yes, src, dst, cursor), self.convert(v.no, src, dst, cursor))
            if src.kind == dst.kind == "ptr" and isinstance(v, Ptr) and src.elem is not None and \
                    dst.elem is not None and src.elem.scalar == dst.elem.scalar:
                # `reinterpret_cast<float4*>(p)`: the same buffer; offsets count scalars
                return Ptr(v.base, v.offset, dst, v.lead, v.null)
            if src.kind == dst.kind == "ptr" and isinstance(v, Ptr) and dst.elem is not None:
                # `void*`, or `reinterpret_cast<uint4*>(p)` of a float or half buffer: the same
                # buffer, whose elements keep their type; offsets count the buffer's elements
                return Ptr(v.base, v.offset, dst, v.lead, v.null)
            raise self.unsupported(f"a conversion between `{src.dtype if src.kind != 'ptr' else 'pointer'}` "
                                   "and a pointer of another type", cursor)
        if dst.kind == "void":
            return v
        if src.kind == "vec" or dst.kind == "vec":
            raise self.unsupported(f"a conversion from `{src.dtype}` to `{dst.dtype}` vectors", cursor)
        if isinstance(v, Undef):
            return Undef(dst)
        if src.kind == dst.kind and src.bits == dst.bits:
            return v  # only the signedness changes: the ops carry it
        rule = _CONVERSIONS.get((src.kind, dst.kind))
        if rule is None:
            raise self.unsupported(f"a conversion from {src.kind} to {dst.kind}", cursor)
        return rule(self, v, src, dst, cursor)

    def to_bool(self, v: Value, t: CType, cursor: ci.Cursor) -> SSAValue:
        return self.scalar(self.convert(v, t, ct.BOOL, cursor), cursor)

    # -------------------------------------------------------- kernels and helpers
    def lower_kernel(self, fn: ci.Cursor, name: str | None = None) -> func.FuncOp:
        """The kernel `fn` as `func.func @name`. Raises Unsupported at the construct it cannot lower."""
        self.at = fn
        try:
            return self._lower_kernel(fn, name)
        except LowercheckError:
            raise
        except Exception as err:  # a bug here must still end at the user's line, not in a traceback
            raise Unsupported(f"the CUDA front end failed here ({type(err).__name__}: {err}); please "
                              "report it", self.where(self.at)) from err

    def _lower_kernel(self, fn: ci.Cursor, name: str | None) -> func.FuncOp:
        self.addressed |= _addressed_locals(fn)
        self.as_bytes |= _reinterpreted_locals(fn)
        params = [c for c in children(fn) if c.kind == K.PARM_DECL]
        # one argument per parameter; a struct by value: one per value it bundles (`ctype.struct_leaves`)
        flat: list[tuple[ci.Cursor, str, tuple[str, ...], CType]] = []
        for p in params:
            if ct.is_bundle(p.type):  # the launcher passes it the same way (`HostReader.launch`)
                flat += [(p, leaf, path, t) for leaf, path, t in ct.struct_leaves(p.type, p.spelling) if t is not None]
                continue
            t = self.ctype(p.type, p)
            if t.kind == "ptr" and t.elem is not None and t.elem.kind == "void":
                raise self.unsupported(f"the kernel parameter `{p.spelling}` of type `{p.type.spelling}` (its "
                                       "element type is unknown)", p)
            flat.append((p, p.spelling, (), t))
        self.block = self.entry = Block(arg_types=[t.ir for _, _, _, t in flat])
        values: dict[tuple[str, ...], Value] = {}
        for (p, leaf, path, t), arg in zip(flat, self.block.args):
            arg.name_hint = leaf or None
            arg.location = self._loc(p)
            value = Ptr(arg, None, t, null=leaf in self.nulls) if t.kind == "ptr" else arg
            if path:
                values[(p.spelling, *path)] = value
            else:
                self.bind(p, value, t)
        for p in params:
            if decl_key(p) not in self.env:
                self.bind(p, self._received(p.type, (p.spelling,), values, p), OBJECT)
        body = self._body(fn)
        self.frames.append(Frame(fn, ct.VOID, f"return:{fn.spelling}"))
        self.seq(children(body))
        self.frames.pop()
        self.emit(func.ReturnOp(), fn)
        if self.prelude:
            self.block.insert_ops_before(self.prelude, self.block.first_op)
        op = func.FuncOp(name or fn.spelling, ([a.type for a in self.block.args], []), Region(self.block))
        op.location = self._loc(fn)
        op.attributes["gpu.kernel"] = UnitAttr()
        return op

    def _body(self, fn: ci.Cursor) -> ci.Cursor:
        definition = fn.get_definition() or fn
        body = next((c for c in children(definition) if c.kind == K.COMPOUND_STMT), None)
        if body is None:
            raise self.unsupported(f"calling `{fn.spelling}` without a definition in the file", fn)
        return body

    def bind(self, decl: ci.Cursor, v: Value, t: CType) -> None:
        self.env[decl_key(decl)] = v
        self.types[decl_key(decl)] = t

    def inline(self, call: ci.Cursor, callee: ci.Cursor, args: list[ci.Cursor],
               this: Obj | None = None) -> tuple[Value, CType]:
        """The call's body in place: parameters bound to the arguments (a reference to the caller's
        variable, read in and written back; an object by value to a copy, by reference to itself),
        `this` for a method."""
        definition = callee.get_definition()
        if definition is None:
            raise self.unsupported(f"calling `{callee.spelling}`, which has no definition in the file", call)
        if any(f.cursor == definition for f in self.frames):
            raise Unsupported(f"recursive call to `{callee.spelling}` (device functions are inlined)",
                              self.where(call), hint="rewrite the recursion as a loop")
        params = [c for c in children(definition) if c.kind == K.PARM_DECL]
        if len(params) != len(args):
            raise self.unsupported(f"calling `{callee.spelling}` with default arguments", call)
        bound: list[tuple[ci.Cursor, Value, CType]] = []
        written_back: list[tuple[ci.Cursor, object, CType]] = []  # (reference parameter, caller's place, type)
        for p, a in zip(params, args):
            ptype = p.type.get_canonical()
            referred = ptype.get_pointee() if ptype.kind in (ci.TypeKind.LVALUEREFERENCE,
                                                             ci.TypeKind.RVALUEREFERENCE) else None
            if _group_type(referred if referred is not None else ptype) is not None:  # `cg::thread_block& tb`
                bound.append((p, self.group(a), ct.VOID))
                continue
            if self.record_of(ptype) is not None:  # an object: by reference itself, by value a copy
                v, _ = self.expr(a)
                if not isinstance(v, Obj):
                    raise self.unsupported(f"passing `{_text(a)}` as a `{p.type.spelling}`", a)
                if referred is None or not referred.is_const_qualified():
                    v = v if referred is not None else self.copied(v, p.type, a)
                bound.append((p, v, OBJECT))
                continue
            if referred is None:
                v, t = self.expr(a)
                if isinstance(v, Obj):  # `St* s` given `&state`: the caller's object itself
                    bound.append((p, v, OBJECT))
                    continue
                pt = self.ctype(p.type, p)
                bound.append((p, self.convert(v, t, pt, a), pt))
                continue
            # A reference: the caller's variable, read in and (unless const) written back when the
            # call returns; references are to a thread's own variables, so no other path sees it between.
            pt = self.ctype(referred, p)
            if referred.is_const_qualified():
                v, t = self.expr(a)
            else:
                place = self.lvalue(a, call)
                v, t = self.read(place, call)
                written_back.append((p, place, pt))
            bound.append((p, self.convert(v, t, pt, a), pt))
        result_type = definition.result_type.get_canonical()
        if result_type.kind in (ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE):
            result_type = result_type.get_pointee()  # `const T& max(...)`: its value (never assigned through)
        if definition.kind == K.CONSTRUCTOR:
            ret = ct.VOID
        else:
            ret = OBJECT if self.record_of(result_type) is not None else self.ctype(result_type, call)
        frame = Frame(definition, ret, f"return:{definition.spelling}:{len(self.frames)}", this=this)
        outer_keys = set(self.env)
        self.addressed |= _addressed_locals(definition)
        self.as_bytes |= _reinterpreted_locals(definition)
        for p, v, pt in bound:
            if isinstance(v, (Group, Obj)):
                self.env[decl_key(p)] = v
                self.types[decl_key(p)] = pt
            elif decl_key(p) in self.addressed:
                self._new_cell(p, v, pt, call)
            else:
                self.bind(p, v, pt)
        if ret.kind != "void":
            self.env[frame.ret_key] = Undef(ret)
            self.types[frame.ret_key] = ret
        self.frames.append(frame)
        if definition.kind == K.CONSTRUCTOR:
            assert this is not None
            self._initialise_fields(this, definition, call)
        self.seq(children(self._body(definition)))
        self.frames.pop()
        for p, place, pt in written_back:
            key = decl_key(p)
            final = self.load(self.cells[key], call) if key in self.cells else self.env[key]
            self.write(place, final, pt, call)
        result = self.env.pop(frame.ret_key, None)
        for key in list(self.env):  # the helper's locals end with it
            if key not in outer_keys:
                del self.env[key]
        if ret.kind == "void":
            return Undef(ct.VOID), ct.VOID
        if ret is OBJECT:
            if not isinstance(result, Obj):
                raise self.unsupported(f"the object `{callee.spelling}` returns", call)
            return result, OBJECT
        if ret.kind == "vec":  # a helper returning a float4 or a pair of halves: its lanes
            return (result if isinstance(result, Packed) else self.vec(result, ret, call)), ret
        return self.scalar(result, call) if not isinstance(result, (Ptr, Address)) else result, ret

    # -------------------------------------------------------- objects (structs and classes)
    def record_of(self, t: ci.Type) -> ci.Type | None:
        """The canonical record type of a struct or class object (through a reference), None for
        anything else: scalars, pointers, CUDA's vector types, cooperative groups."""
        canon = t.get_canonical()
        if canon.kind in (ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE):
            canon = canon.get_pointee().get_canonical()
        if canon.kind != ci.TypeKind.RECORD or ct.from_clang(canon) is not None or _group_type(canon) is not None:
            return None
        return canon

    def new_object(self, t: ci.Type, cursor: ci.Cursor, as_bytes: bool = False) -> Obj:
        """Cells for each field of a `t` object (allocated with the kernel's other locals); `as_bytes`:
        one buffer of its bytes, each field a view of its own at its offset (clang's layout)."""
        record = self.record_of(t)
        assert record is not None
        if as_bytes:
            return self._object_in_bytes(record, cursor)
        fields: dict[str, Ptr | Obj] = {}
        decls = {f.spelling: f for f in record.get_fields()}
        for f in record.get_fields():
            ft = f.type.get_canonical()
            if self.record_of(ft) is not None:
                fields[f.spelling] = self.new_object(ft, cursor)
                continue
            shape: list[int] = []
            while _is_array(ft):
                if ft.kind != ci.TypeKind.CONSTANTARRAY:
                    raise self.unsupported(f"the member `{f.spelling}` of `{record.spelling}`", cursor)
                shape.append(ft.get_array_size())
                ft = ft.element_type.get_canonical()
            if self.record_of(ft) is not None:
                raise self.unsupported(f"an array of objects (`{f.spelling}` of `{record.spelling}`)", cursor)
            if ft.kind == ci.TypeKind.POINTER and ct.from_clang(ft) is None and not shape:
                fields[f.spelling] = Fixed(None, ct.VOID)  # a pointer to pointers: not modelled
                continue
            elem = self.ctype(ft, cursor)
            if elem.kind == "ptr" and not shape:  # a pointer member: a value, set where it is copied in
                fields[f.spelling] = Fixed(Undef(elem), elem)
                continue
            op = memref.AllocaOp.get(elem.ir, shape=shape or [elem.lanes], memory_space=NoneAttr())
            op.location = self._loc(cursor)
            op.memref.name_hint = f.spelling or None
            self.prelude.append(op)
            fields[f.spelling] = Ptr(op.memref, None, CType("ptr", 64, False, elem))
        return Obj(fields, record.spelling, decls)

    def _object_in_bytes(self, record: ci.Type, cursor: ci.Cursor) -> Obj:
        """An object whose address is reinterpreted (`IdxReduceResult res; (int64_t*)&res`): its
        bytes, each scalar or vector field a view of them at clang's offset."""
        size = record.get_size()
        op = memref.AllocaOp.get(IntegerType(8), shape=[size], memory_space=NoneAttr())
        op.location = self._loc(cursor)
        op.memref.name_hint = cursor.spelling or None
        self.prelude.append(op)
        memory = Ptr(op.memref, None, CType("ptr", 64, False, ct.CType("int", 8, False)))
        fields: dict[str, Ptr | Obj | Fixed] = {}
        for f in record.get_fields():
            ft = ct.from_clang(f.type)
            if ft is None or ft.kind == "ptr" or f.is_bitfield():
                raise self.unsupported(f"the member `{f.spelling}` of `{record.spelling}` in an object viewed "
                                       "as another type", cursor)
            offset = record.get_offset(f.spelling) // 8
            fields[f.spelling] = Ptr(op.memref, self.index_const(offset, cursor) if offset else None,
                                     CType("ptr", 64, False, ft))
        return Obj(fields, record.spelling, {f.spelling: f for f in record.get_fields()}, memory)

    def _received(self, t: ci.Type, path: tuple[str, ...], values: dict[tuple[str, ...], Value],
                  p: ci.Cursor) -> Obj:
        """A struct the kernel receives by value: each member the argument that carries it."""
        record = t.get_canonical()
        fields: dict[str, Ptr | Obj | Fixed] = {}
        for f in record.get_fields():
            here = (*path, f.spelling)
            ft = f.type.get_canonical()
            if ct.struct_of_members(ft):  # nested as `ctype.struct_leaves` flattens it
                fields[f.spelling] = self._received(ft, here, values, p)
            elif ct.pointer_rows(ft) is not None and isinstance(values.get(here), Ptr) \
                    and isinstance(values.get((*here, ct.ROWS)), Ptr):
                rows = PointerRows(values[here], values[(*here, ct.ROWS)])  # type: ignore[arg-type] # checked above
                fields[f.spelling] = Fixed(rows, ct.VOID)
            else:
                fields[f.spelling] = Fixed(values.get(here), ct.from_clang(ft) or ct.VOID)
        return Obj(fields, record.spelling, {f.spelling: f for f in record.get_fields()})

    def field_place(self, e: ci.Cursor) -> Ptr | Obj | Fixed | None:
        """The cell (or nested object) of the field `e` names: `obj.f`, `this->f`, `f` in a method,
        `obj.inner.f`, `make().f`; None when `e` is no member of a local object (`threadIdx.x`)."""
        kids = [c for c in children(e) if c.kind.is_expression()]
        if kids and kids[0].type.get_canonical().kind == ci.TypeKind.POINTER \
                and _strip(kids[0]).kind != K.CXX_THIS_EXPR and self.record_of(kids[0].type.get_canonical().get_pointee()) is not None:
            p, _ = self.expr(kids[0])  # `rows->count`: the member of the struct `rows` points to
            if isinstance(p, Obj):  # `state->ctr` of `curand_init(..., &state)`: a local object
                obj: Obj | None = p
            elif not isinstance(p, Ptr):
                raise self.unsupported(f"the member access `{_text(e)}`", e)
            else:
                obj = self.in_memory(p, kids[0].type.get_canonical().get_pointee(), e)
        else:
            obj = self._object_of(_strip(kids[0])) if kids else self.frames[-1].this
        if obj is None:
            return None
        place = obj.fields.get(e.referenced.spelling)
        if place is None:
            raise self.unsupported(f"the member `{_text(e)}` of `{obj.record}`", e)
        return place

    def _object_of(self, base: ci.Cursor) -> Obj | None:
        """The local object an expression names, without evaluating anything else."""
        if base.kind == K.CXX_THIS_EXPR:
            return self.frames[-1].this
        if base.kind == K.UNARY_OPERATOR and unary_operator(base, self.shown) == "*" \
                and _strip(children(base)[0]).kind == K.CXX_THIS_EXPR:
            return self.frames[-1].this  # `(*this).f`
        if base.kind == K.PAREN_EXPR:
            return self._object_of(_strip(children(base)[0]))
        if base.kind in (K.ARRAY_SUBSCRIPT_EXPR, K.UNARY_OPERATOR) and self.record_of(base.type) is not None:
            value, _ = self.expr(base)  # `rows[i].count`, `(*rows).count`: a struct in memory
            return value if isinstance(value, Obj) else None
        if base.kind == K.DECL_REF_EXPR and base.referenced is not None:
            value = self.env.get(decl_key(base.referenced))
            return value if isinstance(value, Obj) else None
        if base.kind == K.MEMBER_REF_EXPR and base.referenced is not None and base.referenced.kind == K.FIELD_DECL:
            inner = self.field_place(base)
            return inner if isinstance(inner, Obj) else None
        if base.kind == K.CALL_EXPR and self.record_of(base.type) is not None and not _is_group_method(base):
            value, _ = self.expr(base)
            return value if isinstance(value, Obj) else None
        return None

    def receiver(self, call: ci.Cursor) -> Obj:
        """The object a method is called on: `obj.m()`, `ptr->m()` of an object, `m()` in a method."""
        member = next((c for c in children(call) if c.kind == K.MEMBER_REF_EXPR), None)
        kids = [c for c in children(member) if c.kind.is_expression()] if member is not None else []
        if member is None and call.referenced is not None and call.referenced.spelling.startswith("operator"):
            kids = [c for c in children(call) if c.kind.is_expression()][:1]  # `a[k]`, `a + b`: `a`
        if not kids or _strip(kids[0]).kind == K.CXX_THIS_EXPR:
            this = self.frames[-1].this
            if this is None:
                raise self.unsupported(f"the method call `{_text(call)}`", call)
            return this
        value = self._object_of(_strip(kids[0]))
        if value is None:
            raise self.unsupported(f"the method call `{_text(call)}` (on something other than a local object)", call)
        return value

    def _raw_bits(self, e: ci.Cursor, obj: Obj) -> tuple[Value, CType]:
        """A bit-pattern struct converted to the type it holds (`__half2(__half2_raw{0xFC00, 0xFC00})`:
        the shim's `operator __half2`): one field per lane, each as wide as a lane, bitcast."""
        rt = self.ctype(e.type, e)
        fields = [p for p in obj.fields.values() if isinstance(p, Ptr)]
        if len(fields) != rt.lanes or len(fields) != len(obj.fields) or any(
                p.ctype.elem is None or p.ctype.elem.width != rt.scalar.width for p in fields):
            raise self.unsupported(f"converting a `{obj.record}` to `{e.type.spelling}`", e)
        lanes = tuple(self.emit1(arith.BitcastOp(self.scalar(self.load(p, e), e), rt.scalar.ir), e)
                      for p in fields)
        return (Vec(lanes, rt) if rt.kind == "vec" else lanes[0]), rt

    def construct(self, obj: Obj, call: ci.Cursor, ctor: ci.Cursor, args: list[ci.Cursor]) -> None:
        """Run a constructor on `obj`: an implicit copy or move copies the argument's fields; a
        defined one runs its member initialisers (or the fields' defaults) and its body."""
        if ctor.get_definition() is None or ctor.is_copy_constructor() or ctor.is_move_constructor():
            if len(args) == 1:
                source, _ = self.expr(args[0])
                if isinstance(source, Obj):
                    self.copy_object(obj, source, call)
                    return
            if not args:  # an implicit default constructor: the fields' default initialisers only
                self._initialise_fields(obj, None, call)
                return
            if ctor.get_definition() is None:
                raise self.unsupported(f"constructing `{obj.record}` with `{ctor.spelling}`", call)
        self.inline(call, ctor, args, this=obj)

    def _object_decl(self, var: ci.Cursor) -> None:
        """`T x;`, `T x(a, b);`, `T x = f();`, `auto x = obj;`: the object gets its cells, then its
        constructor or a copy of the object the initialiser makes."""
        init = [c for c in children(var) if c.kind.is_expression()]
        value = None
        if init:
            c = _strip(init[-1])
            if c.kind == K.INIT_LIST_EXPR:  # `Pair p{Acc(1.0f), 2}`: the fields in order, the rest their defaults
                obj = self.new_object(var.type, var, decl_key(var) in self.as_bytes)
                self._initialise_fields(obj, None, var)
                for (name, place), item in zip(obj.fields.items(), children(c)):
                    v, t = self.expr(item)
                    if isinstance(place, Obj) and isinstance(v, Obj):
                        self.copy_object(place, v, item)
                    elif isinstance(place, Ptr) and not isinstance(v, Obj):
                        self.write(place, v, t, item)
                    else:
                        raise self.unsupported(f"initialising the member `{name}` of `{obj.record}` with `{_text(item)}`", item)
                self.env[decl_key(var)], self.types[decl_key(var)] = obj, OBJECT
                return
            if c.kind == K.CALL_EXPR and c.referenced is not None and c.referenced.kind == K.CONSTRUCTOR:
                obj = self.new_object(var.type, var, decl_key(var) in self.as_bytes)
                self.construct(obj, c, c.referenced, list(c.get_arguments()))
                self.env[decl_key(var)], self.types[decl_key(var)] = obj, OBJECT
                return
            value, _ = self.expr(init[-1])
        if isinstance(value, Obj) and init and _strip(init[-1]).kind == K.CALL_EXPR \
                and decl_key(var) not in self.as_bytes:
            self.env[decl_key(var)], self.types[decl_key(var)] = value, OBJECT  # a returned object: its own
            return
        obj = self.new_object(var.type, var, decl_key(var) in self.as_bytes)
        if isinstance(value, Obj):
            self.copy_object(obj, value, var)
        elif value is not None:
            raise self.unsupported(f"initialising the `{var.type.spelling}` object `{var.spelling}`", var)
        else:
            self._initialise_fields(obj, None, var)
        self.env[decl_key(var)], self.types[decl_key(var)] = obj, OBJECT

    def _initialise_fields(self, obj: Obj, ctor: ci.Cursor | None, e: ci.Cursor) -> None:
        """A constructor's member initialisers (`: scale(s), count(0)`), else each field's default
        (`float scale = 1.0f;`), in declaration order; others keep no value (as in C++)."""
        given: dict[str, ci.Cursor] = {}
        if ctor is not None:
            kids = children(ctor)
            for k, c in enumerate(kids[:-1]):
                if c.kind == K.MEMBER_REF and kids[k + 1].kind.is_expression():
                    given[c.spelling] = kids[k + 1]
        for name, place in obj.fields.items():
            expr = given.get(name)
            if expr is None and name in obj.decls:
                expr = next((c for c in children(obj.decls[name]) if c.kind.is_expression()), None)
            if expr is None or isinstance(place, (Obj, Fixed)):
                continue
            v, t = self.expr(expr)
            self.write(place, v, t, expr)

    def in_memory(self, p: Ptr, t: ci.Type, e: ci.Cursor) -> Obj:
        """The struct of type `t` at `p` (a buffer of its one scalar type: `ctype.record_layout`)
        as an object whose member cells are that memory: reading a member loads it, writing one
        stores it, copying the object copies them all."""
        layout = ct.record_layout(t)
        record = t.get_canonical()
        if layout is None:
            raise self.unsupported(f"a `{t.spelling}` in memory (its members are not all of one scalar type)", e)
        if _base_elem(p) != layout.elem.ir or p.ctype.elem is None or p.ctype.elem.ir != layout.elem.ir:
            raise self.unsupported(f"a `{t.spelling}` over a buffer of `{_base_elem(p)}`", e)
        fields: dict[str, Ptr | Obj] = {}
        for f in record.get_fields():
            at = self.index_const(layout.offsets[f.spelling], e)
            offset = self.emit1(arith.AddiOp(p.offset, at), e) if p.offset is not None else at
            fields[f.spelling] = Ptr(p.base, offset, CType("ptr", 64, False, self.ctype(_scalar_of(f.type), e)),
                                     p.lead)
        return Obj(fields, record.spelling, {f.spelling: f for f in record.get_fields()})

    def copied(self, source: Obj, t: ci.Type, e: ci.Cursor) -> Obj:
        obj = self.new_object(t, e)
        self.copy_object(obj, source, e)
        return obj

    def copy_object(self, target: Obj, source: Obj, e: ci.Cursor) -> None:
        """Field by field (arrays element by element), as a trivial copy does."""
        for name, place in target.fields.items():
            other = source.fields.get(name)
            if isinstance(place, Obj) and isinstance(other, Obj):
                self.copy_object(place, other, e)
                continue
            if isinstance(other, Fixed) and isinstance(place, Fixed):
                target.fields[name] = other  # a pointer (or a received value): the copy holds the same
                continue
            if isinstance(other, Fixed) and isinstance(place, Ptr) and other.value is not None:
                self.write(place, other.value, other.ctype, e)
                continue
            if not isinstance(place, Ptr) or not isinstance(other, Ptr):
                raise self.unsupported(f"copying a `{source.record}` into a `{target.record}`", e)
            if self.punned(place) or self.punned(other):  # a field of an object in bytes
                self.store(place, self.load(other, e), e)
                continue
            decl = target.decls.get(name) or source.decls.get(name)
            count = _elements_of(decl.type) if decl is not None else 1
            for k in range(count):
                v = self.emit1(memref.LoadOp.get(other.base, self._member_scalar(other, k, e)), e)
                self.emit(memref.StoreOp.get(v, place.base, self._member_scalar(place, k, e)), e)

    def _member_scalar(self, place: Ptr, k: int, e: ci.Cursor) -> list[SSAValue]:
        """The indices of a member's k-th scalar: in a thread's cell (its own array, of any rank),
        or in memory (k past the member's offset)."""
        if place.offset is None:
            shape = [d.data for d in place.base.type.shape.data]  # type: ignore[attr-defined]
            index = []
            for d in reversed(shape):
                index.append(k % d)
                k //= d
            return [self.index_const(i, e) for i in reversed(index)]
        at = self.emit1(arith.AddiOp(place.offset, self.index_const(k, e)), e) if k else place.offset
        return [*place.lead, at]

    # -------------------------------------------------------- statements
    def seq(self, stmts: list[ci.Cursor]) -> None:
        """Lower a statement sequence; an early exit takes the rest of the sequence into its branches."""
        for k, s in enumerate(stmts):
            rest = stmts[k + 1:]
            if s.kind == K.COMPOUND_STMT and self._exits(s):
                return self.seq(children(s) + rest)
            if s.kind == K.IF_STMT and self._exits(s):
                return self._if(s, rest)
            if s.kind == K.RETURN_STMT:
                return self._return(s)
            if s.kind == K.CONTINUE_STMT:
                if not self.frames[-1].loop_depth:
                    raise self.unsupported("`continue` outside a loop", s)
                return None
            if s.kind == K.BREAK_STMT:
                return self._break(s)
            if s.kind in _LOOPS and _returns(s):
                # a `return` inside the loop stopped it: what follows runs only if none did
                self.stmt(s)
                returned = self.scalar(self.env[self.frames[-1].returned_key], s)
                return self._if_value(returned, [], rest, s)
            self.stmt(s)
        return None

    def _exits(self, s: ci.Cursor, in_loop: bool = False) -> bool:
        """Whether `s` may return, or `continue`/`break` the loop around it."""
        if s.kind == K.RETURN_STMT or (s.kind in (K.CONTINUE_STMT, K.BREAK_STMT) and not in_loop):
            return True
        if s.kind == K.SWITCH_STMT:
            return False  # rejected when lowered
        nested = in_loop or s.kind in _LOOPS
        return any(self._exits(c, nested) for c in children(s))

    def _break(self, s: ci.Cursor) -> None:
        frame = self.frames[-1]
        if not frame.breaks or frame.breaks[-1] is None:
            raise self.unsupported("`break` outside a loop", s)
        self.env[frame.breaks[-1]] = self.constant(1, ct.BOOL, s)

    def _return(self, s: ci.Cursor) -> None:
        frame = self.frames[-1]
        if frame.loop_depth:  # the loops around stop on this flag (see _while)
            self.env[frame.returned_key] = self.constant(1, ct.BOOL, s)
        kids = children(s)
        if kids and frame.returns is OBJECT:
            v, _ = self.expr(kids[0])
            self.env[frame.ret_key] = v  # the callee's object: its cells outlive the call
        elif kids and frame.returns.kind != "void":
            v, t = self.expr(kids[0])
            self.env[frame.ret_key] = self.convert(v, t, frame.returns, s)
        elif kids:
            self.expr(kids[0])

    def stmt(self, s: ci.Cursor) -> None:
        self.at = s
        handler = _STATEMENTS.get(s.kind)
        if handler is not None:
            handler(self, s)
        elif s.kind.is_expression():
            self.expr(s)
        else:
            name = _STATEMENT_NAMES.get(s.kind, s.kind.name.lower())
            raise self.unsupported(f"the statement {name}", s)

    def _compound(self, s: ci.Cursor) -> None:
        self.seq(children(s))

    def _asm(self, s: ci.Cursor) -> None:
        """Inline PTX that moves memory (`ptx.py`): each load or store through the address operand,
        as the C fallback would make it; a predicated one under `scf.if`."""
        asm = ptx.statement(s)
        try:
            moves = ptx.parse(asm)
        except ptx.NotModelled as why:
            raise self.unsupported(f"{why} in inline assembly", s) from None
        for move in moves:
            self._ptx_move(move, asm, s)

    def _ptx_move(self, move: ptx.Move, asm: ptx.Asm, s: ci.Cursor) -> None:
        if max(move.registers + (move.address,) + ((move.predicate,) if move.predicate is not None else ())) \
                >= len(asm.operands) or (move.kind == "load" and max(move.registers) >= asm.outputs):
            raise self.unsupported("an inline-assembly operand lowercheck cannot match", s)
        address, at = self.expr(asm.operands[move.address])
        if isinstance(address, Address):  # `[%1]` with %1 = __cvta_generic_to_shared(p): p itself
            address, at = address.ptr, address.ptr.ctype
        if not isinstance(address, Ptr):
            raise self.unsupported("a PTX address that is not a pointer to a buffer", s)
        register = CType("int", move.width, False)
        # `ld.v4.u32 {...}`: one access of the registers together (a uint4), so that the buffer may
        # be of any elements the four span (halves, floats, 64-bit integers)
        whole = CType("vec", len(move.registers), elem=register) if len(move.registers) > 1 else register
        view = self.convert(address, at, CType("ptr", 64, False, whole), s)
        assert isinstance(view, Ptr)
        enabled = None
        if move.predicate is not None:
            enabled = self.to_bool(*self.expr(asm.operands[move.predicate]), s)
        if move.kind == "load":
            if enabled is not None and set(move.defaults) != set(move.registers):
                raise self.unsupported("a predicated PTX load whose registers have no value when it is off", s)

            def loaded() -> list[SSAValue]:
                value = self.load(view, s)
                return list(self.vec(value, whole, s).lanes) if whole.kind == "vec" else [self.scalar(value, s)]
            values = self._guarded(enabled, loaded,
                                   lambda: [self.constant(move.defaults[r], register, s) for r in move.registers], s)
            for r, value in zip(move.registers, values, strict=True):
                self.write(self.lvalue(asm.operands[r], s), value, register, s)
            return
        values = [self.scalar(self.convert(*self.expr(asm.operands[r]), register, s), s) for r in move.registers]

        def stores() -> list[SSAValue]:
            self.store(view, Vec(tuple(values), whole) if whole.kind == "vec" else values[0], s)
            return []
        self._guarded(enabled, stores, list, s)

    def _guarded(self, enabled: SSAValue | None, then, otherwise, s: ci.Cursor) -> list[SSAValue]:
        """`then()` when `enabled` (None: always), else `otherwise()`, as one `scf.if` whose
        results are the values either gives."""
        if enabled is None:
            return then()
        saved = self.block
        blocks = []
        for make in (then, otherwise):
            self.block = Block()
            values = make()
            self.block.add_op(self._at(scf.YieldOp(*values), s))
            blocks.append((self.block, values))
        self.block = saved
        op = scf.IfOp(enabled, [v.type for v in blocks[0][1]], [blocks[0][0]], [blocks[1][0]])
        self.emit(op, s)
        return list(op.results)

    def _attributed(self, s: ci.Cursor) -> None:
        """`#pragma unroll` and `[[likely]]` wrap a statement; they change no result."""
        kids = [c for c in children(s) if c.kind.is_statement() or c.kind.is_expression()]
        if len(kids) != 1:
            raise self.unsupported("this statement", s)
        self.stmt(kids[0])

    def _decl(self, s: ci.Cursor) -> None:
        for var in children(s):
            if var.kind in (K.TYPE_ALIAS_DECL, K.TYPEDEF_DECL, K.STRUCT_DECL, K.ENUM_DECL):
                continue  # `using T2 = __half2;`: a name for a type, no value
            if var.kind != K.VAR_DECL:
                raise self.unsupported(f"the declaration `{var.kind.name.lower()}`", var)
            if _is_shared(var):
                self.shared_decl(var)
                continue
            if _is_array(var.type.get_canonical()):
                self._local_array(var)
                continue
            group = _group_type(var.type)
            if group is not None:  # `cg::thread_block b = cg::this_thread_block();`: no value at run time
                self.env[decl_key(var)] = group
                continue
            if self.record_of(var.type) is not None:  # `Params<T, 8> params(max);`: a struct object
                self._object_decl(var)
                continue
            t = self.ctype(var.type, var)
            init = [c for c in children(var) if c.kind.is_expression()]
            if decl_key(var) in self.addressed and t.kind != "ptr":  # `float v; f(&v);`: in memory
                value = self.convert(*self.expr(init[-1]), t, var) if init else None
                self._new_cell(var, value, t, var)
            elif init:
                v, vt = self.expr(init[-1])
                self.bind(var, self.convert(v, vt, t, var), t)
            else:
                self.bind(var, Undef(t), t)

    def shared_decl(self, var: ci.Cursor) -> Ptr:
        """A `__shared__` array is bound like a pointer; a shared scalar is a cell that every read and
        write goes through (memref<1xT, 3>)."""
        key = decl_key(var)
        if _is_array(var.type.get_canonical()):
            p = self.allocate(var, shared=True)
            self.bind(var, p, p.ctype)
            return p
        if key not in self.cells:
            self.cells[key] = self.allocate(var, shared=True, scalar=True)
        return self.cells[key]

    def _new_cell(self, var: ci.Cursor, value: Value | None, t: CType, e: ci.Cursor) -> None:
        """A local whose address is taken: a one-element local buffer holding `value`."""
        if decl_key(var) in self.as_bytes and t.width % 8 == 0:  # viewed as other types: bytes
            op = memref.AllocaOp.get(IntegerType(8), shape=[t.width // 8], memory_space=NoneAttr())
            op.location = self._loc(var)
            op.memref.name_hint = var.spelling or None
            self.prelude.append(op)
            cell = Ptr(op.memref, None, CType("ptr", 64, False, t))
        else:
            cell = self.allocate(var, shared=False, scalar=True, scalar_type=t)
        self.cells[decl_key(var)] = cell
        self.env.pop(decl_key(var), None)
        if value is not None and not isinstance(value, Undef):
            self.store(cell, self.scalar(value, e) if not isinstance(value, Vec) else value, e)

    def allocate(self, var: ci.Cursor, shared: bool, scalar: bool = False, scalar_type: CType | None = None) -> Ptr:
        """`memref.alloca` for an array (`__shared__`: memory space 3, one per block; a local array:
        per thread), at the top of the kernel. `extern __shared__ T s[]` is sized by the launch's
        dynamic shared bytes, which the kernel receives as its last argument."""
        t = scalar_type or self.ctype(var.type, var)  # a reference parameter's cell: the referred type
        if scalar:
            t = CType("ptr", 64, False, t)
        assert t.elem is not None
        shape: list[int] = [t.elem.lanes] if scalar else []  # a vector's cell: one element per lane
        canon = var.type.get_canonical()
        while _is_array(canon):
            if canon.kind == ci.TypeKind.CONSTANTARRAY:
                shape.append(canon.get_array_size())
            elif canon.kind == ci.TypeKind.INCOMPLETEARRAY and shared and not shape:
                shape.append(DYNAMIC_INDEX)
            else:
                raise self.unsupported(f"the array type `{var.type.spelling}`", var)
            canon = canon.element_type.get_canonical()
        if not scalar and t.elem.kind == "vec" and shape and shape[-1] != DYNAMIC_INDEX:
            shape[-1] *= t.elem.lanes  # `half2 a[8]`: 16 halves, as its subscripts address them (`elements_per`)
        space = IntegerAttr(3, IntegerType(64)) if shared else NoneAttr()
        dynamic: list[SSAValue] = []
        if DYNAMIC_INDEX in shape:
            dynamic.append(self._dynamic_elements(t.elem, var))
        op = memref.AllocaOp.get(t.elem.ir, shape=shape, dynamic_sizes=dynamic, memory_space=space)
        op.location = self._loc(var)
        op.memref.name_hint = var.spelling or None
        self.prelude.append(op)
        return Ptr(op.memref, None, t)

    def _dynamic_elements(self, elem: CType, var: ci.Cursor) -> SSAValue:
        """%n = dynamic shared bytes / sizeof(T), as an index (ops placed in the prelude)."""
        if self.shared_bytes is None:
            self.shared_bytes = self.entry.insert_arg(IntegerType(64), len(self.entry.args))
            self.shared_bytes.name_hint = "dynamic_shared_bytes"
            self.shared_bytes.location = self._loc(var)
        size = arith.ConstantOp(IntegerAttr(max(elem.bits // 8, 1), IntegerType(64)))
        count = arith.DivUIOp(self.shared_bytes, size.result)
        index = arith.IndexCastOp(count.result, IndexType())
        for op in (size, count, index):
            op.location = self._loc(var)
            self.prelude.append(op)
        return index.result

    def _local_array(self, var: ci.Cursor) -> None:
        """`T a[N]` (per thread); `= {v0, v1}` stores its values and zero-fills the rest, as C."""
        canon = var.type.get_canonical()
        if canon.kind == ci.TypeKind.CONSTANTARRAY and canon.element_type.get_canonical().kind == ci.TypeKind.POINTER:
            pointer = ct.from_clang(canon.element_type)
            if pointer is None or any(c.kind == K.INIT_LIST_EXPR for c in children(var)):
                raise self.unsupported(f"the array of pointers `{var.spelling}`", var)
            op = memref.AllocaOp.get(IntegerType(64), shape=[canon.get_array_size()], memory_space=NoneAttr())
            op.location = self._loc(var)
            op.memref.name_hint = var.spelling or None
            self.prelude.append(op)
            self.bind(var, PointerTable(op.memref, pointer), pointer)
            return
        p = self.allocate(var, shared=False)
        t = self.ctype(var.type, var)
        self.bind(var, p, t)
        init = next((c for c in children(var) if c.kind == K.INIT_LIST_EXPR), None)
        if init is None:
            return
        assert t.elem is not None
        if p.rank != 1:
            raise self.unsupported("initialising a multi-dimensional local array", var)
        values = children(init)
        for k in range(p.base.type.shape.data[0].data):  # type: ignore[attr-defined] # a local array is a static memref
            if k < len(values):
                v, vt = self.expr(values[k])
                v = self.scalar(self.convert(v, vt, t.elem, values[k]), values[k])
            else:
                v = self.constant(0, t.elem, init)
            self.emit(memref.StoreOp.get(v, p.base, [self.index_const(k, init)]), init)

    def _branch(self, stmts: list[ci.Cursor], outer: dict[object, Value]) -> tuple[Block, dict[object, Value]]:
        saved = self.block
        self.block, self.env = Block(), dict(outer)
        self.seq(stmts)
        block, env = self.block, self.env
        self.block = saved
        return block, env

    def _if(self, s: ci.Cursor, rest: list[ci.Cursor] | None = None) -> None:
        kids = children(s)
        if len(kids) not in (2, 3) or not kids[0].kind.is_expression():
            raise self.unsupported("an `if` with an initializer or a condition variable", s)
        then_stmts = [kids[1]] + (rest or [])
        else_stmts = ([kids[2]] if len(kids) == 3 else []) + (rest or [])
        known = evaluate(kids[0])
        if isinstance(known, int):  # `if (total_warps != 1)` of a template's value: as the compiler
            self.seq(then_stmts if known else else_stmts)  # does, the dead branch is never lowered
            return
        cond = self.to_bool(*self.expr(kids[0]), kids[0])
        self._if_value(cond, then_stmts, else_stmts, s)

    def _if_value(self, cond: SSAValue, then_stmts: list[ci.Cursor], else_stmts: list[ci.Cursor],
                  s: ci.Cursor) -> None:
        """`scf.if cond` over two statement lists, yielding the variables either assigns."""
        if not then_stmts and not else_stmts:
            return
        outer = self.env
        then_block, then_env = self._branch(then_stmts, outer)
        else_block, else_env = self._branch(else_stmts, outer)
        keys = self._changed(outer, [then_env, else_env], s)
        then_vals = self._yield_values(then_block, then_env, keys, s)
        else_vals = self._yield_values(else_block, else_env, keys, s)
        then_block.add_op(self._at(scf.YieldOp(*then_vals), s))
        regions_else = None
        if keys or else_block.ops:
            else_block.add_op(self._at(scf.YieldOp(*else_vals), s))
            regions_else = [else_block]
        op = scf.IfOp(cond, [v.type for v in then_vals], [then_block], regions_else)
        self.emit(op, s)
        self.env = dict(outer)
        self._bind_flat(keys, list(op.results))

    def _at(self, op: Operation, cursor: ci.Cursor) -> Operation:
        op.location = self._loc(cursor)
        return op

    def _changed(self, outer: dict[object, Value], envs: list[dict[object, Value]],
                 cursor: ci.Cursor) -> list[object]:
        keys = []
        for key, before in outer.items():
            if any(env.get(key, before) is not before for env in envs):
                if isinstance(before, Ptr) or any(isinstance(env.get(key), Ptr) for env in envs):
                    self._same_buffer([before, *(env.get(key, before) for env in envs)], cursor)
                keys.append(key)
        return keys

    def _same_buffer(self, values: list[Value], cursor: ci.Cursor) -> None:
        """A pointer variable assigned under control flow (`if (...) vals += offset;`) is carried as
        its offset: every path must leave it in the same buffer, read as the same type."""
        first = values[0]
        if not all(isinstance(v, Ptr) and isinstance(first, Ptr) and v.base is first.base and v.ctype == first.ctype
                   and v.lead == first.lead for v in values):
            raise self.unsupported("a pointer variable that points into different buffers on different paths", cursor)

    def _yield_values(self, block: Block, env: dict[object, Value], keys: list[object],
                      cursor: ci.Cursor) -> list[SSAValue]:
        """The values of `keys` in `env`, flat: a vector variable gives one value per lane."""
        saved, self.block = self.block, block
        values: list[SSAValue] = []
        for k in keys:
            t = self.types.get(k)
            if t is not None and t.kind == "vec":
                values.extend(self.vec(env[k], t, cursor).lanes)
            elif isinstance(env[k], Ptr):  # a pointer variable: its offset into its buffer
                values.append(env[k].offset if env[k].offset is not None else self.index_const(0, cursor))
            elif isinstance(env[k], Undef):
                values.append(self.constant(0, env[k].ctype, cursor))
            else:
                values.append(self.scalar(env[k], cursor))
        self.block = saved
        return values

    def _flat_types(self, keys: list[object]) -> list[Attribute]:
        """The IR types of `keys`' values, flat (as _yield_values gives them)."""
        types: list[Attribute] = []
        for k in keys:
            t = self.types.get(k)
            if t is not None and t.kind == "vec":
                assert t.elem is not None
                types.extend([t.elem.ir] * t.lanes)
            elif isinstance(self.env[k], Ptr):
                types.append(IndexType())
            else:
                v = self.env[k]
                types.append(v.ctype.ir if isinstance(v, Undef) else v.type)  # type: ignore[union-attr] # an env entry that is not Undef is an SSA value
        return types

    def _bind_flat(self, keys: list[object], values: list[SSAValue]) -> None:
        """Bind `keys` to flat values (a vector variable takes one per lane)."""
        at = 0
        for k in keys:
            t = self.types.get(k)
            if t is not None and t.kind == "vec":
                self.env[k] = Vec(tuple(values[at:at + t.lanes]), t)
                at += t.lanes
            elif isinstance(self.env.get(k), Ptr):  # the same buffer, at the carried offset
                p = self.env[k]
                self.env[k] = Ptr(p.base, values[at], p.ctype, p.lead)
                at += 1
            else:
                self.env[k] = values[at]
                at += 1

    # -------------------------------------------------------- loops
    def _assigned(self, cursors: list[ci.Cursor]) -> set[tuple[int, int]]:
        """Declarations that `cursors` assign (=, op=, ++, --)."""
        return {decl_key(d) for root in cursors for c in walk(root)
                if (d := assigned_decl(c, self.shown)) is not None}

    def _carried(self, cursors: list[ci.Cursor], cursor: ci.Cursor, flags: tuple[str, ...] = ()) -> list[object]:
        assigned = self._assigned(cursors) | set(flags)
        keys = [k for k in self.env if k in assigned and not isinstance(self.env[k], Obj)]  # objects: memory
        for k in keys:
            if isinstance(self.env[k], Ptr):  # `p += stride` in a loop: carried as its offset
                p = self.env[k]
                self.env[k] = Ptr(p.base, p.offset if p.offset is not None else self.index_const(0, cursor),
                                  p.ctype, p.lead)
                continue
            if isinstance(self.env[k], Group):
                raise self.unsupported("a cooperative group assigned in a loop", cursor)
            if self.types.get(k, ct.INT).kind == "vec":
                self.env[k] = self.vec(self.env[k], self.types[k], cursor)
            elif isinstance(self.env[k], Undef):
                self.env[k] = self.constant(0, self.types[k], cursor)
        return keys

    def _for_parts(self, s: ci.Cursor) -> tuple[ci.Cursor | None, ci.Cursor | None, ci.Cursor | None, ci.Cursor]:
        """(init, cond, inc, body) of a `for`; libclang omits the missing ones, so place them by `;`."""
        kids = children(s)
        body = kids[-1]
        semis, depth = [], 0
        for tok in s.get_tokens():
            if tok.spelling == "(":
                depth += 1
            elif tok.spelling == ")":
                depth -= 1
                if depth == 0:
                    break
            elif tok.spelling == ";" and depth == 1:
                semis.append(tok.extent.start.offset)
        if len(semis) != 2:
            if len(kids) == 4:  # a `for` written by a macro (`CUDA_KERNEL_LOOP(i, n)`): all three parts
                return kids[0], kids[1], kids[2], body
            raise self.unsupported("this `for` header", s)
        init = cond = inc = None
        for c in kids[:-1]:
            start = c.extent.start.offset
            if start < semis[0]:
                init = c
            elif start < semis[1]:
                cond = c
            else:
                inc = c
        return init, cond, inc, body

    def _for(self, s: ci.Cursor) -> None:
        init, cond, inc, body = self._for_parts(s)
        counted = self._counted(init, cond, inc, body)
        if counted is not None:
            return self._scf_for(s, *counted, [body])
        if init is not None:
            self.stmt(init)
        counted = self._counted_variable(cond, inc, [body], body)
        if counted is not None:  # `for (; i < n; i += s)` over a variable declared before
            return self._scf_for(s, counted[0], None, *counted[1:], [body])
        return self._while(s, cond, body, inc)

    def _counted(self, init, cond, inc, body):
        """(var, lower bound, upper bound, inclusive, step) when the loop is `for (T i = a; i < b; i += s)`."""
        if init is None or cond is None or inc is None or init.kind != K.DECL_STMT:
            return None
        decls = children(init)
        if len(decls) != 1 or decls[0].kind != K.VAR_DECL:
            return None
        var = decls[0]
        t = ct.from_clang(var.type)
        inits = [c for c in children(var) if c.kind.is_expression()]
        if t is None or t.kind != "int" or not inits:
            return None
        key = decl_key(var)
        if key in self._assigned([body]) or _returns(body) or _breaks(body):
            return None
        c = _strip(cond)
        if c.kind != K.BINARY_OPERATOR or c.binary_operator not in (B.LT, B.LE):
            return None
        lhs, rhs = children(c)
        if not self._refers_to(lhs, key) or not self._invariant(rhs, body, inc, key):
            return None
        step = self._step(inc, key, body)
        if step is None:
            return None
        return var, inits[-1], rhs, c.binary_operator == B.LE, step

    def _counted_variable(self, cond, inc, stmts: list[ci.Cursor], body: ci.Cursor):
        """(var, upper bound, inclusive, step) when a loop over a variable declared before it is
        counted: `while (i < n) { ...; i += s; }` (`inc` the body's last statement, `stmts` the
        others) or `for (; i < n; i += s)`, with `i` a local or parameter that nothing else in the
        loop assigns, `n` and `s` invariant and `s` positive, and no break, continue or return."""
        if cond is None or inc is None:
            return None
        c = _strip(cond)
        if c.kind != K.BINARY_OPERATOR or c.binary_operator not in (B.LT, B.LE):
            return None
        lhs, rhs = children(c)
        ref = _strip(lhs)
        if ref.kind != K.DECL_REF_EXPR or ref.referenced is None \
                or ref.referenced.kind not in (K.VAR_DECL, K.PARM_DECL) or _is_shared(ref.referenced):
            return None
        var = ref.referenced
        key = decl_key(var)
        t = ct.from_clang(var.type)
        if t is None or t.kind != "int" or key in self.cells or not isinstance(self.env.get(key), SSAValue):
            return None
        if key in self._assigned(stmts) or _returns(body) or _breaks(body) \
                or any(k.kind == K.CONTINUE_STMT for k in _walk_loop(body)):
            return None
        if not self._invariant(rhs, body, inc, key):
            return None
        step = self._step(inc, key, body)
        if step is None:
            return None
        return var, rhs, c.binary_operator == B.LE, step

    @staticmethod
    def _refers_to(cursor: ci.Cursor, key: tuple[int, int]) -> bool:
        c = _strip(cursor)
        return c.kind == K.DECL_REF_EXPR and c.referenced is not None and decl_key(c.referenced) == key

    def _invariant(self, e: ci.Cursor, body: ci.Cursor, inc: ci.Cursor, key: tuple[int, int]) -> bool:
        """`e` reads no memory, calls only pure functions (`_pure_call`), and no variable it reads
        changes in the loop."""
        assigned = self._assigned([body, inc]) | {key}
        return self._pure(e, assigned, depth=0)

    def _pure(self, e: ci.Cursor, assigned: set[tuple[int, int]], depth: int) -> bool:
        for c in walk(e):
            if c.kind == K.ARRAY_SUBSCRIPT_EXPR or (c.kind == K.UNARY_OPERATOR and unary_operator(c, self.shown) == "*"):
                return False
            if c.kind == K.CALL_EXPR and not self._pure_call(c, depth):
                return False
            if c.kind == K.DECL_REF_EXPR and c.referenced is not None and (
                    decl_key(c.referenced) in assigned or _is_shared(c.referenced)):  # shared: other threads write it
                return False
        return True

    def _pure_call(self, c: ci.Cursor, depth: int) -> bool:
        """A call whose value depends on its arguments and the work item only: a math function
        (`min`, `max`, ...), a group's size or rank (`tile.size()`), or a helper of the file whose
        body is one `return` of such an expression (`ceil_div(a, b)`). Its arguments are walked
        by the caller."""
        callee = c.referenced
        if callee is None:
            return False
        if callee.kind == K.CXX_METHOD and _group_type(callee.semantic_parent.type) is not None:
            return callee.spelling in _GROUP_QUERIES
        definition = callee.get_definition()
        if definition is None:
            return callee.spelling in _MATH
        if depth >= 4 or definition.kind not in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE):
            return False
        statements = [k for k in children(definition) if k.kind == K.COMPOUND_STMT]
        body = children(statements[0]) if statements else []
        if len(body) != 1 or body[0].kind != K.RETURN_STMT or not children(body[0]):
            return False
        return self._pure(children(body[0])[0], set(), depth + 1)

    def _step(self, inc: ci.Cursor, key: tuple[int, int], body: ci.Cursor) -> ci.Cursor | int | None:
        """The step of `i++`, `++i`, `i += s`, `i = i + s` when s is invariant and positive."""
        c = _strip(inc)
        if c.kind == K.UNARY_OPERATOR and unary_operator(c, self.shown) in ("pre++", "post++"):
            return 1 if self._refers_to(children(c)[0], key) else None
        if c.kind == K.COMPOUND_ASSIGNMENT_OPERATOR and c.binary_operator == B.AddAssign:
            target, step = children(c)
        elif c.kind == K.BINARY_OPERATOR and c.binary_operator == B.Assign:
            target, value = children(c)
            v = _strip(value)
            if v.kind != K.BINARY_OPERATOR or v.binary_operator != B.Add:
                return None
            a, step = children(v)
            if not self._refers_to(a, key):
                return None
        else:
            return None
        if not self._refers_to(target, key) or not self._invariant(step, body, inc, key):
            return None
        return step if self._positive(step) else None

    def _positive(self, e: ci.Cursor, depth: int = 0) -> bool:
        """A step taken as positive: a positive constant, blockDim/gridDim, warpSize, a group's
        size, a parameter of the function (a step <= 0 would never end the loop: assumed > 0), a
        local that is never reassigned and starts positive, and sums and products of those."""
        value = evaluate(e)
        if isinstance(value, int):
            return value > 0
        c = _strip(e)
        if c.kind == K.MEMBER_REF_EXPR:
            base = _strip(children(c)[0]) if children(c) else None
            if base is not None and base.kind == K.CALL_EXPR and _is_group_method(base):
                return base.referenced.spelling in ("group_dim", "dim_threads")  # `tb.group_dim().x`
            return base is not None and base.spelling in ("blockDim", "gridDim")
        if c.kind == K.DECL_REF_EXPR and c.referenced is not None:
            decl = c.referenced
            if decl.spelling == "warpSize" or decl.kind == K.PARM_DECL:
                return True
            if decl.kind == K.VAR_DECL and depth < 4 and not _is_shared(decl) \
                    and decl_key(decl) not in self._assigned([self.frames[-1].cursor]):
                inits = [k for k in children(decl) if k.kind.is_expression()]
                return bool(inits) and self._positive(inits[-1], depth + 1)
            return False
        if c.kind == K.CALL_EXPR and c.referenced is not None and c.referenced.kind == K.CXX_METHOD \
                and _group_type(c.referenced.semantic_parent.type) is not None:
            return c.referenced.spelling in ("size", "num_threads", "meta_group_size")
        if c.kind == K.BINARY_OPERATOR and c.binary_operator in (B.Add, B.Mul):
            return all(self._positive(k, depth) for k in children(c))
        if c.kind in _CASTS and children(c):
            return self._positive(children(c)[-1], depth)
        return False

    def _scf_for(self, s, var, init, bound, inclusive, step, body: list[ci.Cursor]) -> None:
        """`scf.for` over `var` from `init` (None: the value `var` has, a variable declared before
        the loop, which then ends at the first value past the bound) by `step` while below `bound`."""
        t = self.ctype(var.type, var)
        if init is None:
            lo = self.to_index(self.scalar(self.env[decl_key(var)], s), t, s)
        else:
            lo, lo_t = self.expr(init)
            lo = self.to_index(self.scalar(self.convert(lo, lo_t, t, init), init), t, init)
        hi_v, hi_t = self.expr(bound)
        hi = self.to_index(self.scalar(hi_v, bound), hi_t, bound)
        if inclusive:
            hi = self.emit1(arith.AddiOp(hi, self.index_const(1, bound)), bound)
        if isinstance(step, int):
            st = self.index_const(step, s)
        else:
            sv, st_t = self.expr(step)
            st = self.to_index(self.scalar(sv, step), st_t, step)
        carried = self._carried(body, s)
        outer = self.env
        block = self._loop_block([IndexType()] + self._flat_types(carried), s)
        saved = self.block
        self.block, self.env = block, dict(outer)
        self._bind_flat(carried, list(block.args[1:]))
        iv = self.emit1(arith.IndexCastOp(block.args[0], t.ir), var)
        self.bind(var, iv, t)
        self.frames[-1].loop_depth += 1
        self.frames[-1].breaks.append(None)  # a counted loop has no `break` (else it is a while)
        self.seq(body)
        self.frames[-1].breaks.pop()
        self.frames[-1].loop_depth -= 1
        values = self._yield_values(block, self.env, carried, s)
        block.add_op(self._at(scf.YieldOp(*values), s))
        self.block = saved
        op = scf.ForOp(lo, hi, st, self._yield_values(self.block, outer, carried, s), block)
        self.emit(op, s)
        self.env = dict(outer)
        self._bind_flat(carried, list(op.results))
        if init is None:  # the variable lives on: lo + max(0, ceil((hi - lo) / st)) * st
            span = self.emit1(arith.SubiOp(hi, lo), s)
            up = self.emit1(arith.SubiOp(self.emit1(arith.AddiOp(span, st), s), self.index_const(1, s)), s)
            trips = self.emit1(arith.MaxSIOp(self.emit1(arith.DivSIOp(up, st), s), self.index_const(0, s)), s)
            end = self.emit1(arith.AddiOp(lo, self.emit1(arith.MuliOp(trips, st), s)), s)
            self.bind(var, self.emit1(arith.IndexCastOp(end, t.ir), s), t)

    def _loop_block(self, types: list[Attribute], s: ci.Cursor) -> Block:
        block = Block(arg_types=types)
        for arg in block.args:
            arg.location = self._loc(s)
        return block

    def _while_stmt(self, s: ci.Cursor) -> None:
        cond, body = children(s)[0], children(s)[-1]
        stmts = children(body) if body.kind == K.COMPOUND_STMT else [body]
        counted = self._counted_variable(cond, stmts[-1], stmts[:-1], body) if stmts else None
        if counted is not None:  # `while (i < n) { ...; i += s; }`: a counted loop
            return self._scf_for(s, counted[0], None, *counted[1:], stmts[:-1])
        self._while(s, cond, body, None)

    def _do(self, s: ci.Cursor) -> None:
        body, cond = children(s)[0], children(s)[-1]
        self._while(s, cond, body, None, body_first=True)

    def _while(self, s, cond, body, inc, body_first: bool = False) -> None:
        """`scf.while`: the before region tests `cond` (after the body for do-while), the after region
        runs the body and the increment. `break` and `return` set flags (carried like variables) that
        skip the rest of the body and the increment and end the loop."""
        parts = [p for p in (cond, body, inc) if p is not None]
        frame = self.frames[-1]
        flags: list[str] = []
        brk = None
        if _breaks(body):
            self.serial += 1
            brk = f"break:{self.serial}"
            self.env[brk], self.types[brk] = self.constant(0, ct.BOOL, s), ct.BOOL
            flags.append(brk)
        if _returns(body):
            if frame.returned_key not in self.env:
                self.env[frame.returned_key] = self.constant(0, ct.BOOL, s)
                self.types[frame.returned_key] = ct.BOOL
            flags.append(frame.returned_key)
            if frame.returns.kind != "void":
                flags.append(frame.ret_key)
        carried = self._carried(parts, s, tuple(flags))
        types = self._flat_types(carried)
        inits = self._yield_values(self.block, self.env, carried, s)
        outer = self.env
        saved = self.block
        stops = [f for f in flags if f != frame.ret_key]

        before = self._loop_block(types, s)
        self.block, self.env = before, dict(outer)
        self._bind_flat(carried, list(before.args))
        if body_first:
            self._loop_body(frame, body, brk)
        flag = self._loop_condition(cond, stops, s)
        values = self._yield_values(before, self.env, carried, s)
        before.add_op(self._at(scf.ConditionOp(flag, *values), s))

        after = self._loop_block(types, s)
        self.block, self.env = after, dict(outer)
        self._bind_flat(carried, list(after.args))
        if not body_first:
            self._loop_body(frame, body, brk)
            if inc is not None and stops:
                self._if_value(self._stopped(stops, s), [], [inc], s)
            elif inc is not None:
                self.expr(inc)
        values = self._yield_values(after, self.env, carried, s)
        after.add_op(self._at(scf.YieldOp(*values), s))

        self.block = saved
        op = scf.WhileOp(inits, types, [before], [after])
        self.emit(op, s)
        self.env = dict(outer)
        self._bind_flat(carried, list(op.results))

    def _loop_body(self, frame: Frame, body: ci.Cursor, brk: str | None) -> None:
        frame.loop_depth += 1
        frame.breaks.append(brk)
        self.seq([body])
        frame.breaks.pop()
        frame.loop_depth -= 1

    def _stopped(self, stops: list[str], s: ci.Cursor) -> SSAValue:
        """Whether a `break` or `return` flag of this loop is set."""
        stop = self.scalar(self.env[stops[0]], s)
        for key in stops[1:]:
            stop = self.emit1(arith.OrIOp(stop, self.scalar(self.env[key], s)), s)
        return stop

    def _loop_condition(self, cond: ci.Cursor | None, stops: list[str], s: ci.Cursor) -> SSAValue:
        """`cond`, and no flag set (`cond` is not evaluated once a flag is, as C leaves the loop)."""
        if not stops:
            return self.to_bool(*self.expr(cond), cond) if cond is not None else self.constant(1, ct.BOOL, s)
        go = self.emit1(arith.XOrIOp(self._stopped(stops, s), self.constant(1, ct.BOOL, s)), s)
        if cond is None:
            return go
        if _pure(cond, self.shown):
            return self.emit1(arith.AndIOp(go, self.to_bool(*self.expr(cond), cond)), s)
        return self._select_region(cond, go, cond, None, short_circuit=B.LAnd)

    # -------------------------------------------------------- expressions
    def expr(self, e: ci.Cursor) -> tuple[Value, CType]:
        self.at = e
        handler = _EXPRESSIONS.get(e.kind)
        if handler is None:
            raise self.unsupported(f"the expression `{_text(e)}` ({e.kind.name.lower()})", e)
        return handler(self, e)

    def _literal(self, e: ci.Cursor) -> tuple[Value, CType]:
        t = self.ctype(e.type, e)
        value = evaluate(e)
        if value is None:
            raise self.unsupported(f"the literal `{_text(e)}`", e)
        return self.constant(value, t, e), t

    def _paren(self, e: ci.Cursor) -> tuple[Value, CType]:
        return self.expr(children(e)[0])

    def _cast(self, e: ci.Cursor) -> tuple[Value, CType]:
        kids = [c for c in children(e) if c.kind.is_expression()]
        if len(kids) != 1:
            value = evaluate(e) if not kids else None
            if value is not None:
                return self._literal(e)
            raise self.unsupported(f"the expression `{_text(e)}`", e)
        if self.record_of(e.type) is not None:  # an object as itself (a copy is made where one is bound)
            return self.expr(kids[0])
        if ct.pointer_rows(e.type) is not None:  # a table of pointers, read: the table itself
            v, src = self.expr(kids[0])
            if isinstance(v, PointerRows):
                return v, src
        if _is_pointer(e.type) and self.record_of(e.type.get_canonical().get_pointee()) is not None:
            v, src = self.expr(kids[0])
            if isinstance(v, Obj):  # a pointer to a local object, read: the object
                return v, src
            return self.convert(v, src, self.ctype(e.type, e), e), self.ctype(e.type, e)
        t = self.ctype(e.type, e)
        if kids[0].kind == K.DECL_REF_EXPR and kids[0].referenced is None and evaluate(e) is not None:
            return self._literal(e)  # a template's value parameter, substituted
        v, src = self.expr(kids[0])
        if isinstance(v, Obj) and t.kind == "ptr":  # `(int64_t*)&res`: the object's bytes
            if v.memory is None:
                raise self.unsupported(f"viewing the `{v.record}` object as `{e.type.spelling}`", e)
            return Ptr(v.memory.base, v.memory.offset, t), t
        return self.convert(v, src, t, e), t

    def _decl_ref(self, e: ci.Cursor) -> tuple[Value, CType]:
        decl = e.referenced
        if decl is None:
            if evaluate(e) is not None:  # a template's value parameter, substituted
                return self._literal(e)
            raise self.unsupported(f"`{_text(e)}`", e)
        if decl.kind == K.ENUM_CONSTANT_DECL:
            return self.constant(decl.enum_value, ct.INT, e), ct.INT
        key = decl_key(decl)
        if key in self.env:
            return self.env[key], self.types[key]
        if key in self.cells:  # a shared scalar: a load
            cell = self.cells[key]
            assert cell.ctype.elem is not None
            return self.load(cell, e), cell.ctype.elem
        if _is_shared(decl) and not _is_array(decl.type.get_canonical()):  # a file-scope shared scalar
            return self._decl_ref_cell(decl, e)
        if _is_shared(decl):  # a file-scope `__shared__` array
            if key not in self.globals:
                self.globals[key] = self.allocate(decl, shared=True)
            return self.globals[key], self.globals[key].ctype
        if decl.kind == K.VAR_DECL and _is_constant_memory(decl) and not (
                not _is_array(decl.type.get_canonical()) and evaluate(e) is not None):
            p = self._constant_memory(decl, e)
            if _is_array(decl.type.get_canonical()):
                return p, p.ctype
            assert p.ctype.elem is not None
            return self.load(p, e), p.ctype.elem
        if decl.kind == K.VAR_DECL:
            value = evaluate(e)
            if value is not None:  # a global `const`/`constexpr` or a macro-like constant
                t = self.ctype(e.type, e)
                return self.constant(value, t, e), t
            if decl.spelling == "warpSize":
                return self.constant(32, ct.INT, e), ct.INT
        raise self.unsupported(f"the variable `{decl.spelling}` (globals, `__constant__` memory)", e)

    def _constant_memory(self, decl: ci.Cursor, e: ci.Cursor) -> Ptr:
        """A `__constant__` variable (an array or a scalar): with an initialiser (`= {1, 2, 4}`), a
        table the kernel holds (a local array filled at its start); without one, what the host
        copies there (`cudaMemcpyToSymbol`): an extra argument of the kernel, an input of the entry."""
        key = decl_key(decl)
        if key in self.globals:
            return self.globals[key]
        canon = decl.type.get_canonical()
        count = 1
        shape_type = canon
        if _is_array(canon):
            if canon.kind != ci.TypeKind.CONSTANTARRAY or _is_array(canon.element_type.get_canonical()):
                raise self.unsupported(f"the `__constant__` array type `{decl.type.spelling}` (one dimension)", e)
            count = canon.get_array_size()
            shape_type = canon.element_type
        elem = self.ctype(shape_type, decl)
        # An array's first expression child is its extent (`[5]`): its initialiser is the init list.
        init = next((c for c in children(decl) if (c.kind == K.INIT_LIST_EXPR if _is_array(canon)
                                                    else c.kind.is_expression())), None)
        if init is not None:
            values = children(init) if init.kind == K.INIT_LIST_EXPR else [init]
            numbers = [evaluate(v) for v in values]
            if any(n is None for n in numbers) or len(numbers) > count:
                raise self.unsupported(f"the initialiser of the `__constant__` `{decl.spelling}`", decl)
            alloca = memref.AllocaOp.get(elem.ir, shape=[count], memory_space=NoneAttr())
            alloca.location = self._loc(decl)
            alloca.memref.name_hint = decl.spelling
            self.prelude.append(alloca)
            for k in range(count):
                value = numbers[k] if k < len(numbers) else 0
                attr = FloatAttr(float(value), elem.ir) if elem.is_float else IntegerAttr(int(value), elem.ir)
                c = arith.ConstantOp(attr)
                at = arith.ConstantOp(IntegerAttr(k, IndexType()))
                store = memref.StoreOp.get(c.result, alloca.memref, [at.result])
                for op in (c, at, store):
                    op.location = self._loc(decl)
                    self.prelude.append(op)
            ptr = Ptr(alloca.memref, None, CType("ptr", 64, False, elem))
        else:
            index = len(self.entry.args) - (1 if self.shared_bytes is not None else 0)
            arg = self.entry.insert_arg(MemRefType(elem.ir, [DYNAMIC_INDEX]), index)
            arg.name_hint = decl.spelling
            arg.location = self._loc(decl)
            self.constants.append((decl.spelling, elem, count))
            ptr = Ptr(arg, None, CType("ptr", 64, False, elem))
        self.globals[key] = ptr
        return ptr

    def _vector_call(self, e, callee, args, t: CType) -> tuple[Value, CType]:
        """`make_float4(a, b, c, d)`, a vector's copy, and `dst = src` between vectors."""
        assert t.elem is not None
        name = callee.spelling
        if (name.startswith("make_") or name in _PAIR_MAKERS) and len(args) == t.lanes:
            return Vec(tuple(_arg(self, a, t.elem) for a in args), t), t
        if name in _PAIR_BROADCASTS and len(args) == 1:  # __float2half2_rn(a): (a, a)
            lane = _arg(self, args[0], t.elem)
            return Vec((lane,) * t.lanes, t), t
        if name in _PAIR_CONVERSIONS and len(args) == 1:  # __half22float2(h2): lane by lane
            v, vt = self.expr(args[0])
            src = self.vec(v, vt, args[0])
            assert vt.elem is not None
            return Vec(tuple(self.convert(lane, vt.elem, t.elem, e) for lane in src.lanes), t), t
        if name in _PAIR_OPERATORS and callee.get_definition() is None and len(args) in (1, 2):
            return self._pair_operator(e, name, args, t)
        if name == "__lowhigh2highlow" and len(args) == 1:
            v, vt = self.expr(args[0])
            lanes = self.vec(v, vt, args[0]).lanes
            return Vec(tuple(reversed(lanes)), t), t
        if name in _PAIR_LANEWISE and callee.get_definition() is None:  # __hadd2(a, b): per lane
            vectors = []
            for a in args:
                v, vt = self.expr(a)
                vectors.append(self.vec(v, vt, a))
            return Vec(tuple(_PAIR_LANEWISE[name](self, [vv.lanes[k] for vv in vectors], t.elem, e)
                             for k in range(t.lanes)), t), t
        if callee.kind == K.CONSTRUCTOR and not args:  # `float4 val;`: not initialised
            return Undef(t), t
        if callee.kind == K.CONSTRUCTOR and len(args) == 1:
            v, vt = self.expr(args[0])
            return (v, t) if isinstance(v, Packed) else (self.vec(v, t, e), t)  # a copy: bits as they are
        kids = [c for c in children(e) if c.kind.is_expression()]
        if callee.spelling == "operator=" and len(kids) == 3:
            v, vt = self.expr(kids[2])
            return self.write(self.lvalue(kids[0], e), v if isinstance(v, Packed) else self.vec(v, t, e), t, e)
        if callee.get_definition() is not None and (callee.kind == K.FUNCTION_DECL or (
                callee.kind == K.CXX_METHOD and callee.is_static_method())):  # a helper returning a vector
            return self.inline(e, callee, args)
        raise self.unsupported(f"the vector operation `{_text(e)}`", e)

    def _pair_operator(self, e, name: str, args: list[ci.Cursor], t: CType) -> tuple[Value, CType]:
        """`a + b`, `-a`, `a += b` on two pairs of halves: lane by lane; a compound one stores into `a`."""
        assert t.elem is not None
        if len(args) == 1:  # unary: `-a` negates each lane, `+a` is `a`
            v, vt = self.expr(args[0])
            lanes = self.vec(v, vt, args[0]).lanes
            if name == "operator-":
                lanes = tuple(self.emit1(arith.NegfOp(lane), e) for lane in lanes)
            return Vec(lanes, t), t
        place = self.lvalue(args[0], e) if name.endswith("=") else None
        a, at = self.read(place, e) if place is not None else self.expr(args[0])
        b, bt = self.expr(args[1])
        va, vb = self.vec(a, t, args[0]), self.vec(b, t, args[1])
        rule = _PAIR_LANEWISE[_PAIR_OPERATORS[name]]
        result = Vec(tuple(rule(self, [x, y], t.elem, e) for x, y in zip(va.lanes, vb.lanes, strict=True)), t)
        if place is not None:
            self.write(place, result, t, e)
        return result, t

    def group(self, e: ci.Cursor) -> Group:
        """The group an expression names: a group variable, or `this_thread_block()` /
        `tiled_partition<N>(...)` written in place."""
        g = _group_type(e.type)
        c = _strip(e)
        if c.kind == K.DECL_REF_EXPR and c.referenced is not None:
            v = self.env.get(decl_key(c.referenced))
            if isinstance(v, Group):
                return v
        if g is not None and c.kind == K.CALL_EXPR:
            return g
        raise self.unsupported(f"the cooperative group `{_text(e)}`", e)

    def _decl_ref_cell(self, decl: ci.Cursor, e: ci.Cursor) -> tuple[Value, CType]:
        cell = self.shared_decl(decl)
        assert cell.ctype.elem is not None
        return self.load(cell, e), cell.ctype.elem

    def _cell(self, target: ci.Cursor) -> Ptr | None:
        """The shared cell a variable reference names, or the cell of an object's field, if it names one."""
        c = _strip_parens(target)
        vector = _vector_lane_base(c)
        if vector is not None and decl_key(vector) in self.cells:  # `&v.y` of a vector in memory
            return self.lane(self.cells[decl_key(vector)], _LANES[c.spelling], c)
        if c.kind == K.MEMBER_REF_EXPR and c.referenced is not None and c.referenced.kind == K.FIELD_DECL:
            place = self.field_place(c)
            if isinstance(place, Ptr):
                return place
        if c.kind != K.DECL_REF_EXPR or c.referenced is None:
            return None
        key = decl_key(c.referenced)
        if key in self.cells:
            return self.cells[key]
        if _is_shared(c.referenced) and not _is_array(c.referenced.type.get_canonical()):
            return self.shared_decl(c.referenced)
        return None

    def _member(self, e: ci.Cursor) -> tuple[Value, CType]:
        if e.referenced is not None and e.referenced.kind == K.FIELD_DECL and e.referenced.is_bitfield() \
                and ct.bit_fields(e.referenced.semantic_parent.type) is not None:
            return self._bit_field(e)
        if e.referenced is not None and e.referenced.kind == K.FIELD_DECL:
            place = self.field_place(e)
            if isinstance(place, Obj):
                return place, OBJECT
            if isinstance(place, Fixed):
                if place.value is None or isinstance(place.value, Undef) and place.ctype.kind == "ptr":
                    raise self.unsupported(f"the member `{_text(e)}` of type `{e.type.spelling}` (a pointer "
                                           "to pointers, an array or a pointer no one set)", e)
                return place.value, place.ctype
            if place is not None:
                if _is_array(e.referenced.type.get_canonical()):  # an array member decays to its pointer
                    return place, place.ctype
                assert place.ctype.elem is not None
                return self.load(place, e), place.ctype.elem
        kids = children(e)
        vt = ct.from_clang(kids[0].type) if kids else None
        if vt is not None and vt.kind == "vec" and member_name(e) in _LANES:
            inner = _strip(kids[0])
            if inner.kind == K.ARRAY_SUBSCRIPT_EXPR:
                place = self._subscript_ptr(inner)
                if self.punned(place):  # `data[0].x` of a `uint4*` over halves: that lane's bits
                    k = _LANES[member_name(e)]
                    if k >= vt.lanes:
                        raise self.unsupported(f"the lane `{_text(e)}`", e)
                    return self.scalar(self.load(self.lane(place, k, e), e), e), vt.scalar
            v, t = self.expr(kids[0])
            k = _LANES[member_name(e)]
            if k >= t.lanes:
                raise self.unsupported(f"the lane `{_text(e)}`", e)
            return self.vec(v, t, e).lanes[k], t.scalar
        base = _strip(kids[0]) if kids else None
        op = _BUILTIN_VARS.get(base.spelling) if base is not None and base.kind == K.DECL_REF_EXPR else None
        if base is not None and base.kind == K.CALL_EXPR and _is_group_method(base):  # `tb.group_index().x`
            op = _BLOCK_QUERIES.get(base.referenced.spelling)
        dim = _DIMS.get(member_name(e))
        if op is None or dim is None:
            raise self.unsupported(f"the member access `{_text(e)}` (structs)", e)
        index = self.emit1(op(gpu.DimensionAttr(dim)), e)
        return self.emit1(arith.IndexCastOp(index, IntegerType(32)), e), ct.UINT

    def _bit_field(self, e: ci.Cursor) -> tuple[Value, CType]:
        """`d.low` of a struct of bit-fields (an integer: `ctype.bit_fields`): the field's bits of
        the storage integer, sign-extended when the field's type is signed."""
        field_decl = e.referenced
        record = field_decl.semantic_parent.type
        storage = ct.bit_fields(record)
        assert storage is not None
        v, t = self.expr(children(e)[0])
        if t != storage:
            raise self.unsupported(f"the member access `{_text(e)}`", e)
        ft = self.ctype(field_decl.type, e)
        width, at = field_decl.get_bitfield_width(), record.get_offset(field_decl.spelling)
        x = self.scalar(v, e)
        if ft.signed:  # to the top, then an arithmetic shift back down: the sign bit spreads
            x = self.emit1(arith.ShLIOp(x, self.constant(storage.bits - at - width, storage, e)), e)
            x = self.emit1(arith.ShRSIOp(x, self.constant(storage.bits - width, storage, e)), e)
        else:
            x = self.emit1(arith.ShRUIOp(x, self.constant(at, storage, e)), e)
            x = self.emit1(arith.AndIOp(x, self.constant((1 << width) - 1, storage, e)), e)
        return self.convert(x, CType("int", storage.bits, ft.signed), ft, e), ft

    def _init_list(self, e: ci.Cursor) -> tuple[Value, CType]:
        """`PackedInt4{hi, lo}`: a struct of bit-fields built from its fields' values (each cut to
        its width, at its offset; fields not given are zero). Other init lists are not values here."""
        record = e.type.get_canonical()
        storage = ct.bit_fields(record) if record.kind == ci.TypeKind.RECORD else None
        items = children(e)
        fields = list(record.get_fields()) if storage is not None else []
        if storage is None or len(items) > len(fields):
            raise self.unsupported(f"the expression `{_text(e)}` (init_list_expr)", e)
        packed = self.constant(0, storage, e)
        for f, item in zip(fields, items):
            v, t = self.expr(item)
            x = self.scalar(self.convert(self.scalar(v, item), t, storage, item), item)
            width, at = f.get_bitfield_width(), record.get_offset(f.spelling)
            x = self.emit1(arith.AndIOp(x, self.constant((1 << width) - 1, storage, item)), item)
            if at:
                x = self.emit1(arith.ShLIOp(x, self.constant(at, storage, item)), item)
            packed = self.emit1(arith.OrIOp(packed, x), item)
        return packed, storage

    def _subscript_ptr(self, e: ci.Cursor) -> Ptr:
        """The address `&p[i]` of a subscript, or of `*p`."""
        if e.kind == K.ARRAY_SUBSCRIPT_EXPR:
            base, index = children(e)
            p, pt = self.expr(base)
            if not isinstance(p, (Ptr, Choice)):
                raise self.unsupported(f"subscripting `{_text(base)}` (arrays)", e)
            i, it = self.expr(index)
            if isinstance(p, Choice):
                return self.offset(p, self.scalar(i, index), it, e, subtract=False, stride=_stride(base.type))
            if p.offset is None and len(p.lead) + 1 < p.rank:  # `s[i]` of `s[A][B]`: a row
                return Ptr(p.base, None, p.ctype, p.lead + (self.to_index(self.scalar(i, index), it, e),))
            return self.offset(p, self.scalar(i, index), it, e, subtract=False, stride=_stride(base.type))
        if e.kind == K.UNARY_OPERATOR and unary_operator(e, self.shown) == "*":
            p, _ = self.expr(children(e)[0])
            if isinstance(p, (Ptr, Choice)):
                return p
        if e.kind == K.PAREN_EXPR:
            return self._subscript_ptr(children(e)[0])
        cell = self._cell(e)
        if cell is not None:  # `&total` of a shared scalar
            return cell
        raise self.unsupported(f"the memory access `{_text(e)}`", e)

    def offset(self, p: Ptr, i: SSAValue, it: CType, e: ci.Cursor, subtract: bool, stride: int = 1) -> Ptr:
        """`p + i`; `stride`: the scalars of one struct when `p` points to structs (`Row* rows`)."""
        if isinstance(p, Choice):
            return Choice(p.cond, self.offset(p.yes, i, it, e, subtract, stride),
                          self.offset(p.no, i, it, e, subtract, stride))
        idx = self.to_index(i, it, e)
        assert p.ctype.elem is not None
        step = self.elements_per(p, e) * stride  # `reinterpret_cast<float4*>(x)[i]`: scalars 4*i .. 4*i+3
        if step != 1:
            idx = self.emit1(arith.MuliOp(idx, self.index_const(step, e)), e)
        if len(p.lead) + 1 < p.rank:
            raise self.unsupported(f"pointer arithmetic on a multi-dimensional array in `{_text(e)}`", e)
        if p.offset is None and not subtract:
            return Ptr(p.base, idx, p.ctype, p.lead)
        base = p.offset if p.offset is not None else self.index_const(0, e)
        op = arith.SubiOp(base, idx) if subtract else arith.AddiOp(base, idx)
        return Ptr(p.base, self.emit1(op, e), p.ctype, p.lead)

    def indices(self, p: Ptr, e: ci.Cursor) -> list[SSAValue]:
        if len(p.lead) + 1 < p.rank:
            raise self.unsupported(f"the partial subscript `{_text(e)}` of a multi-dimensional array", e)
        return [*p.lead, p.offset if p.offset is not None else self.index_const(0, e)]

    def elements_per(self, p: Ptr, e: ci.Cursor) -> int:
        """How many of the buffer's elements one element of `p`'s type spans: 1, a vector's lanes
        (`float4*` over floats), or its width over theirs (`uint4*` over halves: 8)."""
        elem = p.ctype.elem
        assert elem is not None
        if elem.kind == "vec" and elem.scalar.ir == _base_elem(p):
            return elem.lanes
        if elem.kind == "void":
            raise self.unsupported("arithmetic or access through a `void *`", e)
        if elem.ir == _base_elem(p) and elem.kind != "vec":
            return 1
        width, base = elem.width, _ir_bits(_base_elem(p))
        if base is None or width % base:
            raise self.unsupported(f"a `{elem.dtype}` pointer over a buffer of `{_base_elem(p)}` (not a whole "
                                   "number of its elements)", e)
        return width // base

    def punned(self, p: Ptr | Choice) -> bool:
        """Whether `p` reads its buffer as another type (`uint4*` over floats), not lane by lane."""
        if isinstance(p, Choice):
            return self.punned(p.leaf)
        elem = p.ctype.elem
        assert elem is not None
        return elem.scalar.ir != _base_elem(p)

    def chosen(self, p: Choice, access: Callable[[Ptr | Choice], Value | None], e: ci.Cursor) -> Value | None:
        """`access` through the pointer `p` chooses: an scf.if on its condition, each branch accessing
        its own pointer; the value each gives (a scalar, or a vector's or a packed value's lanes) is
        the if's result."""
        saved = self.block
        results: list[Value | None] = []
        blocks = []
        for branch in (p.yes, p.no):
            self.block = Block()
            results.append(access(branch))
            blocks.append(self.block)
        self.block = saved
        first = results[0]
        lanes = [list(r.lanes) if isinstance(r, (Vec, Packed)) else [] if r is None else [r] for r in results]
        for block, flat in zip(blocks, lanes):
            block.add_op(self._at(scf.YieldOp(*flat), e))
        op = scf.IfOp(p.cond, [v.type for v in lanes[0]], [blocks[0]], [blocks[1]])
        self.emit(op, e)
        values = tuple(op.results)
        if isinstance(first, Vec):
            return Vec(values, first.ctype)
        if isinstance(first, Packed):
            return Packed(values, first.elem, first.ctype)
        return values[0] if values else None

    def load(self, p: Ptr, e: ci.Cursor):
        """The element at `p`: one memref.load, one per lane of a vector, or, through a reinterpreted
        pointer, the buffer's elements it spans (`Packed`; a scalar of the same width: bitcast)."""
        if isinstance(p, Choice):
            return self.chosen(p, lambda q: self.load(q, e), e)
        assert p.ctype.elem is not None
        if self.punned(p):
            return self._load_punned(p, e)
        if p.ctype.elem.kind == "vec":
            return Vec(tuple(self.load(self.lane(p, k, e), e) for k in range(p.ctype.elem.lanes)), p.ctype.elem)
        return self.emit1(memref.LoadOp.get(p.base, self.indices(p, e)), e)

    def _load_punned(self, p: Ptr, e: ci.Cursor) -> Value:
        elem = p.ctype.elem
        assert elem is not None
        count = self.elements_per(p, e)
        lanes = tuple(self.emit1(memref.LoadOp.get(p.base, self.indices(self._element(p, k, e), e)), e)
                      for k in range(count))
        if elem.kind != "vec":  # `*(int*)&f`, a 32-bit register of two halves, a float of 4 bytes
            return self.repack(lanes, elem.ir, e)[0]
        return Packed(lanes, _ctype_of(_base_elem(p)), elem)

    def repack(self, lanes: Sequence[SSAValue], to: Attribute, e: ci.Cursor) -> list[SSAValue]:
        """The same little-endian bits as values of type `to`: lanes combined (bytes into a float) or
        split (a float into bytes), when one width divides the other."""
        width, target = _ir_bits(lanes[0].type), _ir_bits(to)
        if width is None or target is None or (target % width and width % target):
            raise self.unsupported(f"reading `{lanes[0].type}` elements as `{to}`", e)
        if width == target:
            return [v if v.type == to else self.emit1(arith.BitcastOp(v, to), e) for v in lanes]
        if target > width:  # combine each group of lanes
            per = target // width
            out = []
            for k in range(0, len(lanes), per):
                whole = self._combined(tuple(lanes[k:k + per]), CType("int", target, False), e)
                out.append(whole if isinstance(to, IntegerType) else self.emit1(arith.BitcastOp(whole, to), e))
            return out
        out = []
        for v in lanes:  # split each lane
            bits = v if isinstance(v.type, IntegerType) else self.emit1(arith.BitcastOp(v, IntegerType(width)), e)
            out.extend(self._pieces(bits, to, width // target, e))
        return out

    def _combined(self, lanes: tuple[SSAValue, ...], elem: CType, e: ci.Cursor) -> SSAValue:
        """The integer whose little-endian pieces are `lanes` (each bitcast to an integer first)."""
        width = _ir_bits(lanes[0].type) or 0
        total = None
        for k, lane in enumerate(lanes):
            bits = lane if isinstance(lane.type, IntegerType) else self.emit1(arith.BitcastOp(lane, IntegerType(width)), e)
            piece = self.emit1(arith.ExtUIOp(bits, elem.ir), e)
            if k:
                piece = self.emit1(arith.ShLIOp(piece, self.constant(k * width, elem, e)), e)
            total = piece if total is None else self.emit1(arith.OrIOp(total, piece), e)
        assert total is not None
        return total

    def _pieces(self, v: SSAValue, base: Attribute, count: int, e: ci.Cursor) -> list[SSAValue]:
        """The `count` little-endian pieces of the integer `v`, each as a `base` element."""
        width = _ir_bits(base) or 0
        vt = _ctype_of(v.type)
        out = []
        for k in range(count):
            shifted = self.emit1(arith.ShRUIOp(v, self.constant(k * width, vt, e)), e) if k else v
            piece = self.emit1(arith.TruncIOp(shifted, IntegerType(width)), e)
            out.append(piece if isinstance(base, IntegerType) else self.emit1(arith.BitcastOp(piece, base), e))
        return out

    def store(self, p: Ptr, v, e: ci.Cursor) -> None:
        if isinstance(p, Choice):
            self.chosen(p, lambda q: self.store(q, v, e), e)
            return
        assert p.ctype.elem is not None
        if self.punned(p):
            return self._store_punned(p, v, e)
        if p.ctype.elem.kind == "vec":
            if isinstance(v, Packed):  # a float4 read from bytes, stored lane by lane
                v = self.vec(v, p.ctype.elem, e)
            for k, lane in enumerate(v.lanes):
                self.store(self.lane(p, k, e), lane, e)
            return
        self.emit(memref.StoreOp.get(v, p.base, self.indices(p, e)), e)

    def _store_punned(self, p: Ptr, v, e: ci.Cursor) -> None:
        """Through a reinterpreted pointer: a `Packed` value of the buffer's element type, element by
        element; a scalar as wide as one element, bitcast; a zero (`data[0].x = 0`), zeros."""
        count = self.elements_per(p, e)
        base = _base_elem(p)
        bits = count * (_ir_bits(base) or 0)
        if isinstance(v, Packed) and v.elem.ir == base and len(v.lanes) == count:
            lanes = list(v.lanes)
        elif isinstance(v, Packed) and v.elem.width * len(v.lanes) == bits:
            lanes = self.repack(v.lanes, base, e)  # bytes copied over halves, halves over bytes
        elif isinstance(v, SSAValue) and _is_zero(v):
            lanes = [self.constant(0, _ctype_of(base), e)] * count
        elif isinstance(v, SSAValue) and _ir_bits(v.type) == bits:
            lanes = self.repack([v], base, e)  # a register of two halves, a float as bytes
        elif isinstance(v, Vec) and v.ctype.width == bits:
            # a pair of halves stored over a float (`((half2*)&f4)[i] = h2`), a uint4 over 64-bit
            # integers: its bits, element by element
            lanes = self.repack(v.lanes, base, e)
        else:
            raise self.unsupported(f"storing `{_text(e)}` through a `{p.ctype.elem.dtype}` pointer over a buffer "
                                   f"of `{base}`", e)
        for k, lane in enumerate(lanes):
            self.emit(memref.StoreOp.get(lane, p.base, self.indices(self._element(p, k, e), e)), e)

    def _element(self, p: Ptr, k: int, e: ci.Cursor) -> Ptr:
        """The address k buffer elements past `p`."""
        if k == 0:
            return p
        base = p.offset if p.offset is not None else self.index_const(0, e)
        return Ptr(p.base, self.emit1(arith.AddiOp(base, self.index_const(k, e)), e), p.ctype, p.lead)

    def lane(self, p: Ptr, k: int, e: ci.Cursor) -> Ptr:
        """The address of lane k of the vector at `p` (through a reinterpreted pointer, lane k of a
        `uint4` over halves is two of them)."""
        elem = p.ctype.elem
        assert elem is not None and elem.elem is not None
        scalar_ptr = CType("ptr", 64, False, elem.elem)
        step = self.elements_per(p, e) // elem.lanes if self.punned(p) else 1
        if k == 0:
            return Ptr(p.base, p.offset, scalar_ptr, p.lead)
        base = p.offset if p.offset is not None else self.index_const(0, e)
        return Ptr(p.base, self.emit1(arith.AddiOp(base, self.index_const(k * step, e)), e), scalar_ptr, p.lead)

    def _subscript(self, e: ci.Cursor) -> tuple[Value, CType]:
        slot = self._pointer_slot(e)
        if slot is not None:
            return self.read(slot, e)
        base, index = children(e)
        if _is_pointer(base.type) and _is_pointer(base.type.get_canonical().get_pointee()):
            table, _ = self.expr(base)
            if isinstance(table, PointerRows):  # `block_lists[seq]`: pointer `seq`, loaded from the table
                i, it = self.expr(index)
                at = self.offset(table.table, self.scalar(i, index), it, e, subtract=False)
                offset = self.emit1(arith.IndexCastOp(self.scalar(self.load(at, e), e), IndexType()), e)
                rows = table.rows
                start = offset if rows.offset is None else self.emit1(arith.AddiOp(rows.offset, offset), e)
                return Ptr(rows.base, start, rows.ctype, rows.lead), rows.ctype
        if self.record_of(e.type) is not None:  # `rows[i]` of `Row* rows`: that struct, in memory
            return self.in_memory(self._subscript_ptr(e), e.type, e), OBJECT
        p = self._subscript_ptr(e)
        assert p.ctype.elem is not None
        if _is_array(e.type.get_canonical()):  # a row of a 2-D array: an address, not a value
            return p, p.ctype
        return self.load(p, e), p.ctype.elem

    # assignment targets: a local variable (its declaration's key) or a memory location (a Ptr),
    # resolved once so that `x[j++] += 1` evaluates `j++` once
    def lvalue(self, target: ci.Cursor, e: ci.Cursor) -> object | Ptr:
        target = _strip_parens(target)
        if target.kind == K.MEMBER_REF_EXPR and member_name(target) in _LANES and children(target):
            base = _strip(children(target)[0])
            bt = ct.from_clang(base.type)
            if bt is not None and bt.kind == "vec":
                k = _LANES[member_name(target)]
                if k >= bt.lanes:
                    raise self.unsupported(f"the lane `{_text(target)}`", e)
                place = self.lvalue(base, e)
                return self.lane(place, k, e) if isinstance(place, Ptr) else ("lane", place, k)
        cell = self._cell(target)
        if cell is not None:
            return cell
        if target.kind == K.DECL_REF_EXPR and target.referenced is not None:
            key = decl_key(target.referenced)
            if key not in self.env:
                raise self.unsupported(f"assigning `{target.spelling}` (globals)", e)
            return key
        if target.kind == K.CALL_EXPR and target.referenced is not None:
            return self.returned_place(target)
        if target.kind in _CASTS and _same_place(target):
            return self.lvalue(children(target)[-1], e)
        slot = self._pointer_slot(target)
        if slot is not None:
            return slot
        return self._subscript_ptr(target)

    def _pointer_slot(self, e: ci.Cursor) -> PointerSlot | None:
        """`bases[i]` of a local array of pointers, as a place; None for any other expression."""
        e = _strip_parens(e)
        if e.kind != K.ARRAY_SUBSCRIPT_EXPR:
            return None
        base, index = children(e)
        base = _strip(base)
        if base.kind != K.DECL_REF_EXPR or base.referenced is None:
            return None
        table = self.env.get(decl_key(base.referenced))
        if not isinstance(table, PointerTable):
            return None
        i, it = self.expr(index)
        return PointerSlot(table, self.to_index(self.scalar(i, index), it, e))

    def returned_place(self, call: ci.Cursor) -> Ptr:
        """What an accessor returning a reference refers to (`T& operator[](int k) { return
        data[k]; }`, `at(k)`): the place its one `return` names, with its arguments and `this` bound,
        so that `a[k] = v` stores there."""
        callee = call.referenced
        definition = callee.get_definition()
        result = definition.result_type.get_canonical() if definition is not None else None
        body = children(self._body(definition)) if definition is not None else []
        params = [c for c in children(definition) if c.kind == K.PARM_DECL] if definition is not None else []
        if result is None or result.kind != ci.TypeKind.LVALUEREFERENCE or len(body) != 1 \
                or body[0].kind != K.RETURN_STMT or not children(body[0]) \
                or any(ct.from_clang(p.type) is None for p in params):
            raise self.unsupported(f"assigning through the call `{_text(call)}`", call)
        this = self.receiver(call) if callee.kind == K.CXX_METHOD and not callee.is_static_method() else None
        args = _method_args(call)
        bound = []
        for p, a in zip(params, args):
            v, t = self.expr(a)
            pt = self.ctype(p.type, p)
            bound.append((p, self.convert(v, t, pt, a), pt))
        outer_keys = set(self.env)
        for p, v, pt in bound:
            self.bind(p, v, pt)
        self.frames.append(Frame(definition, ct.VOID, f"return:{definition.spelling}:{len(self.frames)}", this=this))
        place = self.lvalue(children(body[0])[0], call)
        self.frames.pop()
        for key in list(self.env):
            if key not in outer_keys:
                del self.env[key]
        if not isinstance(place, Ptr):
            raise self.unsupported(f"assigning through the call `{_text(call)}` (it returns a local)", call)
        return place

    def read(self, place: object | Ptr, e: ci.Cursor) -> tuple[Value, CType]:
        if isinstance(place, PointerSlot):
            table = place.table
            if table.base is None:
                raise self.unsupported("reading an entry of an array of pointers before any is assigned", e)
            offset = self.emit1(memref.LoadOp.get(table.offsets, [place.index]), e)
            return Ptr(table.base, self.emit1(arith.IndexCastOp(offset, IndexType()), e), table.pointer,
                       table.lead), table.pointer
        if isinstance(place, (Ptr, Choice)):
            assert place.ctype.elem is not None
            return self.load(place, e), place.ctype.elem
        if isinstance(place, tuple) and place and place[0] == "lane":
            _, key, k = place
            vt = self.types[key]
            return self.vec(self.env[key], vt, e).lanes[k], vt.scalar
        return self.env[place], self.types[place]

    def write(self, place: object | Ptr, v: Value, t: CType, e: ci.Cursor) -> tuple[Value, CType]:
        """Store `v` converted to the target's type; returns the value stored (C's result)."""
        if isinstance(place, PointerSlot):  # `bases[i] = moe_output + offset`: its offset, one buffer for all
            table = place.table
            v = self.convert(v, t, table.pointer, e)
            if not isinstance(v, Ptr) or (table.base is not None and (v.base is not table.base or v.lead != table.lead)):
                raise self.unsupported("an array of pointers into more than one buffer", e)
            table.base, table.lead = v.base, v.lead
            offset = v.offset if v.offset is not None else self.index_const(0, e)
            self.emit(memref.StoreOp.get(self.emit1(arith.IndexCastOp(offset, IntegerType(64)), e), table.offsets,
                                         [place.index]), e)
            return v, table.pointer
        if isinstance(place, Choice):  # each branch stores as through its own pointer; the if yields what it stored
            assert place.ctype.elem is not None
            return self.chosen(place, lambda q: self.write(q, v, t, e)[0], e), place.ctype.elem
        if isinstance(place, Ptr):
            assert place.ctype.elem is not None
            if isinstance(v, Packed) or (self.punned(place) and place.ctype.elem.kind == "vec"):
                self.store(place, v, e)  # the bits as they are (a packed copy)
                return v, place.ctype.elem
            if place.ctype.elem.kind == "vec":
                stored = self.vec(v, place.ctype.elem, e)
            else:
                stored = self.scalar(self.convert(v, t, place.ctype.elem, e), e)
            self.store(place, stored, e)
            return stored, place.ctype.elem
        if isinstance(place, tuple) and place and place[0] == "lane":  # `v.x = e` on a local vector
            _, key, k = place
            vt = self.types[key]
            old = self.vec(self.env[key], vt, e)
            lane = self.scalar(self.convert(v, t, vt.scalar, e), e)
            self.env[key] = Vec(old.lanes[:k] + (lane,) + old.lanes[k + 1:], vt)
            return lane, vt.scalar
        self.env[place] = self.convert(v, t, self.types[place], e)
        return self.env[place], self.types[place]

    def _binary(self, e: ci.Cursor) -> tuple[Value, CType]:
        op = e.binary_operator
        lhs, rhs = children(e)
        if op == B.Assign:
            v, t = self.expr(rhs)
            return self.write(self.lvalue(lhs, e), v, t, e)
        if op in (B.LAnd, B.LOr):
            return self._logical(e, op, lhs, rhs)
        pointer = next((b for a, b in ((lhs, rhs), (rhs, lhs))
                        if is_null_pointer(a) and b.type.get_canonical().kind == ci.TypeKind.POINTER), None) \
            if op in (B.EQ, B.NE) else None
        if pointer is not None:
            # a buffer against nullptr (an optional bias): null only where the launch passes
            # nullptr (the kernel is lowered for that launch: `Launch.nulls`), else a buffer
            try:
                p, _ = self.expr(pointer)
            except Unsupported:  # a pointer lowercheck does not model: no kernel parameter passed as null
                p = None
            null = isinstance(p, Ptr) and p.null
            return self.constant(int((op == B.EQ) == null), ct.BOOL, e), ct.BOOL
        if op == B.Comma:
            self.expr(lhs)
            return self.expr(rhs)
        a, at = self.expr(lhs)
        b, bt = self.expr(rhs)
        if op in _COMPARE:
            return self._compare(op, a, at, b, bt, e), ct.BOOL
        return self.arith(op, a, at, b, bt, self.ctype(e.type, e), e)

    def arith(self, op: B, a: Value, at: CType, b: Value, bt: CType, rt: CType,
              e: ci.Cursor) -> tuple[Value, CType]:
        if isinstance(a, (Ptr, Choice)) or isinstance(b, (Ptr, Choice)):
            return self._pointer_arith(op, a, at, b, bt, e)
        pick = _ARITH.get(op)
        cls = pick(rt) if pick else None
        if cls is None:
            raise self.unsupported(f"the operator in `{_text(e)}` on {rt.dtype}", e)
        a = self.scalar(self.convert(a, at, rt, e), e)
        if op in _SHIFTS:  # the shift count keeps its own type in C
            b = self.scalar(self.convert(b, bt, CType("int", rt.bits, bt.signed), e), e)
        else:
            b = self.scalar(self.convert(b, bt, rt, e), e)
        return self.emit1(cls(a, b), e), rt

    def _pointer_arith(self, op, a, at, b, bt, e) -> tuple[Value, CType]:
        stride = _stride(e.type)
        pointers = (Ptr, Choice)
        if op == B.Add and isinstance(a, pointers) and not isinstance(b, pointers):
            return self.offset(a, self.scalar(b, e), bt, e, subtract=False, stride=stride), at
        if op == B.Add and isinstance(b, pointers) and not isinstance(a, pointers):
            return self.offset(b, self.scalar(a, e), at, e, subtract=False, stride=stride), bt
        if op == B.Sub and isinstance(a, pointers) and not isinstance(b, pointers):
            return self.offset(a, self.scalar(b, e), bt, e, subtract=True, stride=stride), at
        raise self.unsupported(f"the pointer arithmetic `{_text(e)}`", e)

    def _compare(self, op: B, a, at: CType, b, bt: CType, e: ci.Cursor) -> SSAValue:
        if isinstance(a, Ptr) or isinstance(b, Ptr):
            raise self.unsupported(f"comparing pointers in `{_text(e)}`", e)
        t = ct.common(at, bt) if at != bt else at
        a = self.scalar(self.convert(a, at, t, e), e)
        b = self.scalar(self.convert(b, bt, t, e), e)
        signed, unsigned, flt = _COMPARE[op]
        if t.is_float:
            return self.emit1(arith.CmpfOp(a, b, flt), e)
        return self.emit1(arith.CmpiOp(a, b, signed if t.signed else unsigned), e)

    def _compound_assign(self, e: ci.Cursor) -> tuple[Value, CType]:
        op = _COMPOUND[e.binary_operator]
        lhs, rhs = children(e)
        b, bt = self.expr(rhs)  # C leaves the order unspecified; the right side first, as clang does
        place = self.lvalue(lhs, e)
        old, lt = self.read(place, e)
        if lt.kind == "ptr":
            new, nt = self._pointer_arith(op, old, lt, b, bt, e)
        else:
            computation = ct.promote(lt) if op in _SHIFTS else ct.common(lt, bt)
            new, nt = self.arith(op, old, lt, b, bt, computation, e)
        return self.write(place, new, nt, e)

    def _logical(self, e, op, lhs, rhs) -> tuple[Value, CType]:
        """`&&`/`||`: arith.andi/ori when the right side is a pure computation, else scf.if, so that
        `i < n && x[i] > 0` never reads `x[i]` out of bounds."""
        a = self.to_bool(*self.expr(lhs), lhs)
        if _pure(rhs, self.shown):
            b = self.to_bool(*self.expr(rhs), rhs)
            return self.emit1((arith.AndIOp if op == B.LAnd else arith.OrIOp)(a, b), e), ct.BOOL
        return self._select_region(e, a, rhs, None, short_circuit=op), ct.BOOL

    def _conditional(self, e: ci.Cursor) -> tuple[Value, CType]:
        cond, yes, no = children(e)
        t = self.ctype(e.type, e)
        known = evaluate(cond)
        if isinstance(known, int):  # `stochastic ? draw() : half` of a template flag: the taken arm only
            taken = yes if known else no
            return self.convert(*self.expr(taken), t, taken), t
        c = self.to_bool(*self.expr(cond), cond)
        if t.kind == "ptr" and _pure(yes, self.shown) and _pure(no, self.shown):
            a, at = self.expr(yes)  # `cnt == 0 ? out : k_cache`: a pointer chosen by the condition
            b, bt = self.expr(no)
            a, b = self.convert(a, at, t, yes), self.convert(b, bt, t, no)
            if isinstance(a, (Ptr, Choice)) and isinstance(b, (Ptr, Choice)):
                return Choice(c, a, b), t
            raise self.unsupported(f"the pointer choice `{_text(e)}`", e)
        if _pure(yes, self.shown) and _pure(no, self.shown):
            a, at = self.expr(yes)
            b, bt = self.expr(no)
            a = self.scalar(self.convert(a, at, t, yes), yes)
            b = self.scalar(self.convert(b, bt, t, no), no)
            return self.emit1(arith.SelectOp(c, a, b), e), t
        return self._select_region(e, c, yes, no, result=t), t

    def _select_region(self, e, cond: SSAValue, yes, no, short_circuit=None, result: CType = ct.BOOL) -> SSAValue:
        """An scf.if computing a value: `c ? yes : no`, or `a && b` / `a || b` (short_circuit)."""
        outer = self.env
        saved = self.block
        blocks, envs, values = [], [], []
        for arm in ("then", "else"):
            self.block, self.env = Block(), dict(outer)
            if short_circuit is not None:
                evaluates = (arm == "then") == (short_circuit == B.LAnd)
                if evaluates:
                    v = self.to_bool(*self.expr(yes), yes)
                else:
                    v = self.constant(1 if short_circuit == B.LOr else 0, ct.BOOL, e)
            else:
                arm_cursor = yes if arm == "then" else no
                v, vt = self.expr(arm_cursor)
                v = self.scalar(self.convert(v, vt, result, arm_cursor), arm_cursor)
            blocks.append(self.block)
            envs.append(self.env)
            values.append(v)
        self.block = saved
        keys = self._changed(outer, envs, e)
        flat = []
        for block, env, v in zip(blocks, envs, values):
            vals = self._yield_values(block, env, keys, e)
            block.add_op(self._at(scf.YieldOp(v, *vals), e))
            flat.append(vals)
        op = scf.IfOp(cond, [values[0].type] + [v.type for v in flat[0]], [blocks[0]], [blocks[1]])
        self.emit(op, e)
        self.env = dict(outer)
        self._bind_flat(keys, list(op.results[1:]))
        return op.results[0]

    def _unary(self, e: ci.Cursor) -> tuple[Value, CType]:
        kind = unary_operator(e, self.shown)
        operand = children(e)[0]
        if kind in INCREMENTS:
            place = self.lvalue(operand, e)
            old, t = self.read(place, e)
            one_t = ct.INT if t.kind == "ptr" else t
            one = self.constant(1, one_t, e)
            new, nt = self.arith(B.Add if "++" in kind else B.Sub, old, t, one, one_t, t, e)
            stored = self.write(place, new, nt, e)
            return stored if kind.startswith("pre") else (old, t)
        if kind == "&":
            target = _strip_parens(operand)
            if self.record_of(target.type) is not None:
                obj = self._object_of(_strip(target))
                if obj is not None:  # `&state` of a local object: the object itself, updated in place
                    return obj, OBJECT
            return self._subscript_ptr(target), self.ctype(e.type, e)
        if kind == "*":
            if self.record_of(e.type) is not None:
                pointed, _ = self.expr(operand)
                if isinstance(pointed, Obj):  # `*state` of a pointer to a local object
                    return pointed, OBJECT
            p = self._subscript_ptr(e)
            if self.record_of(e.type) is not None:  # `*rows`: the struct it points to, in memory
                return self.in_memory(p, e.type, e), OBJECT
            assert p.ctype.elem is not None
            return self.load(p, e), p.ctype.elem
        v, t = self.expr(operand)
        rt = self.ctype(e.type, e)
        if kind == "+":
            return self.convert(v, t, rt, e), rt
        if kind == "!":
            b = self.to_bool(v, t, e)
            return self.emit1(arith.XOrIOp(b, self.constant(1, ct.BOOL, e)), e), ct.BOOL
        v = self.scalar(self.convert(v, t, rt, e), e)
        if kind == "-":
            if rt.is_float:
                return self.emit1(arith.NegfOp(v), e), rt
            return self.emit1(arith.SubiOp(self.constant(0, rt, e), v), e), rt
        if kind == "~":
            return self.emit1(arith.XOrIOp(v, self.constant(-1, rt, e)), e), rt
        raise self.unsupported(f"the operator `{kind}`", e)

    def _call(self, e: ci.Cursor) -> tuple[Value, CType]:
        callee = e.referenced
        args = list(e.get_arguments())
        if callee is None:
            raise self.unsupported(f"the call `{_text(e)}`", e)
        name = callee.spelling
        if name.startswith("__builtin_") and evaluate(e) is not None:  # INFINITY, NAN
            return self._literal(e)
        if name == "printf":  # no effect on memory; its arguments still load what they read
            for a in args:
                if _strip(a).kind != K.STRING_LITERAL:
                    self.expr(a)
            return self.constant(0, ct.INT, e), ct.INT
        if name in _CONVERSION_CALLS and len(args) == 1:
            v, t = self.expr(args[0])
            rt = self.ctype(e.type, e)
            return self.convert(v, t, rt, e), rt
        if callee.kind == K.CONSTRUCTOR and self.record_of(e.type) is not None:  # `Params<T, 8>(max)`
            obj = self.new_object(e.type, e)
            self.construct(obj, e, callee, args)
            return obj, OBJECT
        if callee.kind == K.CONSTRUCTOR and (storage := ct.from_clang(e.type)) is not None \
                and ct.bit_fields(e.type.get_canonical()) is not None and len(args) <= 1:
            if not args:  # `PackedInt4()`: all bits zero
                return self.constant(0, storage, e), storage
            return self.expr(args[0])  # a copy: the same bits
        if callee.kind == K.CONVERSION_FUNCTION and callee.get_definition() is None:
            return self._raw_bits(e, self.receiver(e))
        if callee.kind == K.CXX_METHOD and name == "operator=" and self.record_of(e.type) is not None:
            kids = [c for c in children(e) if c.kind.is_expression()]
            target, _ = self.expr(kids[0])
            source, _ = self.expr(kids[-1])
            if isinstance(target, Obj) and isinstance(source, Obj):
                self.copy_object(target, source, e)
                return target, OBJECT
        if callee.kind in (K.CXX_METHOD, K.CONVERSION_FUNCTION) and not callee.is_static_method() \
                and callee.get_definition() is not None \
                and callee.semantic_parent is not None and self.record_of(callee.semantic_parent.type) is not None:
            return self.inline(e, callee, _method_args(e), this=self.receiver(e))
        rt_vec = ct.from_clang(e.type)
        if rt_vec is not None and rt_vec.kind == "vec":
            return self._vector_call(e, callee, args, rt_vec)
        if callee.kind == K.CXX_METHOD and _group_type(callee.semantic_parent.type) is not None:
            return _group_method(self, e, callee, args)
        if name == "sync" and len(args) == 1 and _group_type(args[0].type) is not None:
            return _group_sync(self, e, self.group(args[0]))
        if name == "reduce" and len(args) == 3 and _group_type(args[0].type) is not None:
            return _group_reduce(self, e, self.group(args[0]), args[1], args[2])
        special = _SPECIAL_CALLS.get(name)
        if special is not None and callee.get_definition() is None:
            return special(self, e, args)
        rule = _MATH.get(name)
        if rule is not None and callee.get_definition() is None:
            rt = self.ctype(e.type, e)
            values = []
            for a in args:
                v, t = self.expr(a)
                values.append(self.scalar(self.convert(v, t, rt, a), a))
            ops = rule(values, rt)
            for op in ops:
                self.emit(op, e)
            return ops[-1].results[0], rt
        if callee.get_definition() is not None and (callee.kind == K.FUNCTION_DECL or (
                callee.kind == K.CXX_METHOD and callee.is_static_method())):  # `numeric_limits<T>::max()` too
            return self.inline(e, callee, args)
        raise self.unsupported(f"calling `{name}`", e)


def _int_conv(lo: KernelLowering, v, src: CType, dst: CType, e) -> SSAValue:
    if dst.bits > src.bits:
        op = arith.ExtSIOp if src.signed and src.kind == "int" else arith.ExtUIOp
        return lo.emit1(op(v, IntegerType(dst.bits)), e)
    return lo.emit1(arith.TruncIOp(v, IntegerType(dst.bits)), e)


def _to_bool(lo: KernelLowering, v, src: CType, dst: CType, e) -> SSAValue:
    if src.is_float:
        return lo.emit1(arith.CmpfOp(v, lo.constant(0.0, src, e), "une"), e)
    return lo.emit1(arith.CmpiOp(v, lo.constant(0, src, e), "ne"), e)


def _int_to_float(lo: KernelLowering, v, src: CType, dst: CType, e) -> SSAValue:
    op = arith.SIToFPOp if src.signed and src.kind == "int" else arith.UIToFPOp
    return lo.emit1(op(v, dst.ir), e)


def _float_to_int(lo: KernelLowering, v, src: CType, dst: CType, e) -> SSAValue:
    return lo.emit1((arith.FPToSIOp if dst.signed else arith.FPToUIOp)(v, IntegerType(dst.bits)), e)


def _float_conv(lo: KernelLowering, v, src: CType, dst: CType, e) -> SSAValue:
    if dst.bits == src.bits:  # f16 <-> bf16: through f32
        v = lo.emit1(arith.ExtFOp(v, ct.FLOAT.ir), e)
        return lo.emit1(arith.TruncFOp(v, dst.ir), e)
    return lo.emit1((arith.ExtFOp if dst.bits > src.bits else arith.TruncFOp)(v, dst.ir), e)


_CONVERSIONS: dict[tuple[str, str], Callable[..., SSAValue]] = {
    ("int", "int"): _int_conv, ("bool", "int"): _int_conv,
    ("int", "bool"): _to_bool, ("float", "bool"): _to_bool, ("bfloat", "bool"): _to_bool,
    ("int", "float"): _int_to_float, ("bool", "float"): _int_to_float,
    ("int", "bfloat"): _int_to_float, ("bool", "bfloat"): _int_to_float,
    ("float", "int"): _float_to_int, ("bfloat", "int"): _float_to_int,
    ("float", "float"): _float_conv, ("float", "bfloat"): _float_conv, ("bfloat", "float"): _float_conv,
}
# Calls that are conversions to their result type.
_CONVERSION_CALLS = ("__float2half", "__float2half_rn", "__half2float", "__float2bfloat16",
                     "__float2bfloat16_rn", "__bfloat162float", "__int2float_rn", "__int2half_rn",
                     "__double2float_rn", "__double2half", "__double2bfloat16")

_STATEMENTS: dict[ci.CursorKind, Callable[[KernelLowering, ci.Cursor], None]] = {
    K.COMPOUND_STMT: KernelLowering._compound,
    K.DECL_STMT: KernelLowering._decl,
    K.IF_STMT: KernelLowering._if,
    K.FOR_STMT: KernelLowering._for,
    K.WHILE_STMT: KernelLowering._while_stmt,
    K.DO_STMT: KernelLowering._do,
    K.NULL_STMT: lambda lo, s: None,
    K.UNEXPOSED_STMT: KernelLowering._attributed,
    K.ASM_STMT: KernelLowering._asm,
}

_STATEMENT_NAMES = {K.BREAK_STMT: "`break`", K.SWITCH_STMT: "`switch`", K.GOTO_STMT: "`goto`",
                    K.LABEL_STMT: "with a label", K.CXX_TRY_STMT: "`try`", K.ASM_STMT: "`asm`",
                    K.CONTINUE_STMT: "`continue`", K.RETURN_STMT: "`return`"}

_EXPRESSIONS: dict[ci.CursorKind, Callable[[KernelLowering, ci.Cursor], tuple[Value, CType]]] = {
    K.INTEGER_LITERAL: KernelLowering._literal,
    K.FLOATING_LITERAL: KernelLowering._literal,
    K.CXX_BOOL_LITERAL_EXPR: KernelLowering._literal,
    K.CXX_UNARY_EXPR: KernelLowering._literal,  # sizeof
    K.SIZE_OF_PACK_EXPR: KernelLowering._literal,  # sizeof...(Ts): a constant of the instance
    K.PAREN_EXPR: KernelLowering._paren,
    K.DECL_REF_EXPR: KernelLowering._decl_ref,
    K.MEMBER_REF_EXPR: KernelLowering._member,
    K.ARRAY_SUBSCRIPT_EXPR: KernelLowering._subscript,
    K.BINARY_OPERATOR: KernelLowering._binary,
    K.COMPOUND_ASSIGNMENT_OPERATOR: KernelLowering._compound_assign,
    K.UNARY_OPERATOR: KernelLowering._unary,
    K.CONDITIONAL_OPERATOR: KernelLowering._conditional,
    K.CALL_EXPR: KernelLowering._call,
    K.INIT_LIST_EXPR: KernelLowering._init_list,
    **{kind: KernelLowering._cast for kind in _CASTS},
}


def _stride(t: ci.Type) -> int:
    """The scalars one step of a pointer of type `t` moves: a struct's size for a pointer to
    structs of one scalar type (`ctype.record_layout`), else 1."""
    canon = t.get_canonical()
    if canon.kind != ci.TypeKind.POINTER:
        return 1
    layout = ct.record_layout(canon.get_pointee())
    return layout.size if layout is not None else 1


def _scalar_of(t: ci.Type) -> ci.Type:
    """The element type of a (possibly multi-dimensional) array type; any other type itself."""
    canon = t.get_canonical()
    while _is_array(canon):
        canon = canon.element_type.get_canonical()
    return canon


def _elements_of(t: ci.Type) -> int:
    """How many scalars a member of type `t` holds: an array's all, a vector's lanes, else 1."""
    canon, count = t.get_canonical(), 1
    while canon.kind == ci.TypeKind.CONSTANTARRAY:
        count *= canon.get_array_size()
        canon = canon.element_type.get_canonical()
    vt = ct.from_clang(canon)
    return count * (vt.lanes if vt is not None else 1)


def _base_elem(p: Ptr) -> Attribute:
    """The element type of the buffer behind `p` (whatever type `p` reads it as)."""
    return p.base.type.element_type  # type: ignore[attr-defined]  # base is a memref


def _ir_bits(t: Attribute) -> int | None:
    width = getattr(t, "bitwidth", None)
    return width if isinstance(width, int) else None


def _ctype_of(t: Attribute) -> CType:
    """The CType of a buffer's IR element type."""
    if isinstance(t, IntegerType):
        return CType("int", t.width.data, True)
    return CType("bfloat", 16) if str(t) == "bf16" else CType("float", _ir_bits(t) or 32)


_CASTS = (K.CSTYLE_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.UNEXPOSED_EXPR)


def _reinterpreted_locals(fn: ci.Cursor) -> set[tuple[int, int]]:
    """The locals of `fn` whose address is cast to a pointer to another type (`(uint8_t*)&scale`,
    `&q_buf` passed as a `void*`): they live in memory as bytes, so that any view of them works."""
    found = set()
    for c in walk(fn):
        if c.kind not in _CASTS or c.type.get_canonical().kind != ci.TypeKind.POINTER:
            continue
        kids = [k for k in children(c) if k.kind.is_expression()]
        if len(kids) != 1:
            continue
        inner = _strip(kids[-1])
        tokens = list(inner.get_tokens()) if inner.kind == K.UNARY_OPERATOR and children(inner) else []
        if not tokens or tokens[0].spelling != "&":
            continue
        target = _strip(children(inner)[0])
        if target.kind != K.DECL_REF_EXPR or target.referenced is None:
            continue
        pointee = c.type.get_canonical().get_pointee().get_canonical()
        own = target.referenced.type.get_canonical()
        if pointee.spelling.replace("const ", "") != own.spelling.replace("const ", ""):
            found.add(decl_key(target.referenced))
    return found


def _addressed_locals(fn: ci.Cursor) -> set[tuple[int, int]]:
    """The local variables and parameters of `fn` whose address `&x` is taken."""
    found = set()
    for c in walk(fn):
        if c.kind == K.UNARY_OPERATOR and children(c):
            tokens = list(c.get_tokens())
            target = _strip(children(c)[0])
            lane_of = _vector_lane_base(target)
            if tokens and tokens[0].spelling == "&" and lane_of is not None:
                found.add(decl_key(lane_of))  # `float* p = &v.x;` of a float4 v: v in memory
                continue
            if tokens and tokens[0].spelling == "&" and target.kind == K.DECL_REF_EXPR and target.referenced \
                    is not None and target.referenced.kind in (K.VAR_DECL, K.PARM_DECL) \
                    and not _is_array(target.referenced.type.get_canonical()) and not _is_shared(target.referenced):
                found.add(decl_key(target.referenced))
    return found


def _vector_lane_base(e: ci.Cursor) -> ci.Cursor | None:
    """The local vector variable `v` of `v.x` (a CUDA vector type's lane), if `e` is one."""
    if e.kind != K.MEMBER_REF_EXPR or e.spelling not in _LANES or not children(e):
        return None
    base = _strip(children(e)[0])
    if base.kind != K.DECL_REF_EXPR or base.referenced is None or base.referenced.kind not in (K.VAR_DECL, K.PARM_DECL):
        return None
    found = ct.from_clang(base.referenced.type)
    return base.referenced if found is not None and found.kind == "vec" else None


def _is_pointer(t: ci.Type) -> bool:
    return t.get_canonical().kind == ci.TypeKind.POINTER


def _is_zero(v: SSAValue) -> bool:
    owner = v.owner
    return isinstance(owner, arith.ConstantOp) and getattr(owner.value, "value", None) is not None \
        and owner.value.value.data == 0


def _is_array(t: ci.Type) -> bool:
    return t.kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY, ci.TypeKind.VARIABLEARRAY,
                      ci.TypeKind.DEPENDENTSIZEDARRAY)


def _is_constant_memory(decl: ci.Cursor) -> bool:
    return any(c.kind == K.CUDACONSTANT_ATTR for c in decl.get_children())


def _is_shared(decl: ci.Cursor) -> bool:
    return decl.kind == K.VAR_DECL and any(c.kind == K.CUDASHARED_ATTR for c in children(decl))


def _method_args(call: ci.Cursor) -> list[ci.Cursor]:
    """A method call's arguments; an operator's call (`a[k]`, `a + b`) lists its object first: not one."""
    args = list(call.get_arguments())
    callee = call.referenced
    if callee is not None and callee.kind == K.CXX_METHOD and callee.spelling.startswith("operator") \
            and not any(c.kind == K.MEMBER_REF_EXPR for c in children(call)):
        definition = callee.get_definition() or callee
        if len(args) == len([c for c in children(definition) if c.kind == K.PARM_DECL]) + 1:
            return args[1:]
    return args


def _same_place(cast: ci.Cursor) -> bool:
    """A cast to a reference to its operand's own type (`reinterpret_cast<T&>(data[k])`, an
    implicit conversion of an lvalue): the operand's place itself."""
    kids = [c for c in children(cast) if c.kind.is_expression()]
    if len(kids) != 1:
        return False
    t = cast.type.get_canonical()
    if t.kind in (ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE):
        t = t.get_pointee().get_canonical()
    inner = kids[0].type.get_canonical()
    return t.spelling.removeprefix("const ") == inner.spelling.removeprefix("const ")


def _strip_parens(cursor: ci.Cursor) -> ci.Cursor:
    while cursor.kind == K.PAREN_EXPR:
        cursor = children(cursor)[0]
    return cursor


def _breaks(body: ci.Cursor) -> bool:
    """A `break` of the loop whose body is `body` (not of a nested loop)."""
    return any(c.kind == K.BREAK_STMT for c in _walk_loop(body))


def _returns(s: ci.Cursor) -> bool:
    return any(c.kind == K.RETURN_STMT for c in walk(s))


def _walk_loop(cursor: ci.Cursor):
    """Like walk, without entering nested loops (their `break` is theirs)."""
    yield cursor
    for c in cursor.get_children():
        if c.kind not in _LOOPS:
            yield from _walk_loop(c)


def _pure(e: ci.Cursor, shown: str) -> bool:
    """No memory access, call, division or assignment: safe to evaluate unconditionally."""
    for c in walk(e):
        if c.kind in (K.ARRAY_SUBSCRIPT_EXPR, K.CALL_EXPR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            return False
        if c.kind == K.BINARY_OPERATOR and (c.binary_operator.is_assignment
                                            or c.binary_operator in (B.Div, B.Rem)):
            return False
        if c.kind == K.UNARY_OPERATOR and unary_operator(c, shown) not in ("+", "-", "!", "~", "&"):
            return False
    return True


def _text(cursor: ci.Cursor) -> str:
    text = " ".join(t.spelling for t in cursor.get_tokens())
    return text if len(text) <= 60 else text[:57] + "..."


def memref_uses(fn: func.FuncOp) -> list[tuple[bool, bool]]:
    """(read, written) for each argument of a lowered kernel."""
    found = []
    for arg in fn.body.blocks[0].args:
        reads = writes = False
        for use in arg.uses:
            atomic = isinstance(use.operation, (memref.AtomicRMWOp, simt.AtomicCasOp))
            reads |= isinstance(use.operation, memref.LoadOp) or atomic
            writes |= (isinstance(use.operation, memref.StoreOp) and use.index == 1) or atomic
        found.append((reads, writes))
    return found


# ---------------------------------------------------------------- intrinsics (calls lowered by name)
FULL_MASK = 0xFFFFFFFF


def _is_default_arg(c: ci.Cursor) -> bool:
    """A defaulted argument (clang's CXXDefaultArgExpr has no children or tokens)."""
    while c.kind == K.UNEXPOSED_EXPR and len(children(c)) == 1:
        c = children(c)[0]
    return c.kind == K.UNEXPOSED_EXPR and not children(c) and not list(c.get_tokens())


def _arg(lo: KernelLowering, a: ci.Cursor | None, t: CType, default: int | None = None,
         at: ci.Cursor | None = None) -> SSAValue:
    """Argument `a` converted to `t`; `default` where it is missing or defaulted."""
    if a is None or _is_default_arg(a):
        assert default is not None and at is not None
        return lo.constant(default, t, at)
    v, vt = lo.expr(a)
    return lo.scalar(lo.convert(v, vt, t, a), a)


def _address(lo: KernelLowering, a: ci.Cursor, e: ci.Cursor) -> Ptr:
    v, _ = lo.expr(a)
    if not isinstance(v, Ptr):
        raise lo.unsupported(f"the address `{_text(a)}`", e)
    return v


def _barrier(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
    lo.emit(gpu.BarrierOp(), e)
    return Undef(ct.VOID), ct.VOID


def _syncwarp(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
    mask = _arg(lo, args[0] if args else None, ct.UINT, FULL_MASK, e)
    lo.emit(simt.SyncWarpOp.create(operands=[mask]), e)
    return Undef(ct.VOID), ct.VOID


def _ldg(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
    """`__ldg(p)` and the other cache-hinted loads (`__ldcs`, `__ldcg`, ...): a plain load here
    (the hint changes where the line is cached, not the value)."""
    p = _address(lo, args[0], e)
    assert p.ctype.elem is not None
    return lo.load(p, e), p.ctype.elem


def _cache_hinted_store(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
    """`__stcs(p, v)`, `__stcg`, `__stwt`, `__stwb`: `*p = v` with a cache hint, a plain store here."""
    p = _address(lo, args[0], e)
    assert p.ctype.elem is not None
    v, t = lo.expr(args[1])
    lo.store(p, v if p.ctype.elem.kind == "vec" else lo.convert(lo.scalar(v, args[1]), t, p.ctype.elem, args[1]), e)
    return Undef(ct.VOID), ct.VOID


def _rounded_to_int(rounding: type[Operation] | None):
    """`__float2int_rn(x)` and its kin: round as the suffix says (_rn to nearest even, _rd down, _ru
    up, _rz toward zero: C's own conversion), then convert to the integer type."""
    def lower(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
        v, t = lo.expr(args[0])
        v = lo.scalar(v, args[0])
        if rounding is not None:
            v = lo.emit1(rounding(v), e)
        rt = lo.ctype(e.type, e)
        return lo.convert(v, t, rt, e), rt
    return lower


def _to_shared_window(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
    """`__cvta_generic_to_shared(p)`: the address inline PTX's `ld.shared`/`st.shared` take."""
    p, _ = lo.expr(args[0])
    if not isinstance(p, Ptr):
        raise lo.unsupported(f"`{_text(e)}` of something that is not a buffer", e)
    return Address(p), lo.ctype(e.type, e)


def _float_constant(value: float):
    """`__builtin_inff()` (what `numeric_limits<float>::infinity()` returns), `__builtin_nanf("")`."""
    def lower(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
        rt = lo.ctype(e.type, e)
        return lo.constant(value, rt, e), rt
    return lower


def _memcpy(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
    """Device-side `memcpy(dst, src, bytes)` with a constant byte count between buffers of one
    element type (a packed vector moved into registers): the elements it spans, one by one."""
    if len(args) != 3 or not isinstance(evaluate(args[2]), int):
        raise lo.unsupported("`memcpy` with a byte count that is not a constant", e)
    dst, src = (lo.expr(a)[0] for a in args[:2])
    if not (isinstance(dst, Ptr) and isinstance(src, Ptr)) or _base_elem(dst) != _base_elem(src):
        raise lo.unsupported("`memcpy` between buffers of different element types", e)
    bits, width = 8 * evaluate(args[2]), _ir_bits(_base_elem(src))
    if width is None or bits % width:
        raise lo.unsupported(f"`memcpy` of {evaluate(args[2])} bytes: not whole `{_base_elem(src)}` elements", e)
    for k in range(bits // width):
        value = lo.emit1(memref.LoadOp.get(src.base, lo.indices(lo._element(src, k, e), e)), e)
        lo.emit(memref.StoreOp.get(value, dst.base, lo.indices(lo._element(dst, k, e), e)), e)
    return dst, CType("ptr", 64, False, ct.VOID)


def _bit_cast(source: CType, result: CType):
    """`__float_as_uint(x)` and its kin: the operand's bits read as another type of the same width."""
    def lower(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
        v = _arg(lo, args[0], source)
        return lo.emit1(arith.BitcastOp(v, result.ir), e), result

    return lower


def _fence(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
    """`__threadfence()` (and its block and system scopes): orders this thread's memory operations
    as other threads see them. The emulator runs each operation for every thread before the next, so
    every write is already visible: nothing to emit. (What a fence does not give, a barrier, is still
    checked: LC207.)"""
    return Undef(ct.VOID), ct.VOID


def _mul24(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
    """`__mul24(a, b)` / `__umul24`: the low 32 bits of the product of the operands' low 24 bits,
    which is the plain product for operands that fit in 24 bits (what the intrinsic is used for)."""
    rt = lo.ctype(e.type, e)
    mask = lo.constant((1 << 24) - 1, rt, e)
    a, b = (lo.emit1(arith.AndIOp(_arg(lo, x, rt), mask), e) for x in args[:2])
    if rt.signed:  # sign-extend bit 23: shift left by 8, then arithmetically right by 8
        eight = lo.constant(8, rt, e)
        a, b = (lo.emit1(arith.ShRSIOp(lo.emit1(arith.ShLIOp(x, eight), e), eight), e) for x in (a, b))
    return lo.emit1(arith.MuliOp(a, b), e), rt


def _shuffle(mode: str):
    def lower(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
        rt = lo.ctype(e.type, e)
        mask = _arg(lo, args[0], ct.UINT)
        v = _arg(lo, args[1], rt)
        offset = _arg(lo, args[2], ct.INT)
        width = _arg(lo, args[3] if len(args) > 3 else None, ct.INT, 32, e)
        return lo.emit1(simt.ShuffleOp.create(operands=[v, offset, mask, width], result_types=[rt.ir],
                                              properties={"mode": StringAttr(mode)}), e), rt

    return lower


def _vote(mode: str):
    def lower(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
        mask = _arg(lo, args[0], ct.UINT)
        pred = lo.to_bool(*lo.expr(args[1]), args[1])
        result = ct.UINT if mode == "ballot" else ct.BOOL
        v = lo.emit1(simt.VoteOp.create(operands=[pred, mask], result_types=[result.ir],
                                        properties={"mode": StringAttr(mode)}), e)
        rt = lo.ctype(e.type, e)
        return lo.convert(v, result, rt, e), rt

    return lower


# MLIR's AtomicRMWKind numbers for (float, signed int, unsigned int) elements; None: no such atomic.
_RMW_KINDS: dict[str, tuple[int | None, int, int]] = {
    "atomicAdd": (0, 1, 1), "atomicExch": (2, 2, 2), "atomicMax": (3, 4, 5), "atomicMin": (6, 7, 8),
    "atomicOr": (None, 11, 11), "atomicAnd": (None, 12, 12), "atomicXor": (None, 15, 15),  # xori
}


def _atomic(name: str):
    def lower(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
        p = _address(lo, args[0], e)
        t = p.ctype.elem
        assert t is not None
        kinds = _RMW_KINDS["atomicAdd" if name == "atomicSub" else name]
        kind = kinds[0] if t.is_float else kinds[1] if t.signed else kinds[2]
        if kind is None:
            raise lo.unsupported(f"`{name}` on {t.dtype}", e)
        v = _arg(lo, args[1], t)
        if name == "atomicSub":  # old - v wraps as old + (-v) does
            kind = kinds[1]
            v = lo.emit1(arith.SubiOp(lo.constant(0, t, e), v), e)
        op = memref.AtomicRMWOp.build(operands=[v, p.base, lo.indices(p, e)], result_types=[t.ir],
                                       properties={"kind": IntegerAttr(kind, IntegerType(64))})
        return lo.emit1(op, e), t

    return lower


def _atomic_cas(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
    p = _address(lo, args[0], e)
    t = p.ctype.elem
    assert t is not None
    if p.rank != 1:
        raise lo.unsupported("`atomicCAS` on a multi-dimensional array", e)
    compare, value = _arg(lo, args[1], t), _arg(lo, args[2], t)
    [index] = lo.indices(p, e)
    op = simt.AtomicCasOp.create(operands=[p.base, index, compare, value], result_types=[t.ir])
    return lo.emit1(op, e), t


def _half_binary(op_of: B):
    """`__hadd(a, b)` etc.: the operation in the arguments' own type (f16/bf16)."""
    def lower(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
        rt = lo.ctype(e.type, e)
        a, b = _arg(lo, args[0], rt), _arg(lo, args[1], rt)
        return lo.arith(op_of, a, rt, b, rt, rt, e)

    return lower


def _half_fma(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
    rt = lo.ctype(e.type, e)
    a, b, c = (_arg(lo, x, rt) for x in args)
    return lo.emit1(mathd.FmaOp(a, b, c), e), rt


# Pairs of halves: constructors, broadcasts, conversions, and lane-wise ops (lane op, elem type, cursor).
# Names as shim.h's __LC_HALF2_CONVERSIONS spells them, for S = half and bfloat16.
_HALVES = ("half", "bfloat16")
_PAIR_MAKERS = tuple(n for S in _HALVES for n in (f"__floats2{S}2_rn", f"__halves2{S}2"))
_PAIR_BROADCASTS = tuple(n for S in _HALVES for n in (f"__float2{S}2_rn", f"__{S}2{S}2"))
_PAIR_CONVERSIONS = tuple(n for S in _HALVES for n in (f"__{S}22float2", f"__float22{S}2_rn"))
_PAIR_LANEWISE: dict[str, Callable[..., SSAValue]] = {
    **{name: (lambda lo, v, t, e, op=op: lo.arith(op, v[0], t, v[1], t, t, e)[0])
       for name, op in (("__hadd2", B.Add), ("__hsub2", B.Sub), ("__hmul2", B.Mul), ("__h2div", B.Div))},
    "__hfma2": lambda lo, v, t, e: lo.emit1(mathd.FmaOp(v[0], v[1], v[2]), e),
    "__hmax2": lambda lo, v, t, e: lo.emit1(arith.MaximumfOp(v[0], v[1]), e),
    "__hmin2": lambda lo, v, t, e: lo.emit1(arith.MinimumfOp(v[0], v[1]), e),
    "__hneg2": lambda lo, v, t, e: lo.emit1(arith.NegfOp(v[0]), e),
}


def _in_float32(op: type[Operation]):
    """A half-precision lane's math as CUDA computes it: in float32, rounded back to the lane type."""
    def lane(lo: KernelLowering, v: list[SSAValue], t: CType, e: ci.Cursor) -> SSAValue:
        wide = lo.convert(v[0], t, ct.FLOAT, e)
        return lo.convert(lo.emit1(op(wide), e), ct.FLOAT, t, e)
    return lane


_PAIR_LANEWISE.update({
    f"{prefix}{name}": _in_float32(op) for name, op in (
        ("sqrt", mathd.SqrtOp), ("rsqrt", mathd.RsqrtOp), ("exp", mathd.ExpOp), ("exp2", mathd.Exp2Op),
        ("log", mathd.LogOp), ("log2", mathd.Log2Op), ("log10", mathd.Log10Op), ("sin", mathd.SinOp),
        ("cos", mathd.CosOp), ("floor", mathd.FloorOp), ("ceil", mathd.CeilOp), ("trunc", mathd.TruncOp),
        ("rint", mathd.RoundEvenOp)) for prefix in ("h2",)})
_PAIR_LANEWISE["__habs2"] = lambda lo, v, t, e: lo.emit1(mathd.AbsFOp(v[0]), e)
_PAIR_LANEWISE["h2rcp"] = lambda lo, v, t, e: lo.arith(B.Div, lo.constant(1.0, t, e), t, v[0], t, t, e)[0]


def _half_math(lane: Callable[..., SSAValue]):
    """A scalar half's math (`__habs(h)`, `hexp(h)`): the pair intrinsic's lane function on one lane."""
    def lower(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
        rt = lo.ctype(e.type, e)
        return lane(lo, [_arg(lo, args[0], rt)], rt, e), rt

    return lower


# `hexp(h)` is the lane of `h2exp(h2)`, `__habs(h)` of `__habs2(h2)`
_HALF_MATH = {("__habs" if name == "__habs2" else "h" + name[2:]): _half_math(lane)
              for name, lane in _PAIR_LANEWISE.items() if name == "__habs2" or name.startswith("h2")}
# C++'s operators on two pairs (cuda_fp16.hpp): lane by lane, as the intrinsics they stand for
_PAIR_OPERATORS = {"operator+": "__hadd2", "operator-": "__hsub2", "operator*": "__hmul2", "operator/": "__h2div",
                   "operator+=": "__hadd2", "operator-=": "__hsub2", "operator*=": "__hmul2",
                   "operator/=": "__h2div"}


def _pair_lane(k: int):
    """`__low2float(h2)` (k = 0), `__high2half(h2)` (k = 1): one lane, converted to the result type."""
    def lower(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
        v, vt = lo.expr(args[0])
        assert vt.elem is not None
        rt = lo.ctype(e.type, e)
        return lo.convert(lo.vec(v, vt, args[0]).lanes[k], vt.elem, rt, e), rt

    return lower


def _half_minmax(cls: type[Operation]):
    def lower(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
        rt = lo.ctype(e.type, e)
        return lo.emit1(cls(_arg(lo, args[0], rt), _arg(lo, args[1], rt)), e), rt

    return lower


def _half_neg(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
    rt = lo.ctype(e.type, e)
    return lo.emit1(arith.NegfOp(_arg(lo, args[0], rt)), e), rt


def _half_compare(op_of: B):
    def lower(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
        t = lo.ctype(_strip(args[0]).type, args[0])
        a, b = _arg(lo, args[0], t), _arg(lo, args[1], t)
        rt = lo.ctype(e.type, e)
        return lo.convert(lo._compare(op_of, a, t, b, t, e), ct.BOOL, rt, e), rt

    return lower


def _float_class(kind: str):
    """`isnan(x)`, `isinf(x)`, `isfinite(x)` (C's macros, CUDA's device functions): comparisons,
    NaN unordered with itself; an integer is never NaN nor infinite."""
    def lower(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
        v, t = lo.expr(args[0])
        if not t.is_float:
            return lo.constant(int(kind == "isfinite"), ct.BOOL, e), ct.BOOL
        x = lo.scalar(v, args[0])
        if kind == "isnan":
            return lo.emit1(arith.CmpfOp(x, x, "uno"), e), ct.BOOL
        magnitude = lo.emit1(mathd.AbsFOp(x), e)
        infinity = lo.constant(float("inf"), t, e)
        return lo.emit1(arith.CmpfOp(magnitude, infinity, "oeq" if kind == "isinf" else "olt"), e), ct.BOOL
    return lower


def _active_mask(lo: KernelLowering, e: ci.Cursor) -> SSAValue:
    """`__activemask()`: the lanes of the warp that run this (i32 bits)."""
    return lo.emit1(simt.VoteOp.create(operands=[lo.constant(1, ct.BOOL, e), lo.constant(FULL_MASK, ct.UINT, e)],
                                       result_types=[ct.UINT.ir], properties={"mode": StringAttr("active")}), e)


def _bit_count(kind: str, bits: int):
    """`__popc`, `__clz`, `__ffs` (and their 64-bit `ll` forms): math's ctpop / ctlz / cttz; `__ffs`
    is the lowest set bit counted from 1, 0 for no bit."""
    def lower(lo: KernelLowering, e: ci.Cursor, args: list[ci.Cursor]) -> tuple[Value, CType]:
        t = CType("int", bits, False)
        x = _arg(lo, args[0], t)
        if kind == "popc":
            v = lo.emit1(mathd.CtPopOp(x), e)
        elif kind == "clz":
            v = lo.emit1(mathd.CountLeadingZerosOp(x), e)
        else:
            first = lo.emit1(arith.AddiOp(lo.emit1(mathd.CountTrailingZerosOp(x), e), lo.constant(1, t, e)), e)
            none = lo.emit1(arith.CmpiOp(x, lo.constant(0, t, e), "eq"), e)
            v = lo.emit1(arith.SelectOp(none, lo.constant(0, t, e), first), e)
        return lo.convert(v, t, ct.INT, e), ct.INT

    return lower


_SPECIAL_CALLS: dict[str, Callable[[KernelLowering, ci.Cursor, list[ci.Cursor]], tuple[Value, CType]]] = {
    **{name: _float_class(kind) for kind in ("isnan", "isinf", "isfinite")
       for name in (kind, f"__{kind}f", f"__{kind}d", f"std::{kind}")},
    "__syncthreads": _barrier,
    "__syncwarp": _syncwarp,
    **{name: _ldg for name in ("__ldg", "__ldcs", "__ldcg", "__ldca", "__ldcv", "__ldlu")},
    **{name: _cache_hinted_store for name in ("__stcs", "__stcg", "__stwt", "__stwb")},
    "__mul24": _mul24, "__umul24": _mul24, "memcpy": _memcpy, "__cvta_generic_to_shared": _to_shared_window,
    **{name: _fence for name in ("__threadfence", "__threadfence_block", "__threadfence_system")},
    **{name: _bit_cast(source, result) for name, source, result in (
        ("__float_as_uint", ct.FLOAT, ct.UINT), ("__float_as_int", ct.FLOAT, ct.INT),
        ("__uint_as_float", ct.UINT, ct.FLOAT), ("__int_as_float", ct.INT, ct.FLOAT),
        ("__double_as_longlong", ct.DOUBLE, ct.INT64), ("__longlong_as_double", ct.INT64, ct.DOUBLE))},
    **{name: _float_constant(value) for name, value in (
        ("__builtin_inff", math.inf), ("__builtin_inf", math.inf), ("__builtin_huge_valf", math.inf),
        ("__builtin_huge_val", math.inf), ("__builtin_nanf", math.nan), ("__builtin_nan", math.nan))},
    **{f"__{src}2{dst}_{mode}": _rounded_to_int(rounding)
       for src in ("float", "double") for dst in ("int", "uint", "ll", "ull")
       for mode, rounding in (("rn", mathd.RoundEvenOp), ("rd", mathd.FloorOp), ("ru", mathd.CeilOp),
                              ("rz", None))},
    **{f"__shfl{suffix}_sync": _shuffle(mode)
       for suffix, mode in (("", "idx"), ("_up", "up"), ("_down", "down"), ("_xor", "xor"))},
    **{f"__{mode}_sync": _vote(mode) for mode in ("ballot", "any", "all")},
    "__activemask": lambda lo, e, args: (_active_mask(lo, e), ct.UINT),
    **{f"__{kind}{suffix}": _bit_count(kind, bits) for kind in ("popc", "clz", "ffs")
       for suffix, bits in (("", 32), ("ll", 64))},
    **{name: _atomic(name) for name in (*_RMW_KINDS, "atomicSub")},
    "atomicCAS": _atomic_cas,
    **{f"__{which}2{to}": _pair_lane(k) for k, which in enumerate(("low", "high"))
       for to in ("float", "half", "bfloat16")},
    "__hadd": _half_binary(B.Add), "__hsub": _half_binary(B.Sub), "__hmul": _half_binary(B.Mul),
    "__hdiv": _half_binary(B.Div), "__hfma": _half_fma, "__hneg": _half_neg,
    "__hmax": _half_minmax(arith.MaximumfOp), "__hmin": _half_minmax(arith.MinimumfOp),
    **_HALF_MATH,
    "__heq": _half_compare(B.EQ), "__hne": _half_compare(B.NE), "__hlt": _half_compare(B.LT),
    "__hle": _half_compare(B.LE), "__hgt": _half_compare(B.GT), "__hge": _half_compare(B.GE),
}


# ---------------------------------------------------------------- cooperative_groups
def _group_type(t: ci.Type) -> Group | None:
    """The Group of a `cooperative_groups::thread_block` / `thread_block_tile<N>` type."""
    canon = t.get_canonical()
    decl = canon.get_declaration()
    if decl is None or decl.semantic_parent is None or decl.semantic_parent.spelling != "cooperative_groups":
        return None
    if decl.spelling == "thread_block":
        return Group(None)
    if decl.spelling == "coalesced_group":
        return Group(32, coalesced=True)
    m = re.search(r"thread_block_tile<(\d+)", canon.spelling)
    return Group(int(m.group(1))) if decl.spelling == "thread_block_tile" and m else None


def _is_group_method(call: ci.Cursor) -> bool:
    callee = call.referenced
    return callee is not None and callee.kind == K.CXX_METHOD and _group_type(callee.semantic_parent.type) is not None


def _linear_thread(lo: KernelLowering, e: ci.Cursor) -> SSAValue:
    """threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y (i32)."""
    def builtin(op, dim):
        return lo.emit1(arith.IndexCastOp(lo.emit1(op(gpu.DimensionAttr(_DIMS[dim])), e), IntegerType(32)), e)
    bx, by = builtin(gpu.BlockDimOp, "x"), builtin(gpu.BlockDimOp, "y")
    rank = builtin(gpu.ThreadIdOp, "x")
    rank = lo.emit1(arith.AddiOp(rank, lo.emit1(arith.MuliOp(builtin(gpu.ThreadIdOp, "y"), bx), e)), e)
    plane = lo.emit1(arith.MuliOp(bx, by), e)
    return lo.emit1(arith.AddiOp(rank, lo.emit1(arith.MuliOp(builtin(gpu.ThreadIdOp, "z"), plane), e)), e)


def _block_size(lo: KernelLowering, e: ci.Cursor) -> SSAValue:
    dims = [lo.emit1(arith.IndexCastOp(lo.emit1(gpu.BlockDimOp(gpu.DimensionAttr(_DIMS[d])), e),
                                      IntegerType(32)), e) for d in "xyz"]
    return lo.emit1(arith.MuliOp(lo.emit1(arith.MuliOp(dims[0], dims[1]), e), dims[2]), e)


def _group_sync(lo: KernelLowering, e: ci.Cursor, group: Group) -> tuple[Value, CType]:
    if group.size is None:
        lo.emit(gpu.BarrierOp(), e)
    else:  # a tile's lanes are all in one warp; every lane of it calls sync
        lo.emit(simt.SyncWarpOp.create(operands=[lo.constant(FULL_MASK, ct.UINT, e)]), e)
    return Undef(ct.VOID), ct.VOID


def _group_method(lo: KernelLowering, e: ci.Cursor, method: ci.Cursor,
                  args: list[ci.Cursor]) -> tuple[Value, CType]:
    """`g.sync()`, `g.thread_rank()`, `g.size()`, and a tile's `shfl*`/`any`/`all`/`ballot`: the
    warp intrinsics with the full mask and the tile's width."""
    kids = children(e)
    member = kids[0] if kids and kids[0].kind == K.MEMBER_REF_EXPR else None
    obj = children(member)[0] if member is not None and children(member) else None
    if obj is None:
        raise lo.unsupported(f"the call `{_text(e)}`", e)
    group = lo.group(obj)
    name = method.spelling
    if name == "sync":
        return _group_sync(lo, e, group)
    name = "size" if name == "num_threads" else name  # the newer spelling of a group's size
    if group.coalesced:
        return _coalesced_method(lo, e, name, args)
    if name in ("thread_rank", "size", "meta_group_rank", "meta_group_size"):
        if group.size is None:
            value = _linear_thread(lo, e) if name == "thread_rank" else _block_size(lo, e) if name == "size" \
                else lo.constant(0 if name == "meta_group_rank" else 1, ct.UINT, e)
        elif name == "size":
            value = lo.constant(group.size, ct.UINT, e)
        else:
            n = lo.constant(group.size, ct.UINT, e)
            if name == "meta_group_size":  # ceil(block size / N)
                total = lo.emit1(arith.AddiOp(_block_size(lo, e), lo.constant(group.size - 1, ct.UINT, e)), e)
                value = lo.emit1(arith.DivUIOp(total, n), e)
            else:
                op = arith.RemUIOp if name == "thread_rank" else arith.DivUIOp
                value = lo.emit1(op(_linear_thread(lo, e), n), e)
        return value, ct.UINT
    if group.size is None:
        raise lo.unsupported(f"`{name}` on a thread block (only tiles shuffle and vote)", e)
    shuffle = {"shfl": "idx", "shfl_up": "up", "shfl_down": "down", "shfl_xor": "xor"}.get(name)
    mask = lo.constant(FULL_MASK, ct.UINT, e)
    if shuffle is not None:
        rt = lo.ctype(e.type, e)
        v, offset = _arg(lo, args[0], rt), _arg(lo, args[1], ct.INT)
        width = lo.constant(group.size, ct.INT, e)
        return lo.emit1(simt.ShuffleOp.create(operands=[v, offset, mask, width], result_types=[rt.ir],
                                              properties={"mode": StringAttr(shuffle)}), e), rt
    if name in ("any", "all", "ballot"):
        if group.size != 32:
            raise lo.unsupported(f"`{name}` on a tile of {group.size} threads (only 32)", e)
        pred = lo.to_bool(*lo.expr(args[0]), args[0])
        result = ct.UINT if name == "ballot" else ct.BOOL
        v = lo.emit1(simt.VoteOp.create(operands=[pred, mask], result_types=[result.ir],
                                        properties={"mode": StringAttr(name)}), e)
        rt = lo.ctype(e.type, e)
        return lo.convert(v, result, rt, e), rt
    raise lo.unsupported(f"the cooperative_groups call `{name}`", e)


def _coalesced_method(lo: KernelLowering, e: ci.Cursor, name: str, args: list[ci.Cursor]) -> tuple[Value, CType]:
    """A `coalesced_group`'s calls: its size is the number of active lanes, a lane's rank the
    active lanes below it; its shuffles and votes are the warp's over the active mask (which give
    the group's own results when the active lanes are the warp's first, as under `if (tid < 32)`)."""
    mask = _active_mask(lo, e)
    if name == "size":
        return lo.emit1(mathd.CtPopOp(mask), e), ct.UINT
    if name == "thread_rank":
        lane = lo.emit1(arith.RemUIOp(_linear_thread(lo, e), lo.constant(32, ct.UINT, e)), e)
        below = lo.emit1(arith.SubiOp(lo.emit1(arith.ShLIOp(lo.constant(1, ct.UINT, e), lane), e),
                                      lo.constant(1, ct.UINT, e)), e)
        return lo.emit1(mathd.CtPopOp(lo.emit1(arith.AndIOp(mask, below), e)), e), ct.UINT
    if name == "sync":
        lo.emit(simt.SyncWarpOp.create(operands=[mask]), e)
        return Undef(ct.VOID), ct.VOID
    shuffle = {"shfl": "idx", "shfl_up": "up", "shfl_down": "down", "shfl_xor": "xor"}.get(name)
    if shuffle is not None:
        rt = lo.ctype(e.type, e)
        v, offset = _arg(lo, args[0], rt), _arg(lo, args[1], ct.INT)
        return lo.emit1(simt.ShuffleOp.create(operands=[v, offset, mask, lo.constant(32, ct.INT, e)],
                                              result_types=[rt.ir], properties={"mode": StringAttr(shuffle)}), e), rt
    if name in ("any", "all", "ballot"):
        pred = lo.to_bool(*lo.expr(args[0]), args[0])
        result = ct.UINT if name == "ballot" else ct.BOOL
        v = lo.emit1(simt.VoteOp.create(operands=[pred, mask], result_types=[result.ir],
                                        properties={"mode": StringAttr(name)}), e)
        rt = lo.ctype(e.type, e)
        return lo.convert(v, result, rt, e), rt
    raise lo.unsupported(f"the coalesced_group call `{name}`", e)


# A group's queries: pure, the same on every trip of a loop.
_GROUP_QUERIES = ("size", "num_threads", "thread_rank", "meta_group_rank", "meta_group_size", *_BLOCK_QUERIES)

# cooperative_groups' function objects -> the combining op for (signed int, unsigned int, float)
_GROUP_COMBINES = {
    "plus": _int_or_float(arith.AddiOp, arith.AddiOp, arith.AddfOp),
    "less": _int_or_float(arith.MinSIOp, arith.MinUIOp, arith.MinimumfOp),
    "greater": _int_or_float(arith.MaxSIOp, arith.MaxUIOp, arith.MaximumfOp),
    "bit_and": _int_or_float(arith.AndIOp, arith.AndIOp, None),
    "bit_or": _int_or_float(arith.OrIOp, arith.OrIOp, None),
    "bit_xor": _int_or_float(arith.XOrIOp, arith.XOrIOp, None),
}


def _group_reduce(lo: KernelLowering, e: ci.Cursor, group: Group, value: ci.Cursor,
                  op: ci.Cursor) -> tuple[Value, CType]:
    """`cg::reduce(tile, v, cg::plus<T>())`: every lane gets the combination of the tile's values,
    as the butterfly `v = op(v, tile.shfl_xor(v, o))` for o = N/2, ..., 1."""
    if group.size is None:
        raise lo.unsupported("`cg::reduce` over a whole thread block (only over a thread_block_tile)", e)
    if group.size & (group.size - 1) or group.size > 32:
        raise lo.unsupported(f"`cg::reduce` over a tile of {group.size} threads (a power of two up to 32)", e)
    decl = op.type.get_canonical().get_declaration()
    name = decl.spelling if decl is not None else ""
    rt = lo.ctype(e.type, e)
    combine = _GROUP_COMBINES.get(name, lambda t: None)(rt)
    if combine is None:
        raise lo.unsupported(f"`cg::reduce` with the operator `{_text(op)}` on {rt.dtype}", op)
    v = _arg(lo, value, rt)
    mask, width = lo.constant(FULL_MASK, ct.UINT, e), lo.constant(group.size, ct.INT, e)
    offset = group.size // 2
    while offset >= 1:
        other = lo.emit1(simt.ShuffleOp.create(operands=[v, lo.constant(offset, ct.INT, e), mask, width],
                                                result_types=[rt.ir], properties={"mode": StringAttr("xor")}), e)
        v = lo.emit1(combine(v, other), e)
        offset //= 2
    return v, rt
