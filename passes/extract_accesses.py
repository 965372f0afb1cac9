"""`extract-accesses`: every load, store and atomic of an entry's launches as `access` ops.

The pass evaluates each launched kernel symbolically: every SSA value becomes an index expression
over tagged variables (see `lowercheck.symbolic`), a boolean condition, a pointer (buffer + offset),
or *opaque* (a loaded value, a float). CUDA IR and Triton TTIR share the evaluator; each op is one
small rule in a table keyed by op name.

- CUDA: `gpu.thread_id x|y|z` -> LANE0..2, `gpu.block_id` -> GRID0..2, `gpu.block_dim`/`grid_dim` ->
  the launch's extents; `scf.if` adds its condition to the guard; `scf.for` adds a SEQ variable
  (iv = lb + SEQ*step, lb + SEQ*step < ub).
- Triton: a tensor value is an expression over one LANE variable per tensor dimension. Each
  `tt.make_range` starts a new lane; `expand_dims`/`broadcast` move lanes to their dimension;
  combining two tensors unifies their lanes position by position, and a lane appearing in two
  dimensions (`offs[:, None]` with `offs[None, :]`) is split into two.
- Anything the evaluator cannot express (an index computed from a loaded value, a `while` loop)
  becomes `access.unmodelled` with the reason: never a silent pass.

Input: a module with one `kernel.entry` and its kernels. Output: the `kernel.entry` and one
`access.kernel` per launch; the kernel functions are removed.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import sympy
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from lowercheck import symbolic
from lowercheck.dialects.access import AccessOp, BufferOp, IndirectOp, KernelOp, UnmodelledOp
from lowercheck.dialects.kernel import BOUNDS_CHECKED, EntryOp, LaunchOp, split_view
from lowercheck.dialects.sources import MOVED, MOVES, earlier, lane_step, merged, prefix, read_id
from lowercheck.dialects.tt import ATOMIC_RMW_OPS, TensorDescType

# ---------------------------------------------------------------------------------------------
# Symbolic values


@dataclass(frozen=True)
class Opaque:
    """A value the index algebra cannot see (a loaded float, an unsupported op); `why` says which."""

    why: str
    sources: frozenset[str] = frozenset()
    dims: tuple[sympy.Symbol | None, ...] = ()  # a loaded tile's lanes, per dimension
    accum: frozenset[str] = frozenset()  # float types the value's additions were done in (LC305)
    # How the values of several work items, lanes or trips were combined into this one (`COMBINERS`):
    # a row sum's result is {"sum"}, a softmax's {"max", "sum"} (LC204 compares them).
    combined: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Tile:
    """A scalar (dims == ()) or a tensor: `expr` over the lanes in `dims` (None: broadcast dim).

    `expr` is an integer expression or a boolean condition; `sources` are the ids of the reads the
    value was computed from (for the dependence map)."""

    expr: sympy.Basic
    dims: tuple[sympy.Symbol | None, ...] = ()
    sources: frozenset[str] = frozenset()
    # Subexpressions computed in 32-bit integers on the way to this value (LC209), over the same lanes.
    narrow: frozenset[sympy.Basic] = frozenset()


@dataclass(frozen=True)
class Pointer:
    """`buffer` + `offset` elements; `offset` is a Tile (tensor of pointers in Triton)."""

    buffer: str
    offset: Tile
    element_type: Attribute | None = None
    space: str = "global"  # global | shared (one per block) | local (one per thread)
    unknown: str | None = None  # why the offset is not an index expression (the buffer is still known)
    unknown_sources: frozenset[str] = frozenset()  # the reads an unknown offset was computed from


@dataclass(frozen=True)
class Descriptor:
    """A tensor descriptor (`tl.make_tensor_descriptor`, TMA): a buffer viewed as `shape` with
    `strides`; a block load or store at per-dimension indices touches the block's elements that lie
    inside `shape` (the hardware pads the rest on loads and drops it on stores)."""

    base: Pointer
    shape: tuple[sympy.Basic, ...]
    strides: tuple[sympy.Basic, ...]


Value = Opaque | Tile | Pointer | Descriptor


class NotModelled(Exception):
    """Raised inside a rule when a value cannot be expressed; becomes `access.unmodelled`, or
    `access.indirect` when what could not be expressed was computed from loaded data (`sources`:
    the read ids it came from)."""

    def __init__(self, why: str, sources: frozenset[str] = frozenset()):
        super().__init__(why)
        self.sources = frozenset(s for s in sources if s != MOVED)


@dataclass
class State:
    """Evaluation state of one launch."""

    launch: LaunchOp
    grid: list[sympy.Basic]
    block: list[sympy.Basic]
    values: dict[SSAValue, Value] = field(default_factory=dict)
    guard: tuple[sympy.Basic, ...] = ()
    seq_domain: tuple[sympy.Basic, ...] = ()
    lane_ranges: dict[sympy.Symbol, tuple[sympy.Basic, sympy.Basic]] = field(default_factory=dict)
    positioned: dict[tuple[sympy.Symbol, int], sympy.Symbol] = field(default_factory=dict)
    origin: dict[sympy.Symbol, sympy.Symbol] = field(default_factory=dict)  # positioned lane -> make_range lane
    out: list[Operation] = field(default_factory=list)
    lane_counter: itertools.count = field(default_factory=lambda: itertools.count(3))
    seq_counter: itertools.count = field(default_factory=itertools.count)
    read_counter: itertools.count = field(default_factory=itertools.count)
    write_counter: itertools.count = field(default_factory=itertools.count)
    alloc_counter: itertools.count = field(default_factory=itertools.count)
    carry_counter: itertools.count = field(default_factory=itertools.count)  # `_resolve_carried`'s markers
    access_dims: dict[str, tuple] = field(default_factory=dict)  # access id -> its lanes per dimension
    is_triton: bool = False
    # The conditions lowercheck cannot express (on loaded data) that the current accesses happen under.
    data_conditions: tuple[str, ...] = ()
    # Whether the runs bounds-check every access (the SIMT emulator, the Triton runner): then an index
    # computed from loaded data is an `access.indirect`; Pallas's interpreter clamps instead.
    runs_check_bounds: bool = True
    # An indirect access (`access.indirect`, no id of its own) -> the reads its index came from: what
    # it loads is computed from them (`x[ids[rows[i]]]` is indirect through `rows` too).
    indirect_sources: dict[Operation, frozenset[str]] = field(default_factory=dict)
    # A read id -> (buffer, space): which joins are a tree's (`_joins_instances`).
    read_buffers: dict[str, tuple[str, str]] = field(default_factory=dict)

    def loaded(self, op: Operation, access_id: str | None, dims: tuple = ()) -> Opaque:
        """The value `op` loads: from its own read, or from the reads an indirect one depends on."""
        sources = frozenset({access_id}) if access_id else self.indirect_sources.get(op, frozenset())
        return Opaque("a loaded value", sources, dims)

    def fresh_lane(self, start: sympy.Basic, end: sympy.Basic) -> sympy.Symbol:
        var = symbolic.lane(next(self.lane_counter))
        self.lane_ranges[var] = (sympy.sympify(start), sympy.sympify(end))
        return var

    def get(self, value: SSAValue) -> Value:
        return self.values.get(value, Opaque("not evaluated"))


Rule = Callable[[Operation, State], None]
RULES: dict[str, Rule] = {}


def rule(*names: str):
    def register(func: Rule) -> Rule:
        for name in names:
            RULES[name] = func
        return func

    return register


# ---------------------------------------------------------------------------------------------
# Helpers


def prop(op: Operation, name: str) -> Attribute | None:
    found = op.properties.get(name)
    return found if found is not None else op.attributes.get(name)


def int_prop(op: Operation, name: str) -> int:
    attr = prop(op, name)
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    if attr is not None and hasattr(attr, "data") and isinstance(attr.data, int):
        return attr.data
    if attr is not None and hasattr(attr, "value"):  # enum-like attrs (gpu dimension)
        return int(getattr(attr, "value"))
    raise NotModelled(f"{op.name}: missing integer attribute `{name}`")


def shape_of(value: SSAValue) -> tuple[int, ...]:
    return tuple(value.type.get_shape()) if isinstance(value.type, TensorType) else ()


def tile(state: State, value: SSAValue) -> Tile:
    v = state.get(value)
    if isinstance(v, Tile):
        return v
    if isinstance(v, Opaque):
        raise NotModelled(v.why, v.sources)
    raise NotModelled("a pointer used as an integer")


def sources_of(*values: Value) -> frozenset[str]:
    """The sources of a value computed from `values`: their union, each warp butterfly or shuffle
    chain folded into one span step (`lowercheck.dialects.sources.merged`)."""
    out: frozenset[str] = frozenset()
    for v in values:
        if isinstance(v, (Tile, Opaque)):
            out |= v.sources
    return merged(out) if len(values) > 1 else out


def accum_of(*values: Value) -> frozenset[str]:
    out: frozenset[str] = frozenset()
    for v in values:
        if isinstance(v, Opaque):
            out |= v.accum
    return out


def combined_of(*values: Value) -> frozenset[str]:
    out: frozenset[str] = frozenset()
    for v in values:
        if isinstance(v, Opaque):
            out |= v.combined
    return out


# ---------------------------------------------------------------------------------------------
# Combining operators: how a reduction merges its values (the `combined` of a value, an access's
# `combined` property). Only the places where values of several work items, lanes or trips meet
# name one: a tt.reduce's region, tt.dot, an atomic, a loop accumulator, an op joining a value with
# its copy from another lane (a shuffle) or two reads of one shared or local buffer (a tree). A
# combination lowercheck cannot name there is UNNAMED, and LC204 then compares no operators.

UNNAMED = "?"
COMBINERS = {
    "arith.addf": "sum", "arith.addi": "sum",
    "arith.maximumf": "max", "arith.maxnumf": "max", "arith.maxsi": "max", "arith.maxui": "max",
    "arith.minimumf": "min", "arith.minnumf": "min", "arith.minsi": "min", "arith.minui": "min",
    "arith.mulf": "product", "arith.muli": "product",
}
_GREATER = ("ogt", "oge", "ugt", "uge", "sgt", "sge")
_LESS = ("olt", "ole", "ult", "ule", "slt", "sle")
# MLIR's AtomicRMWKind (memref.atomic_rmw) and Triton's RMWOp (`ATOMIC_RMW_OPS`) by operator.
_RMW_COMBINERS = {0: "sum", 1: "sum", 3: "max", 4: "max", 5: "max", 13: "max",
                  6: "min", 7: "min", 8: "min", 14: "min", 9: "product", 10: "product"}
_TT_RMW_COMBINERS = {"add": "sum", "fadd": "sum", "max": "max", "umax": "max", "min": "min", "umin": "min"}


def combiner(op: Operation | None) -> str:
    """The operator `op` combines its operands by: `COMBINERS`, a select of the greater (or lesser)
    of the two values it compares (`a > b ? a : b`), else UNNAMED."""
    if op is None:
        return UNNAMED
    if op.name in COMBINERS:
        return COMBINERS[op.name]
    if op.name == "arith.select":
        cond, a, b = op.operands
        test = cond.owner if isinstance(cond.owner, Operation) else None
        if test is not None and test.name in ("arith.cmpf", "arith.cmpi") and \
                {a, b} == {test.operands[0], test.operands[1]} and a != b:
            names = arith.CMPF_COMPARISON_OPERATIONS if test.name == "arith.cmpf" else arith.CMPI_COMPARISON_OPERATIONS
            predicate = names[int_prop(test, "predicate")]
            first = a == test.operands[0]  # `x > y ? x : y`: the greater; `x > y ? y : x`: the lesser
            if predicate in _GREATER:
                return "max" if first else "min"
            if predicate in _LESS:
                return "min" if first else "max"
    return UNNAMED


def _region_combiner(op: Operation) -> str:
    """The operator of a tt.reduce / tt.scan region: what its single result is computed by."""
    body = op.regions[0].blocks[0] if op.regions and op.regions[0].blocks else None
    if body is None or len(op.operands) != 1:
        return UNNAMED  # an argmax's pair of tiles, or no region
    returned = body.last_op.operands[0] if body.last_op is not None and body.last_op.operands else None
    owner = returned.owner if returned is not None and isinstance(returned.owner, Operation) else None
    if owner is None:
        return UNNAMED
    if owner.name != "arith.select" and set(owner.operands) != set(body.args):
        return UNNAMED  # `a + b * b`: not one operator on the two values
    return combiner(owner)


def _joins_instances(st: State, operands: Sequence[Value]) -> bool:
    """Whether an op on `operands` joins values of several work items: one read's value with its copy
    from another lane (`v + __shfl_down_sync(m, v, 8)`), or two reads of one shared or local
    buffer (`s[tid] + s[tid + stride]`)."""
    per_operand = [sources_of(v) for v in operands if isinstance(v, (Opaque, Tile))]
    for i, mine in enumerate(per_operand):
        for theirs in per_operand[i + 1:]:
            for a in mine:
                for b in theirs:
                    if a == b or a == MOVED or b == MOVED:
                        continue
                    base_a, base_b = read_id(a), read_id(b)
                    if base_a == base_b and ("~" in a or "~" in b):
                        return True
                    buffer_a, buffer_b = st.read_buffers.get(base_a), st.read_buffers.get(base_b)
                    if base_a != base_b and buffer_a is not None and buffer_a == buffer_b and buffer_a[1] != "global":
                        return True
    return False


def _joined(st: State, op: Operation, operands: Sequence[Value]) -> frozenset[str]:
    """The operators of `operands`, and `op`'s own where it joins values of several work items and
    is one `COMBINERS` names (`v - warp_max` joins lanes too, but uses a reduction, not makes one)."""
    found = combined_of(*operands)
    if _joins_instances(st, operands):
        name = combiner(op)
        if name in ("sum", "max", "min"):
            found |= {name}
    return found


def unify(state: State, tiles: Sequence[Tile], rank: int) -> tuple[list[sympy.Basic], tuple]:
    """Bring tensors of the same rank onto common lanes, position by position."""
    exprs, dims, _ = unify_narrow(state, tiles, rank)
    return exprs, dims


def unify_narrow(state: State, tiles: Sequence[Tile], rank: int) -> tuple[list[sympy.Basic], tuple, frozenset]:
    """`unify`, and the tiles' 32-bit subexpressions moved onto the common lanes too."""
    dims: list[sympy.Symbol | None] = [None] * rank
    exprs = []
    narrow: set[sympy.Basic] = set()
    for t in tiles:
        if not t.dims:  # scalar: broadcasts everywhere
            exprs.append(t.expr)
            narrow |= t.narrow
            continue
        subst: dict[sympy.Symbol, sympy.Symbol] = {}
        for pos, lane in enumerate(t.dims):
            if lane is None:
                continue
            lane = subst.get(lane, lane)
            if dims[pos] is None:
                if lane in dims:  # this lane already names another dimension: split it
                    fresh = state.fresh_lane(*state.lane_ranges[lane])
                    subst[t.dims[pos]] = fresh
                    lane = fresh
                dims[pos] = lane
            elif dims[pos] != lane:
                subst[t.dims[pos]] = dims[pos]
        exprs.append(t.expr.xreplace(subst) if subst else t.expr)
        narrow |= {n.xreplace(subst) for n in t.narrow} if subst else t.narrow
    return exprs, tuple(dims), frozenset(narrow)


_NARROWING = ("arith.addi", "arith.subi", "arith.muli", "arith.shli")  # int ops that can wrap


def _is_i1(value: SSAValue) -> bool:
    t = value.type
    return t.__class__.__name__ == "IntegerType" and t.width.data == 1


def _is_i32(value: SSAValue) -> bool:
    t = value.type
    if isinstance(t, TensorType):
        t = t.element_type
    return t.__class__.__name__ == "IntegerType" and t.width.data == 32


def elementwise(state: State, op: Operation, combine: Callable[..., sympy.Basic]) -> None:
    args = [state.get(o) for o in op.operands]
    if not all(isinstance(a, Tile) for a in args):
        why = next((a.why for a in args if isinstance(a, Opaque)), f"{op.name} on a pointer")
        state.values[op.results[0]] = Opaque(why, sources_of(*args), combined=_joined(state, op, args))
        return
    rank = len(shape_of(op.results[0]))
    exprs, dims, narrow = unify_narrow(state, args, rank)
    try:
        result = combine(*exprs)
    except (TypeError, ValueError) as err:
        state.values[op.results[0]] = Opaque(f"{op.name}: {err}", sources_of(*args))
        return
    if op.name in _NARROWING and _is_i32(op.results[0]) and result.free_symbols:
        narrow |= {result}
    state.values[op.results[0]] = Tile(result, dims if rank else (), sources_of(*args), narrow)


def _size_divisor(b: sympy.Basic, what: str) -> None:
    """A divisor must be a positive constant, or an expression of sizes and program ids (sizes are
    >= 1): then the index is quasi-affine once the sizes are fixed and each program is taken on its
    own (a grouped tile order divides by `min(num_pid_m - first_pid_m, GROUP_M)`), and is checked
    per swept size, program by program. A divisor that varies between the lanes or trips of one
    program is not modelled."""
    if b.is_Integer:
        if b <= 0:
            raise ValueError(f"{what} by a non-positive constant")
        return
    if not b.free_symbols or any(symbolic.tag_of(v) in (symbolic.Tag.LANE, symbolic.Tag.SEQ)
                                 for v in b.free_symbols):
        raise ValueError(f"{what} by a value that varies between the lanes of a program")


def _floordiv(a: sympy.Basic, b: sympy.Basic) -> sympy.Basic:
    _size_divisor(b, "division")
    return sympy.floor(a / b)


def _mod(a: sympy.Basic, b: sympy.Basic) -> sympy.Basic:
    _size_divisor(b, "remainder")
    return sympy.Mod(a, b)


_CMP = {
    "eq": sympy.Eq, "ne": sympy.Ne,
    "slt": sympy.StrictLessThan, "ult": sympy.StrictLessThan,
    "sle": sympy.LessThan, "ule": sympy.LessThan,
    "sgt": sympy.StrictGreaterThan, "ugt": sympy.StrictGreaterThan,
    "sge": sympy.GreaterThan, "uge": sympy.GreaterThan,
}
_SWAPPED = {sympy.StrictLessThan: sympy.StrictGreaterThan, sympy.StrictGreaterThan: sympy.StrictLessThan,
            sympy.LessThan: sympy.GreaterThan, sympy.GreaterThan: sympy.LessThan}  # `a < b` is `b > a`
_CMPI_NAMES = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]

_INT_BINARY: dict[str, Callable[..., sympy.Basic]] = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    # C and Triton divide toward zero; for the non-negative index values the analysis sees this
    # is floor division (negative numerators are LC209's business).
    "arith.divsi": _floordiv,
    "arith.divui": _floordiv,
    "arith.floordivsi": _floordiv,
    "arith.remsi": _mod,
    "arith.remui": _mod,
    "arith.maxsi": sympy.Max, "arith.maxui": sympy.Max,
    "arith.minsi": sympy.Min, "arith.minui": sympy.Min,
    "arith.andi": lambda a, b: _logical(sympy.And, a, b) if _is_condition(a) or _is_condition(b) else _bitand(a, b),
    "arith.ori": lambda a, b: _logical(sympy.Or, a, b) if _is_condition(a) or _is_condition(b) else _fail("bitwise or"),
    "arith.xori": lambda a, b: _logical(sympy.Xor, a, b) if _is_condition(a) or _is_condition(b)
    else _fail("bitwise xor"),
    "arith.shli": lambda a, b: a * 2**_shift(b),
    "arith.shrsi": lambda a, b: sympy.floor(a / 2**_shift(b)),
    "arith.shrui": lambda a, b: sympy.floor(a / 2**_shift(b)),
}


def _shift(b: sympy.Basic) -> sympy.Basic:
    """A shift amount: a constant, or an expression of sizes only (`hidden >> merge_count`: a number
    once the sizes are fixed, so the index is checked per swept size). One that varies between work
    items or trips is not modelled."""
    if b.is_Integer:
        if 0 <= b < 64:
            return b
        # past an integer's bits the shift is undefined (poison in MLIR); 2**b would not end
        raise ValueError(f"a shift by {b}, outside the bits of an integer")
    if b.free_symbols and all(symbolic.tag_of(v) is symbolic.Tag.PARAM for v in b.free_symbols):
        return b
    raise ValueError("shift by a variable is not an index operation")


def _is_condition(e: sympy.Basic) -> bool:
    """An i1 value: a relation, a boolean constant or a combination of them (not an integer symbol)."""
    return isinstance(e, (sympy.logic.boolalg.BooleanAtom, sympy.Rel, sympy.And, sympy.Or, sympy.Not,
                          sympy.Xor))


def _as_condition(e: sympy.Basic) -> sympy.Basic:
    """An i1 value that is an integer expression (a `bool` kernel parameter, C's `bool` widened and
    cut back): true where it is not zero."""
    return e if _is_condition(e) else sympy.Ne(e, 0)


def _logical(combine, a: sympy.Basic, b: sympy.Basic) -> sympy.Basic:
    """`&&`, `||`, `^` on i1 values, one of which may be a `bool` parameter (`flag && i < n`)."""
    return combine(_as_condition(a), _as_condition(b))


def _bitand(a: sympy.Basic, b: sympy.Basic) -> sympy.Basic:
    if b.is_Integer and int(b) >= 0 and (int(b) + 1) & int(b) == 0:
        return sympy.Mod(a, int(b) + 1)  # x & (2^k - 1) == x mod 2^k for x >= 0
    raise ValueError("bitwise and with a non-mask constant")


def _fail(what: str):
    raise ValueError(f"{what} is not an index operation")


for _name, _fn in _INT_BINARY.items():
    RULES[_name] = (lambda fn: lambda op, st: elementwise(st, op, fn))(_fn)


def _short_circuit(name: str, decided: sympy.Basic):
    """`false && c` is false and `true || c` true whatever c is (opaque: a condition on loaded
    data): an access under it is known never (or always) to happen."""
    def rule(op: Operation, st: State) -> None:
        for operand in op.operands:
            v = st.get(operand)
            if isinstance(v, Tile) and not v.dims and v.expr is decided:
                st.values[op.results[0]] = Tile(decided)
                return
        elementwise(st, op, _INT_BINARY[name])
    return rule


RULES["arith.andi"] = _short_circuit("arith.andi", sympy.false)
RULES["arith.ori"] = _short_circuit("arith.ori", sympy.true)

_PASSTHROUGH = ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci",
                "tt.int_to_ptr", "tt.ptr_to_int", "tt.bitcast")


@rule(*_PASSTHROUGH)
def _cast(op: Operation, st: State) -> None:
    v = st.get(op.operands[0])
    if op.name == "arith.trunci" and isinstance(v, Tile) and _is_i32(op.results[0]) and v.expr.free_symbols:
        v = replace(v, narrow=v.narrow | {v.expr})  # an i64 value cut to 32 bits must fit them
    st.values[op.results[0]] = v


@rule("arith.cmpi")
def _cmpi(op: Operation, st: State) -> None:
    pred = prop(op, "predicate")
    index = pred.value.data if isinstance(pred, IntegerAttr) else int(getattr(pred, "data", 0))
    rel = _CMP[_CMPI_NAMES[index]]
    elementwise(st, op, lambda a, b: _compare(rel, a, b))


def _compare(rel, a: sympy.Basic, b: sympy.Basic) -> sympy.Basic:
    """`a REL b`, where a condition widened to an integer (`(int)(i < n) != 0`, C's bool passed as
    an int) is 1 where it holds and 0 elsewhere: sympy alone would call `Ne(i < n, 0)` true."""
    if _is_condition(a) or _is_condition(b):
        if _is_condition(b) and not _is_condition(a):
            return _compare(_SWAPPED.get(rel, rel), b, a)
        if rel in (sympy.Eq, sympy.Ne) and b.is_Integer:
            holds = a if int(b) == 1 else sympy.Not(a) if int(b) == 0 else sympy.false
            return holds if rel is sympy.Eq else sympy.Not(holds)
        as_int = [sympy.Piecewise((1, c), (0, True)) if _is_condition(c) else c for c in (a, b)]
        return rel(*as_int)
    return rel(a, b)


@rule("arith.select")
def _select(op: Operation, st: State) -> None:
    c, a, b = (st.get(o) for o in op.operands)
    if isinstance(a, Tile) and isinstance(b, Tile) and a.expr == b.expr and a.dims == b.dims:
        st.values[op.results[0]] = a
    elif isinstance(a, Tile) and isinstance(b, Tile) and isinstance(c, Tile):
        exprs, dims, narrow = unify_narrow(st, [c, a, b], len(shape_of(op.results[0])))
        st.values[op.results[0]] = Tile(sympy.Piecewise((exprs[1], exprs[0]), (exprs[2], True)),
                                        dims, sources_of(a, b, c), narrow)
    else:  # computed values chosen position by position: each keeps its lanes, as in _value_op
        operands = [c, a, b]
        dims = _merged_dims(operands, len(shape_of(op.results[0])))
        srcs = frozenset().union(*(renamed(sources_of(v), _lane_map(getattr(v, "dims", ()), dims))
                                   for v in operands)) if dims else sources_of(a, b, c)
        st.values[op.results[0]] = Opaque("select of opaque values", srcs, dims, accum_of(*operands),
                                          _joined(st, op, [a, b]) | combined_of(c))


@rule("arith.constant")
def _constant(op: Operation, st: State) -> None:
    attr = prop(op, "value")
    result = op.results[0]
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        if result.type.__class__.__name__ == "IntegerType" and result.type.width.data == 1:
            st.values[result] = Tile(sympy.true if value else sympy.false)
        else:
            st.values[result] = Tile(sympy.Integer(value))
    elif isinstance(attr, DenseIntOrFPElementsAttr):
        values = attr.get_values()
        if len(set(values)) == 1 and isinstance(values[0], int):
            v = values[0]
            is_bool = result.type.element_type.__class__.__name__ == "IntegerType" and result.type.element_type.width.data == 1
            expr = (sympy.true if v else sympy.false) if is_bool else sympy.Integer(v)
            st.values[result] = Tile(expr, (None,) * len(shape_of(result)))
        else:
            st.values[result] = Opaque("a float or non-splat constant")
    elif isinstance(attr, FloatAttr):
        st.values[result] = Opaque("a float constant")
    else:
        st.values[result] = Opaque("a constant of an unsupported kind")


def _gpu_axis(op: Operation) -> int:
    attr = prop(op, "dimension")
    text = str(attr)
    for axis, letter in enumerate("xyz"):
        if text.endswith(f"{letter}>") or text == letter or f" {letter}" in text:
            return axis
    raise NotModelled(f"{op.name}: unknown dimension {text}")


@rule("gpu.thread_id")
def _thread_id(op: Operation, st: State) -> None:
    st.values[op.results[0]] = Tile(symbolic.lane(_gpu_axis(op)))


@rule("gpu.block_id")
def _block_id(op: Operation, st: State) -> None:
    st.values[op.results[0]] = Tile(symbolic.grid(_gpu_axis(op)))


@rule("gpu.block_dim")
def _block_dim(op: Operation, st: State) -> None:
    st.values[op.results[0]] = Tile(st.block[_gpu_axis(op)])


@rule("gpu.grid_dim")
def _grid_dim(op: Operation, st: State) -> None:
    st.values[op.results[0]] = Tile(st.grid[_gpu_axis(op)])


@rule("tt.get_program_id")
def _program_id(op: Operation, st: State) -> None:
    st.values[op.results[0]] = Tile(symbolic.grid(int_prop(op, "axis")))


@rule("tt.get_num_programs")
def _num_programs(op: Operation, st: State) -> None:
    st.values[op.results[0]] = Tile(st.grid[int_prop(op, "axis")])


@rule("tt.make_range")
def _make_range(op: Operation, st: State) -> None:
    start, end = int_prop(op, "start"), int_prop(op, "end")
    lane = st.fresh_lane(0, end - start)
    st.values[op.results[0]] = Tile(lane + start, (lane,))


@rule("tt.splat")
def _splat(op: Operation, st: State) -> None:
    v = st.get(op.operands[0])
    rank = len(shape_of(op.results[0]))
    if isinstance(v, Pointer):
        st.values[op.results[0]] = replace(v, offset=replace(v.offset, dims=(None,) * rank))
    elif isinstance(v, Tile):
        st.values[op.results[0]] = replace(v, dims=(None,) * rank)
    else:
        st.values[op.results[0]] = v


def _reshape_dims(v: Value, new: Callable[[tuple], tuple]) -> Value:
    if isinstance(v, Pointer):
        return replace(v, offset=replace(v.offset, dims=new(v.offset.dims)))
    if isinstance(v, Tile):
        return replace(v, dims=new(v.dims))
    if isinstance(v, Opaque) and v.dims:  # a loaded tile keeps its lanes where its elements go
        return replace(v, dims=new(v.dims))
    return v


def renamed(sources: frozenset[str], mapping: dict[sympy.Symbol, sympy.Symbol]) -> frozenset[str]:
    """Sources whose lanes are known by other names from here on (`r0@LANE3=LANE9`): an element at
    a position of one tile is the element at the same position of another (see static.parse_source)."""
    pairs = ",".join(f"{a.name}={b.name}" for a, b in sorted(mapping.items(), key=lambda kv: kv[0].name) if a != b)
    if not pairs:
        return sources
    return frozenset(s if s == MOVED else f"{s}@{pairs}" for s in sources)


def _lane_map(old: tuple, new: tuple) -> dict[sympy.Symbol, sympy.Symbol]:
    """Position by position, the lane a tile had -> the lane its position has now."""
    if len(old) != len(new):
        return {}
    return {a: b for a, b in zip(old, new, strict=True) if a is not None and b is not None and a != b}


def _positioned(st: State, value: Value) -> Value:
    """Give every lane of a tile the variable of its (origin, dimension): `offs[:, None]` and
    `offs[None, :]` of one `arange` become two lanes, the same two wherever they occur."""
    tile_of = value.offset if isinstance(value, Pointer) else value
    if isinstance(value, Opaque) and len(value.dims) >= 2:  # a loaded tile: its sources follow
        dims = tuple(_position(st, lane, pos) if lane is not None else None for pos, lane in enumerate(value.dims))
        return replace(value, dims=dims, sources=renamed(value.sources, _lane_map(value.dims, dims)))
    if not isinstance(tile_of, Tile) or len(tile_of.dims) < 2:
        return value
    subst, dims = {}, []
    for pos, lane in enumerate(tile_of.dims):
        if lane is None:
            dims.append(None)
            continue
        origin = st.origin.get(lane, lane)
        key = (origin, pos)
        if key not in st.positioned:
            fresh = st.fresh_lane(*st.lane_ranges[lane])
            st.origin[fresh] = origin
            st.positioned[key] = fresh
        subst[lane] = st.positioned[key]
        dims.append(st.positioned[key])
    moved = Tile(tile_of.expr.xreplace(subst), tuple(dims), tile_of.sources,
                 frozenset(n.xreplace(subst) for n in tile_of.narrow))
    return replace(value, offset=moved) if isinstance(value, Pointer) else moved


def _position(st: State, lane: sympy.Symbol, pos: int) -> sympy.Symbol:
    """The lane of (the origin of) `lane` at dimension `pos`, created on first use."""
    origin = st.origin.get(lane, lane)
    key = (origin, pos)
    if key not in st.positioned:
        fresh = st.fresh_lane(*st.lane_ranges[lane])
        st.origin[fresh] = origin
        st.positioned[key] = fresh
    return st.positioned[key]


@rule("tt.expand_dims")
def _expand_dims(op: Operation, st: State) -> None:
    axis = int_prop(op, "axis")
    st.values[op.results[0]] = _positioned(st, _reshape_dims(st.get(op.operands[0]),
                                                             lambda d: d[:axis] + (None,) + d[axis:]))


@rule("tt.broadcast")
def _broadcast(op: Operation, st: State) -> None:
    rank = len(shape_of(op.results[0]))
    st.values[op.results[0]] = _reshape_dims(st.get(op.operands[0]),
                                             lambda d: d if len(d) == rank else (None,) * rank)



@rule("tt.trans")
def _trans(op: Operation, st: State) -> None:
    order = prop(op, "order")
    perm = [int(x) for x in order.get_values()] if order is not None else None
    value = st.get(op.operands[0])
    if isinstance(value, Opaque) and not value.dims:  # a value whose lanes are unknown
        st.values[op.results[0]] = Opaque(value.why, value.sources | {MOVED}, accum=value.accum,
                                          combined=value.combined)
        return
    if isinstance(value, Opaque):  # the elements move with their lanes: only the dims are permuted
        st.values[op.results[0]] = _reshape_dims(
            value, lambda d: tuple(d[i] for i in perm) if perm else tuple(reversed(d)))
        return
    st.values[op.results[0]] = _positioned(st, _reshape_dims(
        value, lambda d: tuple(d[i] for i in perm) if perm else tuple(reversed(d))))


@rule("simt.shuffle")
def _shuffle(op: Operation, st: State) -> None:
    """`__shfl*_sync`: the value of another lane of the warp. With a constant offset (a power of two
    for xor) and width, over a block whose warps lie along threadIdx.x, each source gets the lane
    step that says which lane (`lowercheck.dialects.sources`); `v + shfl(v, o)` then folds into a
    span, so a whole butterfly or shuffle-down chain composes to "every lane of the warp". Any other
    shuffle moves values in a way no step spells (MOVED: the dependence is not compared)."""
    value, offset, width = st.get(op.operands[0]), st.get(op.operands[1]), st.get(op.operands[3])
    step = None
    if isinstance(offset, Tile) and isinstance(width, Tile) and offset.expr.is_Integer and width.expr.is_Integer:
        o, w = int(offset.expr), int(width.expr)
        bx = st.block[0] if st.block else None
        along_x = bx is not None and sympy.sympify(bx).is_Integer and (
            int(bx) % w == 0 or all(sympy.sympify(b) == 1 for b in st.block[1:]))
        mode = prop(op, "mode").data
        if 0 < w <= 32 and not w & (w - 1) and along_x:
            if mode == "idx":
                step = lane_step("LANE0", "i", o % w, w)
            elif 0 < o < w and (mode != "xor" or not o & (o - 1)):
                step = lane_step("LANE0", {"xor": "x", "down": "d", "up": "u"}[mode], o, w)
    srcs: set[str] = set()
    for source in sources_of(value):
        if step is None or source.startswith("*"):  # a marker of loop-carried values, or no step
            srcs |= {source, MOVED}
        else:
            srcs.add(source + step)
    st.values[op.results[0]] = Opaque(f"a value from another lane ({op.name})", frozenset(srcs),
                                      accum=accum_of(value), combined=combined_of(value))


@rule("tt.reshape", "tt.join", "tt.split", "tt.cat", "simt.vote")
def _moving(op: Operation, st: State) -> None:
    operands = [st.get(o) for o in op.operands]
    srcs = sources_of(*operands) | {MOVED}
    for r in op.results:
        st.values[r] = Opaque(f"a value rearranged by {op.name}", srcs, accum=accum_of(*operands),
                              combined=combined_of(*operands))


@rule("tt.addptr")
def _addptr(op: Operation, st: State) -> None:
    ptr, off = st.get(op.operands[0]), st.get(op.operands[1])
    if not isinstance(ptr, Pointer):
        st.values[op.results[0]] = Opaque("pointer arithmetic on an unknown pointer")
        return
    if not isinstance(off, Tile):
        st.values[op.results[0]] = replace(ptr, unknown=getattr(off, "why", "an opaque offset"),
                                           unknown_sources=sources_of(off))
        return
    if ptr.unknown is not None:
        st.values[op.results[0]] = ptr
        return
    rank = len(shape_of(op.results[0]))
    exprs, dims, narrow = unify_narrow(st, [ptr.offset, off], rank)
    if _is_i32(op.operands[1]) and exprs[1].free_symbols:
        narrow |= {exprs[1]}  # an i32 offset tensor: Triton's default for int arguments below 2^31
    st.values[op.results[0]] = replace(ptr, offset=Tile(exprs[0] + exprs[1], dims if rank else (), narrow=narrow))


def _access(op: Operation, st: State, kind: str, ptr_value: SSAValue, mask: SSAValue | None,
            element_type: Attribute | None, stored: Value | None = None,
            index: Tile | None = None, pointer: Pointer | None = None,
            bounds: sympy.Basic | None = None) -> str | None:
    """Record one access; returns its id (None when unmodelled). `pointer` and `bounds` stand for
    the pointer operand and an extra guard (a descriptor's block, clipped to its shape)."""
    ptr = pointer if pointer is not None else st.get(ptr_value)
    counter = st.read_counter if kind == "read" else st.write_counter
    access_id = f"{'r' if kind == 'read' else 'w'}{next(counter)}"
    buffer = ptr.buffer if isinstance(ptr, Pointer) else "?"
    try:
        if not isinstance(ptr, Pointer):
            raise NotModelled(getattr(ptr, "why", "unknown pointer"))
        if ptr.unknown is not None:
            raise NotModelled(ptr.unknown, ptr.unknown_sources)
        offset = index if index is not None else ptr.offset
        tiles = [offset]
        if mask is not None:
            tiles.append(tile(st, mask))
        rank = max(len(t.dims) for t in tiles)
        exprs, dims, narrow = unify_narrow(st, tiles, rank)
        # Broadcast dimensions still without a lane: every lane of that dimension does the access.
        shape = shape_of(ptr_value) or ()
        dims = list(dims)
        for pos, lane in enumerate(dims):
            if lane is None and pos < len(shape) and shape[pos] > 1:
                dims[pos] = st.fresh_lane(0, shape[pos])
        guard = list(st.guard) + ([exprs[1]] if mask is not None else []) + ([bounds] if bounds is not None else [])
        lanes = [d for d in dims if d is not None]
        used = set().union(*(sympy.sympify(e).free_symbols for e in [exprs[0], *guard]))
        domain = list(st.seq_domain)
        for lane in sorted(st.lane_ranges, key=lambda s: s.name):
            if lane in lanes or lane in used:
                lo, hi = st.lane_ranges[lane]
                domain += [sympy.Ge(lane, lo), sympy.Lt(lane, hi)]
        fastest = (_triton_fastest(exprs[0], lanes) if st.is_triton and lanes
                   else "LANE0" if not st.is_triton else "")
        stored_sources = sources_of(stored) if stored is not None else frozenset()
        if isinstance(stored, Opaque):  # element (i, j) of the value goes to position (i, j)
            stored_sources = renamed(stored_sources, _lane_map(stored.dims, tuple(dims)))
        sources = sorted(stored_sources)
        st.access_dims[access_id] = tuple(dims)
        _check_readable([exprs[0], *domain, *guard])
        properties = {
            "buffer": StringAttr(buffer), "kind": StringAttr(kind), "space": StringAttr(ptr.space),
            "element_type": element_type or ptr.element_type,
            "indices": _strings([exprs[0]]),
            "domain": _strings([d for d in domain if d is not sympy.true]),
            "guard": _strings([g for g in guard if g is not sympy.true]),
            "fastest": StringAttr(fastest), "id": StringAttr(access_id),
            "sources": ArrayAttr([StringAttr(s) for s in sources]),
        }
        # Only 32-bit subexpressions that grow with the sizes or the grid can wrap; lane-only ones
        # are bounded by the tile.
        wide = sorted((n for n in narrow if any(symbolic.tag_of(v) is not symbolic.Tag.LANE
                                               for v in n.free_symbols)), key=symbolic.format)
        if wide:
            properties["int32"] = _strings(wide)
        accum = accum_of(stored) if stored is not None else frozenset()
        if kind == "atomic" and _float_name(element_type or ptr.element_type):
            accum |= {_float_name(element_type or ptr.element_type)}
        if accum:
            properties["accumulation"] = ArrayAttr([StringAttr(a) for a in sorted(accum)])
        combined = combined_of(stored) if stored is not None else frozenset()
        if kind == "atomic":  # the values of every work item that adds into one element
            combined |= {_atomic_combiner(op)}
        if combined:
            properties["combined"] = ArrayAttr([StringAttr(c) for c in sorted(combined)])
        if kind == "read":
            st.read_buffers[access_id] = (buffer, ptr.space)
        if st.is_triton and dims:  # which lane is which dimension: tiles compared position by position
            properties["lanes"] = ArrayAttr([StringAttr(str(d) if d is not None else "") for d in dims])
        if st.data_conditions:
            properties["data_condition"] = StringAttr("; ".join(dict.fromkeys(st.data_conditions)))
        st.out.append(AccessOp.build(properties=properties))
        st.out[-1].location = op.location
        return access_id
    except NotModelled as why:
        element = element_type or (ptr.element_type if isinstance(ptr, Pointer) else None)
        _not_modelled(op, st, buffer, kind, element, why, ptr.space if isinstance(ptr, Pointer) else "global",
                      access_id if kind == "read" else None)
        return None


def _atomic_combiner(op: Operation) -> str:
    if op.name == "memref.atomic_rmw":
        return _RMW_COMBINERS.get(int_prop(op, "kind"), UNNAMED)
    if op.name == "tt.atomic_rmw":
        return _TT_RMW_COMBINERS.get(ATOMIC_RMW_OPS.get(int_prop(op, "atomic_rmw_op"), ""), UNNAMED)
    return UNNAMED  # a compare-and-swap loop: whatever it computes


def _not_modelled(op: Operation, st: State, buffer: str, kind: str, element_type: Attribute | None,
                  why: NotModelled, space: str = "global", access_id: str | None = None) -> None:
    """An access whose index lowercheck cannot express: `access.indirect` when the index is computed
    from loaded data into a known buffer and the runs bounds-check it, else `access.unmodelled`."""
    if why.sources and buffer != "?" and element_type is not None and st.runs_check_bounds:
        st.indirect_sources[op] = why.sources | ({access_id} if access_id else set())
        properties = {
            "buffer": StringAttr(buffer), "kind": StringAttr(kind), "space": StringAttr(space),
            "element_type": element_type, "sources": ArrayAttr([StringAttr(s) for s in sorted(why.sources)]),
            "reason": StringAttr(f"an index computed from loaded data ({why})")}
        if access_id:
            properties["id"] = StringAttr(access_id)
        st.out.append(IndirectOp.build(properties=properties))
    else:
        st.out.append(UnmodelledOp.build(properties={"buffer": StringAttr(buffer), "reason": StringAttr(str(why))}))
    st.out[-1].location = op.location


def _triton_fastest(index: sympy.Basic, lanes: Sequence[sympy.Symbol]) -> str:
    """The lane consecutive threads take in Triton's layout for this access: Triton's coalescing
    pass orders a memory op's layout by the pointer's contiguity, so a dimension along which the
    index steps by one is the fastest; with none, the tile's last dimension."""
    for lane in reversed(lanes):
        step = sympy.expand(index.xreplace({lane: lane + 1}) - index)
        if step in (1, -1):
            return str(lane)
    return str(lanes[-1])


def _float_name(t: Attribute | None) -> str | None:
    if isinstance(t, TensorType):
        t = t.element_type
    name = str(t)
    return name if name in ("f16", "bf16", "f32", "f64") or name.startswith("f8") else None


def _check_readable(exprs) -> None:
    """Each expression as its text form reads back (`symbolic.parse`); one that does not (a
    piecewise bound sympy made of a ternary's trip count) leaves the access unmodelled."""
    for e in exprs:
        if e is sympy.true:
            continue
        try:
            symbolic.parse(symbolic.format(e))
        except ValueError:
            raise NotModelled(f"an index or bound lowercheck cannot write as an index expression "
                              f"({symbolic.format(e)[:80]})") from None


def _strings(exprs) -> ArrayAttr:
    return ArrayAttr([StringAttr(symbolic.format(e)) for e in exprs])


def _element_type(value: SSAValue) -> Attribute | None:
    t = value.type
    if isinstance(t, TensorType):
        t = t.element_type
    return t if not hasattr(t, "parameters") or "ptr" not in type(t).__name__.lower() else None


@rule("tt.load")
def _tt_load(op: Operation, st: State) -> None:
    ptr = op.operands[0]
    mask = op.operands[1] if len(op.operands) > 1 else None
    access_id = _access(op, st, "read", ptr, mask, _element_type(op.results[0]))
    st.values[op.results[0]] = st.loaded(op, access_id, st.access_dims.get(access_id, ()))


def _descriptor(base: Value | None, dims: Sequence[Value | None]) -> Descriptor | Opaque:
    """A tensor descriptor over `base` from its shape then as many strides (`dims`)."""
    if not isinstance(base, Pointer) or not dims or len(dims) % 2 or not all(isinstance(d, Tile) for d in dims):
        return Opaque("a tensor descriptor over an unknown buffer or shape")
    half = len(dims) // 2
    return Descriptor(base, tuple(d.expr for d in dims[:half]), tuple(d.expr for d in dims[half:]))


@rule("tt.make_tensor_descriptor")
def _make_descriptor(op: Operation, st: State) -> None:
    st.values[op.results[0]] = _descriptor(st.get(op.operands[0]), [st.get(v) for v in op.operands[1:]])


def _block(op: Operation, st: State, block: tuple[int, ...],
           value_dims: tuple = ()) -> tuple[Pointer, Tile, sympy.Basic]:
    """The pointer, index tile and bounds of a descriptor access at the indices `op.operands[1 or
    2:]`: one lane per block dimension, the stored value's own lanes where it has them (element
    (i, j) of the value goes to element (i, j) of the block), fresh ones otherwise."""
    desc = st.get(op.operands[0])
    if not isinstance(desc, Descriptor):
        raise NotModelled(getattr(desc, "why", "an unknown tensor descriptor"))
    starts = [tile(st, v).expr for v in op.operands[-len(desc.shape):]]
    lanes = tuple(value_dims[d] if d < len(value_dims) and len(value_dims) == len(block) and value_dims[d] is not None
                  else st.fresh_lane(0, b) for d, b in enumerate(block))
    full = op.operands[0].type.block_type.get_shape() if isinstance(op.operands[0].type, TensorDescType) else block
    if len(full) != len(starts) or (len(block) != len(full) and [b for b in full if b != 1] != [b for b in block if b != 1]):
        raise NotModelled("a descriptor block whose shape is not the tile's")
    if len(block) != len(full):  # the tile drops the block's unit dimensions (`[1, BM, BK]` as BM x BK)
        kept = iter(lane for lane, b in zip(lanes, block, strict=True) if b != 1)
        per_dim = [sympy.Integer(0) if b == 1 else next(kept) for b in full]
    else:
        per_dim = list(lanes)
    coords = [start + lane for start, lane in zip(starts, per_dim, strict=True)]
    index = desc.base.offset.expr + sum((c * stride for c, stride in zip(coords, desc.strides, strict=True)),
                                        sympy.Integer(0))
    bounds = sympy.And(*[sympy.And(sympy.Ge(c, 0), sympy.Lt(c, extent)) for c, extent in zip(coords, desc.shape,
                                                                                            strict=True)])
    return desc.base, Tile(index, lanes, narrow=desc.base.offset.narrow), bounds


@rule("tt.descriptor_load")
def _descriptor_load(op: Operation, st: State) -> None:
    try:
        pointer, index, bounds = _block(op, st, shape_of(op.results[0]))
    except NotModelled as why:
        st.out.append(UnmodelledOp.build(properties={"buffer": StringAttr("?"), "reason": StringAttr(str(why))}))
        st.out[-1].location = op.location
        st.values[op.results[0]] = Opaque(str(why))
        return
    access_id = _access(op, st, "read", op.operands[0], None, _element_type(op.results[0]), index=index,
                        pointer=pointer, bounds=bounds)
    st.values[op.results[0]] = st.loaded(op, access_id, st.access_dims.get(access_id, ()))


@rule("tt.descriptor_store")
def _descriptor_store(op: Operation, st: State) -> None:
    try:
        pointer, index, bounds = _block(op, st, shape_of(op.operands[1]), getattr(st.get(op.operands[1]), "dims", ()))
    except NotModelled as why:
        st.out.append(UnmodelledOp.build(properties={"buffer": StringAttr("?"), "reason": StringAttr(str(why))}))
        st.out[-1].location = op.location
        return
    _access(op, st, "write", op.operands[0], None, _element_type(op.operands[1]), stored=st.get(op.operands[1]),
            index=index, pointer=pointer, bounds=bounds)


@rule("tt.reduce")
def _tt_reduce(op: Operation, st: State) -> None:
    """A reduction along `axis`: every result element is computed from all lanes of that dimension.
    Each source `r3` becomes `r3/LANE7`: read r3, for every value of LANE7."""
    axis = int_prop(op, "axis")
    operands = [st.get(o) for o in op.operands]
    accum = set(accum_of(*operands))
    if any(inner.name in _ADDS for inner in op.walk()):  # a sum: accumulated in the operand's type
        accum |= {t for o in op.operands if (t := _float_name(o.type))}
    sources: set[str] = set()
    dims: tuple = ()
    for value in operands:
        value_dims = getattr(value, "dims", ())
        lane = value_dims[axis] if axis < len(value_dims) else None
        for source in sources_of(value):
            sources.add(reduced(source, lane.name) if lane is not None and source != MOVED else source)
        dims = value_dims[:axis] + value_dims[axis + 1:] if value_dims else ()
    for r in op.results:
        st.values[r] = Opaque("a reduction", frozenset(sources), dims, frozenset(accum),
                              combined_of(*operands) | {_region_combiner(op)})


def _lane_order(name: str) -> tuple[str, int]:
    """LANE8 before LANE11: by the number after the tag."""
    tag = name.rstrip("0123456789")
    return tag, int(name[len(tag):] or 0)


def reduced(source: str, lane: str) -> str:
    """`source` reduced over `lane` as well (`r3` -> `r3/LANE7`). Reductions since the source's last
    rename (`@...`) commute and a lane reduced twice is reduced once, so they are kept sorted and
    unique: a loop of alternating row and column reductions (Sinkhorn) keeps one source per read,
    not one per path (which doubled with each trip)."""
    cut = max(source.rfind(c) for c in MOVES)  # reductions commute back to the last move
    head, tail = (source[:cut + 1], source[cut + 1:]) if cut >= 0 else ("", source)
    base, *steps = tail.split("/")
    if lane in steps:
        return source
    return head + "/".join([base, *sorted([*steps, lane], key=_lane_order)])


@rule("tt.scan", "tt.histogram")
def _tt_scan(op: Operation, st: State) -> None:
    """tl.cumsum / tl.associative_scan (`tt.scan`) and tl.histogram: a result element combines other
    lanes' elements. A forward scan of one tile along a lane it knows is a prefix: each source `r3`
    becomes `r3^LANE7` (out[i] combines x[0..i] along the axis). A reversed scan, a scan of several
    tiles and a histogram (a bin counts every input) moved values in a way no step spells (MOVED: the
    dependence is inexact, never claimed). A scan whose region adds accumulates in the operand's
    type, as a reduction does (LC305)."""
    operands = [st.get(o) for o in op.operands]
    accum = set(accum_of(*operands))
    if op.name == "tt.scan" and any(inner.name in _ADDS for inner in op.walk()):
        accum |= {t for o in op.operands if (t := _float_name(o.type))}
    srcs = sources_of(*operands) | {MOVED}
    if op.name == "tt.scan" and len(operands) == 1:
        value_dims = getattr(operands[0], "dims", ())
        axis = int_prop(op, "axis")
        lane = value_dims[axis] if axis < len(value_dims) else None
        shape = shape_of(op.operands[0])
        if lane is None and axis < len(shape) and shape[axis] == 1:  # a scan of one element is that element
            srcs = sources_of(operands[0])
        elif lane is not None and not int_prop(op, "reverse"):
            srcs = frozenset(prefix(s, lane.name) if s != MOVED and not s.startswith("*") else s
                             for s in sources_of(operands[0]))
    for i, r in enumerate(op.results):
        same_shape = op.name == "tt.scan" and i < len(operands)
        dims = getattr(operands[i], "dims", ()) if same_shape else ()
        by = _region_combiner(op) if op.name == "tt.scan" else UNNAMED
        st.values[r] = Opaque(f"a value combined across lanes by {op.name}", srcs, dims, frozenset(accum),
                              combined_of(*operands) | {by})


@rule("tt.store")
def _tt_store(op: Operation, st: State) -> None:
    ptr, value = op.operands[0], op.operands[1]
    mask = op.operands[2] if len(op.operands) > 2 else None
    _access(op, st, "write", ptr, mask, _element_type(value), stored=st.get(value))


@rule("tt.atomic_rmw", "tt.atomic_cas")
def _tt_atomic(op: Operation, st: State) -> None:
    ptr = op.operands[0]
    mask = op.operands[2] if op.name == "tt.atomic_rmw" and len(op.operands) > 2 else None
    access_id = _access(op, st, "atomic", ptr, mask, _element_type(op.results[0]),
                        stored=st.get(op.operands[1]))
    st.values[op.results[0]] = Opaque("an atomic's old value", frozenset({access_id} if access_id else ()))


@rule("memref.load")
def _memref_load(op: Operation, st: State) -> None:
    memref, *indices = op.operands
    access_id = _memref_access(op, st, "read", memref, indices, None)
    st.values[op.results[0]] = st.loaded(op, access_id)


@rule("memref.store")
def _memref_store(op: Operation, st: State) -> None:
    value, memref, *indices = op.operands
    _memref_access(op, st, "write", memref, indices, st.get(value))


def _flat_index(st: State, memref: SSAValue, indices: Sequence[SSAValue]) -> Tile:
    """The row-major element index of `memref[i, j, ...]` (a static shape beyond the first dim)."""
    tiles = [tile(st, i) for i in indices]
    if len(tiles) == 1:
        return tiles[0]
    shape = list(memref.type.get_shape())
    if any(d < 0 for d in shape[1:]):
        raise NotModelled("a multi-dimensional memref with a dynamic inner extent")
    flat = sympy.Integer(0)
    for t, extent in zip(tiles, shape, strict=True):
        flat = flat * extent + t.expr
    return Tile(flat, (), sources_of(*tiles), frozenset().union(*(t.narrow for t in tiles)))


def _memref_access(op, st, kind, memref, indices, stored) -> str | None:
    index: Tile | None
    try:
        index = _flat_index(st, memref, indices)
    except NotModelled as why:
        ptr = st.get(memref)
        _not_modelled(op, st, ptr.buffer if isinstance(ptr, Pointer) else "?", kind,
                      memref.type.element_type, why, ptr.space if isinstance(ptr, Pointer) else "global",
                      f"r{next(st.read_counter)}" if kind == "read" else None)
        return None
    ptr = st.get(memref)
    if isinstance(ptr, Pointer):
        index = Tile(ptr.offset.expr + index.expr, (), index.sources, index.narrow | ptr.offset.narrow)
    return _access(op, st, kind, memref, None, memref.type.element_type, stored, index=index)


@rule("memref.alloca", "memref.alloc")
def _alloca(op: Operation, st: State) -> None:
    """`__shared__` arrays (address space 3: one per block) and local arrays (one per thread)."""
    memref_type = op.results[0].type
    space = "shared" if str(memref_type.memory_space) in ("3", "3 : i64", "#gpu.address_space<workgroup>") \
        else "local"
    name = f"{space}{next(st.alloc_counter)}"
    shape = list(memref_type.get_shape())
    if any(d < 0 for d in shape):
        sizes = [st.get(o) for o in op.operands]
        if not all(isinstance(v, Tile) for v in sizes):
            st.values[op.results[0]] = Opaque("an allocation of unknown size")
            return
        extent = sympy.Integer(1)
        dynamic = iter(sizes)
        for d in shape:
            extent *= next(dynamic).expr if d < 0 else d
    else:
        extent = sympy.Mul(*shape) if shape else sympy.Integer(1)
    st.values[op.results[0]] = Pointer(name, Tile(sympy.Integer(0)), memref_type.element_type, space)
    decl = BufferOp.build(properties={"name": StringAttr(name), "space": StringAttr(space),
                                      "element_type": memref_type.element_type,
                                      "shape": ArrayAttr([StringAttr(symbolic.format(extent))])})
    decl.location = op.location
    st.out.append(decl)


@rule("memref.atomic_rmw")
def _atomic_rmw(op: Operation, st: State) -> None:
    value, memref, *indices = op.operands
    access_id = _memref_access(op, st, "atomic", memref, indices, st.get(value))
    st.values[op.results[0]] = Opaque("an atomic's old value", frozenset({access_id} if access_id else ()))


@rule("simt.atomic_cas")
def _atomic_cas(op: Operation, st: State) -> None:
    memref, index, compare, value = op.operands
    access_id = _memref_access(op, st, "atomic", memref, [index], st.get(value))
    srcs = sources_of(st.get(compare)) | frozenset({access_id} if access_id else ())
    st.values[op.results[0]] = Opaque("an atomic's old value", srcs)


# Float and other value ops: the result is opaque, but remembers which reads it came from.
_VALUE_OPS = ("arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.remf", "arith.negf",
              "arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf", "arith.cmpf",
              "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui", "arith.extf",
              "arith.truncf", "arith.bitcast", "tt.fp_to_fp", "tt.clampf", "tt.precise_sqrt",
              "tt.precise_divf", "tt.extern_elementwise", "tt.dot",
              "tt.mulhiui", "math.fma")


_ADDS = ("arith.addf", "arith.subf", "math.fma")
_TF32 = 0  # tt.dot inputPrecision: 0 tf32, 1 tf32x3, 2 ieee


@rule(*_VALUE_OPS)
def _value_op(op: Operation, st: State) -> None:
    operands = [st.get(o) for o in op.operands]
    srcs = sources_of(*operands)
    accum = accum_of(*operands)
    combined = _joined(st, op, operands) | ({"sum"} if op.name == "tt.dot" else frozenset())
    if op.name in _ADDS or op.name == "tt.dot":
        accum |= {t for r in op.results if (t := _float_name(r.type))}
    if op.name == "tt.dot" and _float_name(op.operands[0].type) == "f32":
        precision = prop(op, "inputPrecision")
        if isinstance(precision, IntegerAttr) and precision.value.data == _TF32:
            accum |= {"tf32"}
    for r in op.results:
        rank = len(shape_of(r))
        dims = _merged_dims(operands, rank)
        if dims and op.name != "tt.dot":  # combined position by position: one lane per position
            srcs = frozenset().union(*(renamed(sources_of(v), _lane_map(getattr(v, "dims", ()), dims))
                                       for v in operands))
        if op.name == "tt.dot":  # (m, k) x (k, n) -> (m, n): the k lanes are summed over
            a_dims, b_dims = (getattr(v, "dims", ()) for v in operands[:2])
            if len(a_dims) == 2 and len(b_dims) == 2:
                b_sources = sources_of(operands[1])
                n_lane = b_dims[1]
                if n_lane is not None and n_lane == a_dims[0]:
                    # One arange for a's rows and b's columns (Triton merges equal make_ranges: q's
                    # rows and k's rows in q @ k^T with BLOCK_M == BLOCK_N): the two output
                    # dimensions are different lanes, so b's is renamed to a fresh one.
                    n_lane = st.fresh_lane(*st.lane_ranges.get(b_dims[1], (0, shape_of(r)[1])))
                    b_sources = renamed(b_sources, {b_dims[1]: n_lane})
                dims = (a_dims[0], n_lane)
                srcs = frozenset(reduced(s, a_dims[1].name) if a_dims[1] is not None and s != MOVED
                                 else s for s in sources_of(operands[0])) | \
                    frozenset(reduced(s, b_dims[0].name) if b_dims[0] is not None and s != MOVED
                              else s for s in b_sources) | sources_of(*operands[2:])
        st.values[r] = Opaque(f"a value computed by {op.name}", srcs, dims, accum, combined)


def _merged_dims(operands: Sequence[Value], rank: int) -> tuple:
    """The result's lane per position: the first operand's that has one there."""
    if not rank:
        return ()
    dims: list = [None] * rank
    for v in operands:
        v_dims = getattr(v, "dims", ())
        if len(v_dims) != rank:
            continue
        for pos, lane in enumerate(v_dims):
            if dims[pos] is None and lane is not None:
                dims[pos] = lane
    return tuple(dims) if any(d is not None for d in dims) else ()


def _generic_value(op: Operation, st: State) -> None:
    """math.* and anything else without memory effects: opaque results that keep their sources."""
    _value_op(op, st)


@rule("scf.if")
def _scf_if(op: Operation, st: State) -> None:
    cond = st.get(op.operands[0])
    cexpr = cond.expr if isinstance(cond, Tile) else None
    branch_results = []
    for region, c in ((op.regions[0], cexpr), (op.regions[1] if len(op.regions) > 1 else None,
                                                sympy.Not(cexpr) if cexpr is not None else None)):
        if region is None or not region.blocks or c is sympy.false:  # a branch no work item takes
            branch_results.append(None)
            continue
        saved, saved_conditions = st.guard, st.data_conditions
        if c is not None:
            st.guard = saved + (c,)
        else:  # accesses under a condition on loaded data: each says so (`data_condition`)
            st.data_conditions = saved_conditions + (_condition_text(cond, op),)
        branch_results.append(_run_block(region.blocks[0], st))
        st.guard, st.data_conditions = saved, saved_conditions
    then_vals, else_vals = branch_results
    for i, result in enumerate(op.results):
        a = then_vals[i] if then_vals else None
        b = else_vals[i] if else_vals else None
        if cexpr is sympy.true or cexpr is sympy.false:  # the one branch taken
            st.values[result] = (a if cexpr is sympy.true else b) or Opaque("an untaken branch's value")
            continue
        if isinstance(a, Tile) and isinstance(b, Tile) and cexpr is not None:
            st.values[result] = a if a.expr == b.expr else Tile(
                sympy.Piecewise((a.expr, cexpr), (b.expr, True)), a.dims, a.sources | b.sources)
        else:
            merged = [v for v in (a, b) if v]
            deciding = () if cexpr is not None else (cond,)  # the chosen value depends on the condition
            st.values[result] = Opaque("a value merged from two branches", sources_of(*merged, *deciding),
                                       accum=accum_of(*merged), combined=combined_of(*merged))


def _condition_text(cond: Value, op: Operation) -> str:
    """What an access's `data_condition` says: the reads the condition comes from, and where it is."""
    sources = sorted(s for s in sources_of(cond) if s != MOVED and not s.startswith("*carried"))
    loc = op.location
    where = (f" at line {loc.line.data}" if type(loc).__name__ == "FileLineColLoc" else "")
    if sources:
        return f"a condition on loaded values ({', '.join(sources)}){where}"
    return f"a condition lowercheck does not express ({getattr(cond, 'why', 'unknown')}){where}"


def _loop_on_data(op: Operation, st: State, trips: frozenset[str]) -> None:
    """A loop whose bounds come from loaded data (`for (i = 0; i < lengths[b]; ...)`, pages of a
    paged attention): its induction variable and carried values are values from loaded data, so an
    access indexed by them is `access.indirect` (bounds-checked by the runs), and every access in
    the body happens under a condition on that data (it may run no trip at all)."""
    body = op.regions[0].blocks[0]
    why = "a loop index whose bounds come from loaded data"
    for arg in body.args:
        st.values[arg] = Opaque(why, trips)
    saved = st.data_conditions
    where = op.location
    line = f" at line {where.line.data}" if type(where).__name__ == "FileLineColLoc" else ""
    st.data_conditions = saved + (f"a loop whose trips come from loaded values ({', '.join(sorted(trips))}){line}",)
    yielded = _run_block(body, st) or []
    st.data_conditions = saved
    for r, value in zip(op.results, [*yielded, *([None] * len(op.results))]):
        st.values[r] = Opaque("a value a loop on loaded data carries", trips | sources_of(value) if value else trips,
                              combined=combined_of(value) | {UNNAMED} if value else frozenset())


@rule("scf.for")
def _scf_for(op: Operation, st: State) -> None:
    lb, ub, step = (st.get(o) for o in op.operands[:3])
    inits = [st.get(o) for o in op.operands[3:]]
    body = op.regions[0].blocks[0]
    if not all(isinstance(v, Tile) for v in (lb, ub, step)):
        trips = sources_of(lb, ub, step)
        if trips and st.runs_check_bounds:
            _loop_on_data(op, st, trips)
            return
        st.out.append(UnmodelledOp.build(properties={
            "buffer": StringAttr("?"), "reason": StringAttr("a loop with opaque bounds")}))
        st.out[-1].location = op.location
        for r in op.results:
            st.values[r] = Opaque("loop result")
        return
    k = symbolic.seq(next(st.seq_counter))
    iv = lb.expr + k * step.expr
    st.values[body.args[0]] = Tile(iv)
    # Loop-carried values: `v_{k+1} = v_k + d` with a loop-invariant d is `init + k*d`. The
    # increments are often computed inside the body: a dry run of it (its accesses discarded)
    # evaluates them first.
    # An index or pointer starts as a symbol of its own (`CARRY<i>`), so that an increment made by a
    # nested loop (`a_ptrs += BLOCK_K * stride` inside an inner loop) shows as yielded - symbol.
    bases = [_carry_base(init, i) for i, init in enumerate(inits)]
    for arg, base in zip(body.args[1:], bases):
        st.values[arg] = base if base is not None else Opaque("a loop-carried value")
    emitted = len(st.out)
    dry = _run_block(body, st) or []
    del st.out[emitted:]  # (access ids keep counting: they need to be unique, not dense)
    carried = _carried_steps(body, st, inits)
    carried = [delta if delta is not None else _yielded_step(base, dry[i] if i < len(dry) else None, k)
               for i, (delta, base) in enumerate(zip(carried, bases))]
    # A carried value that no step describes (`b = where(lengths[b] == 0, b + 1, b)`) is opaque,
    # computed from what its trips read: it stands for a marker here, replaced by those reads'
    # ids once the body has run (`_resolve_carried`).
    markers: dict[str, int] = {}
    for i, (arg, init, delta) in enumerate(zip(body.args[1:], inits, carried)):
        st.values[arg] = _advance(init, k, delta)
        if delta is None:
            marker = f"*carried{next(st.carry_counter)}*"
            markers[marker] = i
            st.values[arg] = Opaque("a loop-carried value", sources_of(init) | {marker})
    saved = st.seq_domain
    st.seq_domain = saved + (sympy.Ge(k, 0), sympy.Lt(iv, ub.expr))
    body_emitted = len(st.out)
    yielded = _run_block(body, st) or []
    st.seq_domain = saved
    accumulators = {i: _accumulator(body.args[1 + i], body.last_op.operands[i])
                    for marker, i in markers.items()
                    if i < len(yielded) and marker in getattr(yielded[i], "sources", frozenset())}
    if markers:
        yielded = _resolve_carried(st, body_emitted, markers, inits, yielded, k, accumulators)
    # An index or pointer advanced by d each trip ends at init + trips*d; any other result is
    # computed from everything its iterations read (a reduction's sum).
    trips = sympy.Max(0, sympy.ceiling((ub.expr - lb.expr) / step.expr)) if step.expr.is_positive else None
    for i, r in enumerate(op.results):
        delta = carried[i] if i < len(carried) else None
        if trips is not None and delta is not None and isinstance(inits[i], (Tile, Pointer)):
            st.values[r] = _advance(inits[i], trips, delta)
            continue
        last = [inits[i]] + ([yielded[i]] if i < len(yielded) else [])
        by = frozenset({accumulators[i]}) if i in accumulators else frozenset()
        st.values[r] = Opaque("loop result", sources_of(*last), _merged_dims(last[1:], len(shape_of(r))),
                              accum_of(*last), combined_of(*last) | by)


def _accumulator(arg: SSAValue, yielded: SSAValue) -> str:
    """How a loop accumulates into its carried value `arg`: the operator of the op computing the next
    trip's value from it (`acc += x[i]`: sum, `m = fmaxf(m, v)`: max, `tl.dot(a, b, acc)`: sum);
    UNNAMED when that is not one op on `arg` (`acc = acc * alpha + p`, an `if` choosing)."""
    owner = yielded.owner if isinstance(yielded.owner, Operation) else None
    if owner is None or arg not in owner.operands:
        return UNNAMED
    if owner.name in ("math.fma", "tt.dot"):  # a * b + acc
        return "sum" if owner.operands[2] == arg and arg not in owner.operands[:2] else UNNAMED
    return combiner(owner)


def _resolve_carried(st: State, emitted: int, markers: dict[str, int], inits: list[Value],
                     yielded: list[Value], trip: sympy.Symbol, accumulators: dict[int, str]) -> list[Value]:
    """Replace each carried value's marker by the reads it is computed from (its initial value's and
    its yielded value's, markers dropped) in the accesses the body emitted and in what it yields; an
    access indexed by a carried value that reads nothing is `access.unmodelled` after all. Inside the
    body, the carried value of trip k holds what trips 0..k-1 yielded: those sources get the step
    `<trip` (`sources.earlier`), and an access storing it the loop's accumulating operator
    (`accumulators`: a running sum stored each trip is a sum); after the loop, every trip's."""
    def real(sources: frozenset[str], inside: bool = False) -> frozenset[str]:
        out = frozenset(x for x in sources if x not in markers)
        for marker in sources & markers.keys():
            i = markers[marker]
            out |= frozenset(x for x in sources_of(inits[i]) if x not in markers)
            mine = sources_of(yielded[i]) if i < len(yielded) else frozenset()
            out |= frozenset(earlier(x, trip.name) if inside and x != MOVED and not x.startswith("*") else x
                             for x in mine if x not in markers)
        return out

    for n in range(emitted, len(st.out)):
        op = st.out[n]
        given = frozenset(a.data for a in op.sources.data) if hasattr(op, "sources") and op.sources is not None \
            else frozenset()
        if not given & markers.keys():
            continue
        resolved = real(given, inside=isinstance(op, AccessOp))  # an indirect access names read ids only
        if isinstance(op, IndirectOp) and not resolved:
            replacement = UnmodelledOp.build(properties={"buffer": op.buffer, "reason": StringAttr(
                "an index computed from a loop-carried value")})
            replacement.location = op.location
            st.out[n] = replacement
            continue
        op.properties["sources"] = ArrayAttr([StringAttr(x) for x in sorted(resolved)])
        by = {accumulators[markers[m]] for m in given & markers.keys() if markers[m] in accumulators}
        if by and isinstance(op, AccessOp) and op.kind.data != "read":
            had = {c.data for c in op.combined.data} if op.combined is not None else set()
            op.properties["combined"] = ArrayAttr([StringAttr(c) for c in sorted(had | by)])
    return [replace(v, sources=real(v.sources)) if isinstance(v, (Tile, Opaque)) and v.sources & markers.keys()
            else v for v in yielded]


def _carry_base(init: Value, i: int) -> Tile | Pointer | None:
    """What a loop-carried index or pointer stands as in the dry run: its initial value plus a
    symbol of its own (`CARRY<i>`), the same tile dimensions."""
    carry = sympy.Symbol(f"CARRY{i}", integer=True)
    if isinstance(init, Tile) and not _is_condition(init.expr):
        return Tile(init.expr + carry, init.dims, init.sources, init.narrow)
    if isinstance(init, Pointer) and init.unknown is None:
        return replace(init, offset=replace(init.offset, expr=init.offset.expr + carry))
    return None


def _yielded_step(base: Tile | Pointer | None, yielded: Value | None, k: sympy.Symbol) -> Tile | None:
    """yielded - base, when it is the same every trip (no carried symbol, no trip counter in it)."""
    if base is None or yielded is None:
        return None
    if isinstance(base, Pointer):
        if not isinstance(yielded, Pointer) or yielded.buffer != base.buffer or yielded.unknown is not None:
            return None
        start, end, dims = base.offset.expr, yielded.offset.expr, yielded.offset.dims
    elif isinstance(yielded, Tile):
        start, end, dims = base.expr, yielded.expr, yielded.dims
    else:
        return None
    delta = sympy.expand(end - start)
    if k in delta.free_symbols or any(str(v).startswith("CARRY") for v in delta.free_symbols):
        return None
    return Tile(delta, dims if delta.free_symbols & {d for d in dims if d is not None} else ())


def _carried_steps(body: Block, st: State, inits: list[Value]) -> list[Tile | None]:
    """For each iter_arg, the loop-invariant increment its yield adds (or None)."""
    yield_op = body.last_op
    steps: list[Tile | None] = []
    for i, arg in enumerate(body.args[1:]):
        step = None
        if yield_op is not None and i < len(yield_op.operands):
            producer = yield_op.operands[i].owner
            if isinstance(producer, Operation) and producer.name in ("tt.addptr", "arith.addi", "tt.advance"):
                if producer.operands[0] is arg and producer.name != "tt.advance":
                    inc = st.get(producer.operands[1])
                    invariant = isinstance(inc, Tile) and not any(
                        symbolic.tag_of(v) is symbolic.Tag.SEQ for v in inc.expr.free_symbols)
                    step = inc if invariant else None
        steps.append(step)
    return steps


def _advance(init: Value, k: sympy.Symbol, delta: Tile | None) -> Value:
    if delta is None:
        return Opaque("a loop-carried value")
    if isinstance(init, Pointer):
        return replace(init, offset=Tile(init.offset.expr + k * delta.expr,
                                         init.offset.dims or delta.dims, init.offset.sources))
    if isinstance(init, Tile):
        return Tile(init.expr + k * delta.expr, init.dims or delta.dims, init.sources)
    return Opaque("a loop-carried value")


MAX_UNROLL = 64  # trips of a while loop with a constant trip sequence that are unrolled


@rule("scf.while")
def _scf_while(op: Operation, st: State) -> None:
    """A while loop whose condition is the same constant for every work item on every trip (`for
    (stride = 128; stride > 32; stride >>= 1)`) is unrolled: each trip's accesses are recorded with
    that trip's constants. Any other while loop cannot be enumerated: where the runs check bounds
    (CUDA, Triton), see `_while_unenumerated`; elsewhere its accesses are unmodelled."""
    before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
    carried = [st.get(o) for o in op.operands]
    emitted = len(st.out)
    for _ in range(MAX_UNROLL):
        for arg, value in zip(before.args, carried, strict=True):
            st.values[arg] = value
        _run_block(before, st)
        condition = before.last_op
        flag = st.get(condition.operands[0])
        forwarded = [st.get(o) for o in condition.operands[1:]]
        if not (isinstance(flag, Tile) and flag.expr in (sympy.true, sympy.false)):
            break
        if flag.expr is sympy.false:
            for result, value in zip(op.results, forwarded, strict=True):
                st.values[result] = value
            return
        for arg, value in zip(after.args, forwarded, strict=True):
            st.values[arg] = value
        carried = _run_block(after, st) or []
    del st.out[emitted:]  # a partial unrolling would claim too much: forget it
    if st.runs_check_bounds:
        _while_unenumerated(op, st, [st.get(o) for o in op.operands])
        return
    for region in op.regions:
        for inner in region.walk():
            if inner.name in ("memref.load", "memref.store", "memref.atomic_rmw", "simt.atomic_cas",
                              "tt.load", "tt.store", "tt.atomic_rmw"):
                st.out.append(UnmodelledOp.build(properties={
                    "buffer": StringAttr("?"),
                    "reason": StringAttr("an access inside a while loop whose trips depend on the work item "
                                         "or the sizes")}))
                st.out[-1].location = inner.location
    for r in op.results:
        st.values[r] = Opaque("while-loop result")


def _while_unenumerated(op: Operation, st: State, inits: list[Value]) -> None:
    """A while loop whose trips cannot be enumerated (`while (product > limit)` of a Poisson draw):
    its carried values are opaque, computed from what their initial values and the loop read, so an
    access indexed by one is `access.indirect` when those are loaded data (bounds-checked by the
    runs) and `access.unmodelled` otherwise; an access whose index the loop does not change keeps it,
    under a `data_condition` (it happens on some trips, or on none)."""
    before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
    where = op.location
    line = f" at line {where.line.data}" if type(where).__name__ == "FileLineColLoc" else ""
    saved = st.data_conditions
    st.data_conditions = saved + (f"a while loop whose trips lowercheck does not enumerate{line}",)
    why = "a value a while loop carries"
    seen = sources_of(*inits)
    for arg in before.args:
        st.values[arg] = Opaque(why, seen)
    _run_block(before, st)
    condition = before.last_op
    forwarded = [st.get(o) for o in condition.operands[1:]]
    seen = seen | sources_of(st.get(condition.operands[0]), *forwarded)
    for arg in after.args:
        st.values[arg] = Opaque(why, seen)
    yielded = _run_block(after, st) or []
    st.data_conditions = saved
    seen = seen | sources_of(*yielded)
    for r in op.results:
        st.values[r] = Opaque("while-loop result", seen, combined=combined_of(*yielded) | {UNNAMED})


@rule("scf.yield", "tt.return", "func.return", "tt.reduce.return", "scf.condition", "tt.assert",
      "tt.print", "gpu.barrier", "simt.syncwarp")
def _terminator(op: Operation, st: State) -> None:
    pass


def _run_block(block: Block, st: State) -> list[Value] | None:
    """Evaluate a block's ops; returns the values its terminator yields."""
    yielded = None
    for op in block.ops:
        if op.name == "scf.yield":
            yielded = [st.get(o) for o in op.operands]
            continue
        handler = RULES.get(op.name)
        if handler is None:
            if op.name.startswith("math.") or not _touches_memory(op):
                handler = _generic_value
            else:
                st.out.append(UnmodelledOp.build(properties={
                    "buffer": StringAttr("?"), "reason": StringAttr(f"unsupported op {op.name}")}))
                st.out[-1].location = op.location
                continue
        try:
            handler(op, st)
        except NotModelled as why:
            for r in op.results:
                st.values[r] = Opaque(str(why))
    return yielded


def _touches_memory(op: Operation) -> bool:
    return any(op.name.startswith(p) for p in ("memref.", "tt.load", "tt.store", "tt.atomic", "gpu."))


# ---------------------------------------------------------------------------------------------
# The pass


def kernel_functions(module: ModuleOp) -> dict[str, Operation]:
    """The module's kernel functions (func.func and tt.func) by symbol name."""
    found = {}
    for op in module.ops:
        if op.name in ("func.func", "tt.func"):
            name = prop(op, "sym_name")
            found[name.data] = op
    return found


def _host_descriptors(body: Block, st: State) -> None:
    """A kernel argument `!tt.tensordesc` made by the wrapper (a host `TensorDescriptor`): Triton
    passes it with its shape then its strides as the next arguments; together, a `Descriptor` of
    the buffer the launch passes for it."""
    args = list(body.args)
    for i, arg in enumerate(args):
        if isinstance(arg.type, TensorDescType):
            rank = len(arg.type.block_type.get_shape())
            dims = [st.values.get(a) for a in args[i + 1:i + 1 + 2 * rank]]
            st.values[arg] = _descriptor(st.values.get(arg), dims if len(dims) == 2 * rank else [])


def extract_launch(launch: LaunchOp, func: Operation, entry: EntryOp) -> KernelOp:
    grid = [symbolic.parse(g) for g in launch.grid_exprs]
    block = [symbolic.parse(b) for b in launch.block_exprs] or [sympy.Integer(1)] * 3
    block = block + [sympy.Integer(1)] * (3 - len(block))
    st = State(launch=launch, grid=grid, block=block, is_triton=func.name == "tt.func",
               runs_check_bounds=entry.language.data in ("cuda", "triton") or BOUNDS_CHECKED in func.attributes)
    body = func.regions[0].blocks[0]
    for arg, text in zip(body.args, launch.arg_exprs, strict=False):
        name, offset = split_view(text)  # `x[n*k:]`: the buffer x from element n*k on
        param = entry.param(name)
        if param is not None and param.kind.data == "buffer":
            element = arg.type.element_type if hasattr(arg.type, "element_type") else param.element_type
            if not hasattr(arg.type, "element_type"):
                element = param.element_type
            start = symbolic.parse(offset) if offset is not None else sympy.Integer(0)
            st.values[arg] = Pointer(name, Tile(start), element)
        else:
            try:
                value = symbolic.parse(text)
                st.values[arg] = Tile(_as_condition(value) if _is_i1(arg) else value)
            except ValueError:
                st.values[arg] = Opaque(f"argument `{text}`")
    _host_descriptors(body, st)
    if not st.is_triton:
        # CUDA: the thread's position inside its block ranges over the block.
        for axis in range(3):
            st.lane_ranges[symbolic.lane(axis)] = (sympy.Integer(0), block[axis])
    _run_block(body, st)
    kernel = KernelOp.build(properties={"callee": SymbolRefAttr(func.properties["sym_name"].data
                                                                if "sym_name" in func.properties
                                                                else func.attributes["sym_name"].data),
                                        "grid": ArrayAttr([StringAttr(g) for g in launch.grid_exprs]),
                                        **({"ordered": launch.ordered} if launch.ordered is not None else {})},
                            regions=[Region(Block(st.out))])
    kernel.location = launch.location
    return kernel


class ExtractAccessesPass(ModulePass):
    """Replace each entry's kernels with the `access.kernel` of each launch."""

    name = "extract-accesses"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        funcs = kernel_functions(op)
        entries = [e for e in op.ops if isinstance(e, EntryOp)]
        new_ops: list[Operation] = []
        for entry in entries:
            for launch in entry.launches:
                callee = launch.callee.root_reference.data
                if callee not in funcs:
                    raise ValueError(f"kernel.launch of unknown kernel @{callee}")
                new_ops.append(extract_launch(launch, funcs[callee], entry))
        for f in funcs.values():
            f.detach()
            f.erase(safe_erase=False)
        for new in new_ops:
            op.body.block.add_op(new)
