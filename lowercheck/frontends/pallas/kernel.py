"""A pallas_call's kernel body as tile IR: one `tt.func` that `extract-accesses` reads like a Triton
kernel (see docs/CONVENTIONS-IR.md, "Pallas kernel IR").

The function takes one `!tt.ptr<T>` per ref (scalar-prefetch operands, whole arrays; then inputs,
then outputs); a scratch buffer (`scratch_shapes`) is a `memref.alloca` in address space 3 (one per
program, as a CUDA `__shared__` array), addressed the same way. Its prologue computes the program
index of each grid axis (a grid of more than three axes folds its leading axes into launch axis 0),
per BlockSpec the block index from them (the `index_map` jaxpr, as arith ops, reading the prefetched
arrays where it does) and the window start `block index * block size` along each array dimension.
A ref access in the body (`x_ref[...]`, `x_ref[pl.ds(i, 16), :]`, `x_ref[3]`, `plgpu.load(x_ref.at[...],
mask=...)`, index arrays `x_ref.at[rows[:, None], cols[None, :]]`) is a `tt.load`/`tt.store` whose
pointers are the window start plus the in-block index along each array dimension (an index array's
values along its dimension), flattened row-major over the whole array: one `tt.make_range` per lane
(see `lanes.py`).

Padding: where the block does not divide the array, the last block's elements past the end are
what Pallas pads (reads see unspecified values, writes are dropped); the access is guarded by
`element < extent`. A block index past the last block is no padding but a window outside the
array (an invalid DMA on TPU; the interpreter silently clamps it): when some program's index_map
gives one, the guard is `element < extent or window start >= extent`, so those accesses stay and
the bounds check reports them. Negative block indices are never guarded.

Every jaxpr primitive has one lowering in `_LOWERINGS`; any other raises `Unsupported` at the
user's line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from math import prod
from typing import Any

from xdsl.dialects import arith, math, memref, scf
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    FunctionType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from lowercheck.dialects import tt
from lowercheck.dialects.kernel import BOUNDS_CHECKED
from lowercheck.errors import SourceLocation, Unsupported
from lowercheck.frontends.pallas.capture import location, row_major
from lowercheck.frontends.pallas.lanes import Lanes
from lowercheck.runners.pallas_interp import is_tpu_kernel

I32 = IntegerType(32)
I1 = IntegerType(1)
_ELEMENTS: dict[str, Attribute] = {
    "float32": Float32Type(), "float16": Float16Type(), "bfloat16": BFloat16Type(), "float64": Float64Type(),
    "int8": IntegerType(8), "uint8": IntegerType(8), "int16": IntegerType(16), "uint16": IntegerType(16),
    "int32": I32, "uint32": I32, "int64": IntegerType(64), "uint64": IntegerType(64), "bool": I1,
}


def element_type(dtype: Any, where: SourceLocation | None = None) -> Attribute:
    name = str(dtype)
    if name not in _ELEMENTS:
        raise Unsupported(f"arrays of `{name}` are not supported yet", where)
    return _ELEMENTS[name]


def _type(aval: Any, where: SourceLocation | None = None) -> Attribute:
    element = element_type(aval.dtype, where)
    return TensorType(element, list(aval.shape)) if aval.shape else element


def _is_float(t: Attribute) -> bool:
    element = t.element_type if isinstance(t, TensorType) else t
    return not isinstance(element, IntegerType)


def _shape(t: Attribute) -> tuple[int, ...]:
    return tuple(t.get_shape()) if isinstance(t, TensorType) else ()


def _broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    if not a or not b:
        return a or b
    return tuple(max(x, y) for x, y in zip(a, b, strict=True))


def _is_literal(atom: Any) -> bool:
    return type(atom).__name__ == "Literal"


def _shape_of_atom(atom: Any) -> tuple[int, ...]:
    """The shape of a jaxpr variable or literal used as an index (() for a Python int)."""
    return tuple(getattr(getattr(atom, "aval", None), "shape", ()))


def _is_whole(transform: Any, view: View) -> bool:
    """Whether an NDIndexer selects all of the ref it indexes (`ref[...]` after `ref.at[idx]`)."""
    whole = all(type(i).__name__ == "Slice" and isinstance(i.start, int) and i.start == 0 and i.stride == 1
                and int(i.size) == extent for i, extent in zip(transform.indices, transform.shape, strict=True))
    return whole and tuple(transform.shape) == (*view.gathered, *(d.size for d in view.dims if d.size is not None))


# ---------------------------------------------------------------------------------------------
# Refs as the body sees them


@dataclass(frozen=True)
class Dim:
    """How one array dimension is indexed: from element `start` (an i32 value), `size` elements
    `stride` apart (a tile dimension), only `start` (size None: an integer index), or `start` plus
    the i32 tile `gather` (size None: an index array, `x_ref.at[idx]`; the tile has the view's
    `gathered` shape, or broadcasts to it)."""

    start: SSAValue
    size: int | None
    stride: int = 1
    gather: SSAValue | None = None


@dataclass(frozen=True)
class View:
    """A ref: its pointer argument, the array's shape, and its window (one Dim per array dim)."""

    arg: SSAValue
    shape: tuple[int, ...]
    element: Attribute
    dims: tuple[Dim, ...]
    window: tuple[SSAValue, ...]  # the block's first element along each array dimension
    guards: tuple[str, ...]  # per array dim: "" | "pad" | "pad-or-outside" (see the module doc)
    # The shape the index arrays broadcast to: as in NDIndexer, it leads the accessed tile's shape,
    # before the dimensions still indexed by slices.
    gathered: tuple[int, ...] = ()
    # Element strides into the buffer per array dimension: None for row-major over `shape`; an
    # operand the entry broadcast has stride 0 along the repeated dimensions (`capture.Call.strides`).
    strides: tuple[int, ...] | None = None


def _is_zero_constant(value: SSAValue) -> bool:
    """Whether `value` is 0 as built: a constant 0, or sums and products of such (`0 + 0 * stride`,
    the start of a full slice of a full dimension)."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp):
        return isinstance(owner.value, IntegerAttr) and owner.value.value.data == 0
    if isinstance(owner, Operation) and owner.name.endswith(".addi"):
        return all(_is_zero_constant(o) for o in owner.operands)
    if isinstance(owner, Operation) and owner.name.endswith(".muli"):
        return any(_is_zero_constant(o) for o in owner.operands)
    return False


def store_operands(eqn) -> tuple[Any, Any]:
    """(stored value, mask or None) of swap / addupdate / masked_swap."""
    if eqn.primitive.name == "masked_swap":
        _, _, value, mask = _unflatten(eqn)
        return value, mask
    return eqn.invars[1], None


def load_operands(eqn) -> tuple[Any, Any]:
    """(mask, other) of masked_load (either may be None)."""
    _, _, mask, other = _unflatten(eqn)
    return mask, other


def access_transforms(eqn) -> tuple:
    """The ref transforms (NDIndexers) of get / swap / addupdate / masked_load / masked_swap."""
    if eqn.primitive.name in ("masked_load", "masked_swap"):
        return tuple(_unflatten(eqn)[1] or ())
    return tuple(_unflatten(eqn))


def _unflatten(eqn) -> tuple:
    import jax

    if eqn.primitive.name in ("masked_load", "masked_swap"):
        return jax.tree_util.tree_unflatten(eqn.params["args_tree"], eqn.invars)
    leaves = eqn.invars[1:] if eqn.primitive.name == "get" else eqn.invars[2:]
    return jax.tree_util.tree_unflatten(eqn.params["tree"], leaves)


# ---------------------------------------------------------------------------------------------
# The builder


Lowering = Callable[["KernelBuilder", Any], None]
_LOWERINGS: dict[str, Lowering] = {}


def lowering(*names: str):
    def register(fn: Lowering) -> Lowering:
        for name in names:
            _LOWERINGS[name] = fn
        return fn
    return register


@dataclass
class KernelBuilder:
    path: str
    lanes: Lanes
    block: list[Operation] = field(default_factory=list)
    prologue: list[Operation] = field(default_factory=list)
    values: dict[Any, SSAValue | View] = field(default_factory=dict)
    ranges: dict[Any, SSAValue] = field(default_factory=dict)
    where: SourceLocation | None = None  # the location given to the ops being emitted
    used: set[Any] = field(default_factory=set)  # variables some equation or result reads
    grid: tuple[int, ...] = ()  # the pallas_call's grid, every axis
    program_ids: list[SSAValue] = field(default_factory=list)  # per grid axis (see `program_ids`)

    # --- emission --------------------------------------------------------------------------

    def emit(self, op: Operation, into: list[Operation] | None = None) -> SSAValue | None:
        if self.where is not None:
            op.location = FileLineColLoc(StringAttr(self.where.file), IntAttr(self.where.line),
                                         IntAttr(self.where.column))
        (self.block if into is None else into).append(op)
        return op.results[0] if op.results else None

    def create(self, cls: type[Operation], operands: Sequence[SSAValue], result: Attribute | None,
               **props: Attribute) -> SSAValue | None:
        return self.emit(cls.create(operands=list(operands), result_types=[result] if result else [],
                                    properties=props))

    def constant(self, value: float | int | bool, t: Attribute) -> SSAValue:
        element = t.element_type if isinstance(t, TensorType) else t
        if isinstance(t, TensorType):
            attr = DenseIntOrFPElementsAttr.from_list(t, [value])
        elif isinstance(element, IntegerType):
            attr = IntegerAttr(int(value), element)
        else:
            attr = FloatAttr(float(value), element)
        return self.emit(arith.ConstantOp(attr, t))

    def i32(self, value: int) -> SSAValue:
        return self.constant(value, I32)

    def splat(self, value: SSAValue, shape: Sequence[int]) -> SSAValue:
        """`value` as a tile of `shape`: a scalar splat, size-1 dimensions broadcast."""
        if not shape or _shape(value.type) == tuple(shape):
            return value
        if isinstance(value.type, TensorType):
            return self.create(tt.BroadcastOp, [value], TensorType(value.type.element_type, list(shape)))
        return self.create(tt.SplatOp, [value], TensorType(value.type, list(shape)))

    def binary(self, name: str, a: SSAValue, b: SSAValue) -> SSAValue:
        shape = _broadcast_shape(_shape(a.type), _shape(b.type))
        a, b = self.splat(a, shape), self.splat(b, shape)
        return self.emit(_OPS[name](a, b))

    def cmp(self, predicate: str, a: SSAValue, b: SSAValue) -> SSAValue:
        shape = _broadcast_shape(_shape(a.type), _shape(b.type))
        a, b = self.splat(a, shape), self.splat(b, shape)
        result = TensorType(I1, list(shape)) if shape else I1
        if _is_float(a.type):
            return self.create(tt.CmpfOp, [a, b], result, predicate=IntegerAttr(_CMPF[predicate], 64),
                               fastmath=arith.FastMathFlagsAttr("none"))
        return self.create(tt.CmpiOp, [a, b], result, predicate=IntegerAttr(_CMPI[predicate], 64))

    def range(self, cls: Any, size: int) -> SSAValue:
        """The `tt.make_range` of a lane class (in the prologue: every use sees the same lane)."""
        if cls not in self.ranges:
            op = tt.MakeRangeOp.create(properties={"start": IntegerAttr(0, I32), "end": IntegerAttr(size, I32)},
                                       result_types=[TensorType(I32, [size])])
            self.ranges[cls] = self.emit(op, into=self.prologue)
        return self.ranges[cls]

    def lane_tile(self, cls: Any, size: int, position: int, shape: Sequence[int]) -> SSAValue:
        """arange(size) placed along `position` of a tile of `shape` (expand_dims, broadcast)."""
        value = self.range(cls, size)
        current = [size]
        for axis in range(len(shape)):
            if axis != position:
                current.insert(axis, 1)
                value = self.create(tt.ExpandDimsOp, [value], TensorType(I32, list(current)),
                                    axis=IntegerAttr(axis, I32))
        if tuple(current) != tuple(shape):
            value = self.create(tt.BroadcastOp, [value], TensorType(I32, list(shape)))
        return value

    def leading(self, value: SSAValue, shape: Sequence[int]) -> SSAValue:
        """`value` (a tile of the leading dimensions of `shape`, or one that broadcasts to them)
        extended over the trailing ones: an index array placed in the tile it indexes."""
        rank = len(_shape(value.type))
        if not isinstance(value.type, TensorType) or rank == len(shape):
            return self.splat(value, shape)
        element = value.type.element_type
        current = list(_shape(value.type))
        for axis in range(rank, len(shape)):
            current.append(1)
            value = self.create(tt.ExpandDimsOp, [value], TensorType(element, list(current)),
                                axis=IntegerAttr(axis, I32))
        return self.splat(value, shape)

    def value(self, atom: Any) -> SSAValue:
        if _is_literal(atom):
            return self.constant(atom.val.item() if hasattr(atom.val, "item") else atom.val,
                                 _type(atom.aval, self.where))
        found = self.values.get(atom)
        if found is None or isinstance(found, View):
            raise Unsupported("a ref used as a value" if isinstance(found, View) else "a value with no lowering",
                              self.where)
        return found

    def view(self, atom: Any) -> View:
        found = self.values.get(atom)
        if not isinstance(found, View):
            raise Unsupported("an access through something that is not a kernel ref", self.where)
        return found

    def classes(self, var: Any) -> list[Any]:
        """The lane class of each dimension of `var` (None for dimensions of size 1)."""
        if _is_literal(var):
            return []
        return [self.lanes.find((var, d)) if size > 1 else None for d, size in enumerate(var.aval.shape)]

    # --- the body ----------------------------------------------------------------------------

    def run(self, jaxpr) -> None:
        self.used |= {v for e in jaxpr.eqns for v in e.invars if not _is_literal(v)}
        self.used |= {v for v in jaxpr.outvars if not _is_literal(v)}
        for eqn in jaxpr.eqns:
            saved = self.where
            self.where = location(eqn, self.path) or saved
            try:
                handler = _LOWERINGS.get(eqn.primitive.name)
                if handler is None:
                    raise Unsupported(f"the Pallas kernel uses `{eqn.primitive.name}`, which lowercheck does "
                                      "not model yet", self.where,
                                      hint="the modelled constructs are listed in docs/CONVENTIONS-IR.md "
                                           "(Pallas kernel IR)")
                handler(self, eqn)
            finally:
                self.where = saved

    def nested(self, jaxpr, args: Sequence[SSAValue | View], into: Block) -> list[SSAValue]:
        """Lower `jaxpr` into `into` with its inputs bound to `args`; returns its outputs."""
        saved = self.block
        self.block = []
        try:
            for var, arg in zip(jaxpr.invars, args, strict=True):
                self.values[var] = arg
            self.run(jaxpr)
            outs = [self.value(v) for v in jaxpr.outvars]
            into.add_ops(self.block)
        finally:
            self.block = saved
        return outs

    # --- accesses ----------------------------------------------------------------------------

    def indexed(self, view: View, transforms: Sequence[Any]) -> View:
        """`view` narrowed by `ref.at[...]` / `ref[...]` indexers (NDIndexer of slices, integers and
        index arrays: a gather, whose element positions are the arrays' values)."""
        for transform in transforms:
            if type(transform).__name__ == "ReshapeTransform":
                view = self._reshaped(view, tuple(int(n) for n in transform.shape))
                continue
            if type(transform).__name__ != "NDIndexer":
                raise Unsupported(f"a ref transformed by {type(transform).__name__}", self.where)
            gathered = tuple(int(n) for n in getattr(transform, "int_indexer_shape", ()))
            if view.gathered:
                if _is_whole(transform, view):
                    continue
                raise Unsupported("a ref indexed by an array and then indexed again", self.where,
                                  hint="index the ref once: `x_ref.at[rows, cols]`")
            free = iter([i for i, d in enumerate(view.dims) if d.size is not None])
            dims = list(view.dims)
            for index in transform.indices:
                position = next(free)
                dim = dims[position]
                if type(index).__name__ == "Slice":
                    start = self.index(index.start)
                    offset = self.binary("mul", start, self.i32(dim.stride)) if dim.stride != 1 else start
                    dims[position] = Dim(self.binary("add", dim.start, offset), int(index.size),
                                         dim.stride * int(index.stride))
                elif _shape_of_atom(index):
                    positions = self.value(index)
                    if dim.stride != 1:
                        positions = self.binary("mul", positions, self.i32(dim.stride))
                    dims[position] = Dim(dim.start, None, gather=positions)
                else:
                    offset = self.index(index)
                    offset = self.binary("mul", offset, self.i32(dim.stride)) if dim.stride != 1 else offset
                    dims[position] = Dim(self.binary("add", dim.start, offset), None)
            view = replace(view, dims=tuple(dims), gathered=view.gathered or gathered)
        return view

    def _reshaped(self, view: View, shape: tuple[int, ...]) -> View:
        """`ref.reshape(*shape)` of a ref that is whole after its leading integer indices
        (`bufs.at[slot].reshape(-1, heads, dim)`): the same row-major elements, the trailing array
        dimensions replaced by `shape`. Any other reshape (a window, a gather, strides) is not modelled."""
        free = [axis for axis, d in enumerate(view.dims) if d.size is not None]
        lead = free[0] if free else len(view.dims)
        whole = all(view.dims[axis].size == view.shape[axis] and view.dims[axis].stride == 1
                    and _is_zero_constant(view.dims[axis].start) and not view.guards[axis]
                    for axis in range(lead, len(view.dims)))
        if view.gathered or view.strides is not None or free != list(range(lead, len(view.dims))) or not whole \
                or prod(shape) != prod(view.shape[lead:]):
            raise Unsupported("a reshape of a ref that is not whole after its integer indices", self.where)
        zero = self.i32(0)
        return replace(view, shape=(*view.shape[:lead], *shape),
                       dims=(*view.dims[:lead], *(Dim(zero, n) for n in shape)),
                       window=(*view.window[:lead], *(zero for _ in shape)),
                       guards=(*view.guards[:lead], *("" for _ in shape)))

    def index(self, atom: Any) -> SSAValue:
        if isinstance(atom, int):
            return self.i32(atom)
        return self.value(atom)

    def pointers(self, view: View, classes: list[Any]) -> tuple[SSAValue, SSAValue | None, tuple[int, ...]]:
        """Pointers of every element the access touches and the padding guard (None when none)."""
        free = [d for d in view.dims if d.size is not None]
        shape = (*view.gathered, *(d.size for d in free))
        strides = view.strides or row_major(view.shape)
        base: SSAValue | None = self.i32(0) if not view.dims else None  # a 0-d ref: its one element
        offsets: SSAValue | None = None
        guard: SSAValue | None = None
        position = len(view.gathered)
        for axis, dim in enumerate(view.dims):
            term = self.binary("mul", dim.start, self.i32(strides[axis])) if strides[axis] != 1 else dim.start
            base = term if base is None else self.binary("add", base, term)
            element: SSAValue = dim.start
            if dim.gather is not None:
                lane = self.leading(dim.gather, shape)
                element = self.binary("add", self.splat(dim.start, shape), lane)
                scaled = self.binary("mul", lane, self.i32(strides[axis])) if strides[axis] != 1 else lane
                offsets = scaled if offsets is None else self.binary("add", offsets, scaled)
            elif dim.size is not None:
                if dim.size > 1:
                    lane = self.lane_tile(classes[position], dim.size, position, shape)
                    if dim.stride != 1:
                        lane = self.binary("mul", lane, self.i32(dim.stride))
                    element = self.binary("add", self.splat(dim.start, shape), lane)
                    scaled = self.binary("mul", lane, self.i32(strides[axis])) if strides[axis] != 1 else lane
                    offsets = scaled if offsets is None else self.binary("add", offsets, scaled)
                position += 1
            if view.guards[axis]:
                inside = self.cmp("lt", element, self.i32(view.shape[axis]))
                if view.guards[axis] == "pad-or-outside":
                    outside = self.cmp("ge", view.window[axis], self.i32(view.shape[axis]))
                    inside = self.binary("or", inside, outside)
                guard = inside if guard is None else self.binary("and", guard, inside)
        assert base is not None
        total = base if offsets is None else self.binary("add", self.splat(base, shape), offsets)
        # Typed as pointers whatever the ref is (a `!tt.ptr` argument, a scratch buffer's alloca).
        pointer_type = TensorType(tt.PtrType(view.element), list(shape)) if shape else tt.PtrType(view.element)
        pointer = self.create(tt.SplatOp, [view.arg], pointer_type) if shape else view.arg
        pointer = self.create(tt.AddPtrOp, [pointer, total], pointer_type)
        if guard is not None:
            guard = self.splat(guard, shape)
        return pointer, guard, shape

    def load(self, view: View, result: Any, mask: SSAValue | None, other: SSAValue | None) -> SSAValue:
        pointer, guard, shape = self.pointers(view, self.classes(result))
        mask = self._both(guard, mask, shape)
        result_type = TensorType(view.element, list(shape)) if shape else view.element
        if other is not None:
            other = self.splat(other, shape)
        op = tt.LoadOp(operands=[pointer, [mask] if mask is not None else [], [other] if other is not None
                                 and mask is not None else []], result_types=[result_type], properties={})
        return self.emit(op)

    def store(self, view: View, value_var: Any, value: SSAValue, mask: SSAValue | None) -> None:
        pointer, guard, shape = self.pointers(view, self.classes(value_var))
        mask = self._both(guard, mask, shape)
        self.emit(tt.StoreOp.create(operands=[pointer, self.splat(value, shape), *([mask] if mask else [])]))

    def _both(self, guard: SSAValue | None, mask: SSAValue | None, shape) -> SSAValue | None:
        if mask is not None:
            mask = self.splat(mask, shape)
        if guard is None or mask is None:
            return guard or mask
        return self.binary("and", mask, guard)


# ---------------------------------------------------------------------------------------------
# Lowerings, one per jaxpr primitive


_CMPI = {"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5}
_CMPF = {"eq": 1, "gt": 2, "ge": 3, "lt": 4, "le": 5, "ne": 13}  # ordered, except une for `!=`
_OPS: dict[str, Callable[[SSAValue, SSAValue], Operation]] = {
    "add": arith.AddiOp, "sub": arith.SubiOp, "mul": arith.MuliOp, "and": arith.AndIOp,
    "or": arith.OrIOp, "xor": arith.XOrIOp,
}
_BINARY = {  # jax primitive -> (integer op, float op)
    "add": (arith.AddiOp, arith.AddfOp), "sub": (arith.SubiOp, arith.SubfOp), "mul": (arith.MuliOp, arith.MulfOp),
    "div": (arith.DivSIOp, arith.DivfOp), "rem": (arith.RemSIOp, None),
    "max": (arith.MaxSIOp, arith.MaximumfOp), "min": (arith.MinSIOp, arith.MinimumfOp),
    "and": (arith.AndIOp, None), "or": (arith.OrIOp, None), "xor": (arith.XOrIOp, None),
    "shift_left": (arith.ShLIOp, None), "shift_right_arithmetic": (arith.ShRSIOp, None),
    "shift_right_logical": (arith.ShRUIOp, None), "pow": (None, math.PowFOp), "atan2": (None, math.Atan2Op),
}
_UNARY = {
    "exp": math.ExpOp, "exp2": math.Exp2Op, "log": math.LogOp, "log1p": math.Log1pOp, "expm1": math.ExpM1Op,
    "tanh": math.TanhOp, "sqrt": math.SqrtOp, "rsqrt": math.RsqrtOp, "cbrt": math.CbrtOp, "sin": math.SinOp,
    "cos": math.CosOp, "tan": math.TanOp, "atan": math.AtanOp, "erf": math.ErfOp, "floor": math.FloorOp,
    "ceil": math.CeilOp, "round": math.RoundOp,
}


def _out(b: KernelBuilder, eqn, value: SSAValue) -> None:
    b.values[eqn.outvars[0]] = value


def _operands(b: KernelBuilder, eqn) -> list[SSAValue]:
    """The operands, scalars splat to the result's shape (jaxprs mix scalars with tiles)."""
    shape = tuple(eqn.outvars[0].aval.shape)
    return [b.splat(b.value(a), shape) for a in eqn.invars]


@lowering(*_BINARY)
def _binary(b: KernelBuilder, eqn) -> None:
    x, y = _operands(b, eqn)
    integer, floating = _BINARY[eqn.primitive.name]
    cls = floating if _is_float(x.type) else integer
    if cls is None:
        raise Unsupported(f"`{eqn.primitive.name}` on {'floats' if _is_float(x.type) else 'integers'}", b.where)
    _out(b, eqn, b.emit(cls(x, y)))


_THREEFRY_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def threefry_rounds(k1, k2, x1, x2, add, xor, shl, shr, orr, const):
    """The Threefry-2x32 hash (20 rounds, as jax's own lowering computes it) over any 32-bit integer
    ops: the kernel IR's (below), or numpy's in its test against jax.random."""
    def rotl(v, r: int):
        return orr(shl(v, const(r)), shr(v, const(32 - r)))

    ks = (k1, k2, xor(xor(k1, k2), const(0x1BD11BDA)))
    x = [add(x1, ks[0]), add(x2, ks[1])]
    for group in range(5):
        for r in _THREEFRY_ROTATIONS[group % 2]:
            x[0] = add(x[0], x[1])
            x[1] = xor(rotl(x[1], r), x[0])
        x[0] = add(x[0], ks[(group + 1) % 3])
        x[1] = add(add(x[1], ks[(group + 2) % 3]), const(group + 1))
    return x


@lowering("threefry2x32")
def _threefry(b: KernelBuilder, eqn) -> None:
    """`threefry2x32_p.bind(k1, k2, x1, x2)`: `threefry_rounds` in 32-bit integer ops, so the
    outputs depend on the key and the counters as they do on a TPU."""
    k1, k2, x1, x2 = _operands(b, eqn)
    shape = _shape(x1.type)

    def op(cls):
        return lambda a, c: b.emit(cls(a, c))

    def const(value: int) -> SSAValue:
        return b.splat(b.i32(value - (1 << 32) if value >= 1 << 31 else value), shape)

    out = threefry_rounds(k1, k2, x1, x2, op(arith.AddiOp), op(arith.XOrIOp), op(arith.ShLIOp),
                          op(arith.ShRUIOp), op(arith.OrIOp), const)
    b.values[eqn.outvars[0]], b.values[eqn.outvars[1]] = out


@lowering("clamp")
def _clamp(b: KernelBuilder, eqn) -> None:
    """`lax.clamp(lo, x, hi)` (`jnp.clip`): min(max(x, lo), hi)."""
    lo, x, hi = _operands(b, eqn)
    top, bottom = (arith.MinimumfOp, arith.MaximumfOp) if _is_float(x.type) else (arith.MinSIOp, arith.MaxSIOp)
    _out(b, eqn, b.emit(top(b.emit(bottom(x, lo)), hi)))


@lowering(*_UNARY)
def _unary(b: KernelBuilder, eqn) -> None:
    (x,) = _operands(b, eqn)
    _out(b, eqn, b.emit(_UNARY[eqn.primitive.name](x)))


@lowering("neg")
def _neg(b: KernelBuilder, eqn) -> None:
    (x,) = _operands(b, eqn)
    _out(b, eqn, b.emit(arith.NegfOp(x)) if _is_float(x.type) else b.binary("sub", b.constant(0, x.type), x))


@lowering("abs")
def _abs(b: KernelBuilder, eqn) -> None:
    (x,) = _operands(b, eqn)
    _out(b, eqn, b.emit(math.AbsFOp(x) if _is_float(x.type) else math.AbsIOp(x)))


@lowering("sign")
def _sign(b: KernelBuilder, eqn) -> None:
    """`lax.sign`: 1 above zero, -1 below, x itself otherwise (zeros keep their sign, NaN stays NaN)."""
    (x,) = _operands(b, eqn)
    zero, one, minus = (b.constant(v, x.type) for v in (0, 1, -1))
    below = b.create(tt.SelectOp, [b.cmp("lt", x, zero), minus, x], x.type)
    _out(b, eqn, b.create(tt.SelectOp, [b.cmp("gt", x, zero), one, below], x.type))


@lowering("not")
def _not(b: KernelBuilder, eqn) -> None:
    (x,) = _operands(b, eqn)
    ones = b.constant(True if x.type == I1 or getattr(x.type, "element_type", None) == I1 else -1, x.type)
    _out(b, eqn, b.emit(arith.XOrIOp(x, ones)))


@lowering("square", "integer_pow")
def _power(b: KernelBuilder, eqn) -> None:
    (x,) = _operands(b, eqn)
    exponent = 2 if eqn.primitive.name == "square" else int(eqn.params["y"])
    if not 1 <= abs(exponent) <= 16:
        raise Unsupported(f"integer_pow with exponent {exponent}", b.where)
    mul = arith.MulfOp if _is_float(x.type) else arith.MuliOp
    result = x
    for _ in range(abs(exponent) - 1):
        result = b.emit(mul(result, x))
    if exponent < 0:
        result = b.emit(arith.DivfOp(b.constant(1.0, x.type), result))
    _out(b, eqn, result)


@lowering("logistic")
def _logistic(b: KernelBuilder, eqn) -> None:
    (x,) = _operands(b, eqn)  # 1 / (1 + exp(-x))
    e = b.emit(math.ExpOp(b.emit(arith.NegfOp(x))))
    _out(b, eqn, b.emit(arith.DivfOp(b.constant(1.0, x.type), b.emit(arith.AddfOp(b.constant(1.0, x.type), e)))))


@lowering("eq", "ne", "lt", "le", "gt", "ge")
def _compare(b: KernelBuilder, eqn) -> None:
    x, y = (b.value(a) for a in eqn.invars)
    _out(b, eqn, b.cmp(eqn.primitive.name, x, y))


@lowering("select_n")
def _select(b: KernelBuilder, eqn) -> None:
    if len(eqn.invars) != 3:
        raise Unsupported("select_n with more than two cases", b.where)
    shape = tuple(eqn.outvars[0].aval.shape)
    predicate, if_false, if_true = (b.splat(b.value(a), shape) for a in eqn.invars)
    if predicate.type != I1 and getattr(predicate.type, "element_type", None) != I1:
        predicate = b.cmp("ne", predicate, b.constant(0, predicate.type))
    _out(b, eqn, b.create(tt.SelectOp, [predicate, if_true, if_false], if_true.type))


@lowering("convert_element_type")
def _convert(b: KernelBuilder, eqn) -> None:
    (x,) = _operands(b, eqn)
    target = _type(eqn.outvars[0].aval, b.where)
    source_element = x.type.element_type if isinstance(x.type, TensorType) else x.type
    target_element = target.element_type if isinstance(target, TensorType) else target
    if source_element == target_element:
        _out(b, eqn, x)
    elif target_element == I1:
        _out(b, eqn, b.cmp("ne", x, b.constant(0, x.type)))
    elif not _is_float(x.type) and not _is_float(target):
        if source_element == I1:
            cls = tt.ExtUIOp
        else:
            cls = tt.ExtSIOp if target_element.width.data > source_element.width.data else tt.TruncIOp
        _out(b, eqn, b.create(cls, [x], target))
    elif not _is_float(x.type):
        _out(b, eqn, b.create(tt.UIToFPOp if source_element == I1 else tt.SIToFPOp, [x], target))
    elif not _is_float(target):
        _out(b, eqn, b.create(tt.FPToSIOp, [x], target))
    else:
        _out(b, eqn, b.create(tt.FpToFpOp, [x], target))


@lowering("copy", "copy_p", "multiple_of", "optimization_barrier")
def _identity(b: KernelBuilder, eqn) -> None:
    for var, out in zip(eqn.invars, eqn.outvars, strict=True):
        b.values[out] = b.values[var] if not _is_literal(var) else b.value(var)


@lowering("debug_print", "debug_callback")
def _no_value(b: KernelBuilder, eqn) -> None:
    """Printing touches no buffer."""


@lowering("program_id", "num_programs")
def _program_id(b: KernelBuilder, eqn) -> None:
    """The prologue's program index of the axis (grids of more than three axes are folded), and the
    axis's extent, a number: Pallas grids are concrete here."""
    axis = int(eqn.params["axis"])
    if axis >= len(b.grid):
        raise Unsupported(f"`{eqn.primitive.name}({axis})` of a grid with {len(b.grid)} axes", b.where)
    if eqn.primitive.name == "program_id":
        _out(b, eqn, b.program_ids[axis])
    else:
        _out(b, eqn, b.i32(b.grid[axis]))


@lowering("iota")
def _iota(b: KernelBuilder, eqn) -> None:
    shape = tuple(eqn.params["shape"])
    axis = int(eqn.params["dimension"])
    out = eqn.outvars[0]
    if element_type(out.aval.dtype) != I32:
        raise Unsupported(f"iota of {out.aval.dtype}", b.where)
    if shape[axis] == 1:
        _out(b, eqn, b.constant(0, TensorType(I32, list(shape))))
        return
    _out(b, eqn, b.lane_tile(b.lanes.find((out, axis)), shape[axis], axis, shape))


@lowering("broadcast_in_dim")
def _broadcast_in_dim(b: KernelBuilder, eqn) -> None:
    shape = tuple(eqn.params["shape"])
    dims = tuple(eqn.params["broadcast_dimensions"])
    x = b.value(eqn.invars[0])
    if not dims or not isinstance(x.type, TensorType):
        _out(b, eqn, b.splat(x, shape))
        return
    if list(dims) != sorted(dims):
        raise Unsupported("broadcast_in_dim that transposes", b.where)
    element = x.type.element_type
    current = list(_shape(x.type))
    for axis in range(len(shape)):
        if axis not in dims:
            current.insert(axis, 1)
            x = b.create(tt.ExpandDimsOp, [x], TensorType(element, list(current)), axis=IntegerAttr(axis, I32))
    if tuple(current) != shape:
        x = b.create(tt.BroadcastOp, [x], TensorType(element, list(shape)))
    _out(b, eqn, x)


@lowering("broadcast_to")
def _broadcast_to(b: KernelBuilder, eqn) -> None:
    """numpy broadcasting to `shape`: the operand's dimensions are its trailing ones."""
    x = b.value(eqn.invars[0])
    shape = tuple(eqn.params["shape"])
    if isinstance(x.type, TensorType):
        element = x.type.element_type
        current = list(_shape(x.type))
        while len(current) < len(shape):
            current.insert(0, 1)
            x = b.create(tt.ExpandDimsOp, [x], TensorType(element, list(current)), axis=IntegerAttr(0, I32))
    _out(b, eqn, b.splat(x, shape))


@lowering("squeeze")
def _squeeze(b: KernelBuilder, eqn) -> None:
    """Dropping unit dimensions keeps every lane in place (a `tt.reshape` would say the elements
    moved between lanes)."""
    x = b.value(eqn.invars[0])
    for axis in sorted(eqn.params["dimensions"], reverse=True):
        x = _drop_unit_axis(b, x, axis)
    _out(b, eqn, x)


def _drop_unit_axis(b: KernelBuilder, x: SSAValue, axis: int) -> SSAValue:
    """`x` without its unit dimension `axis`, its elements in their lanes. A dimension the kernel
    added itself (`mask[:, None]`, a splat) is taken off again, so an index or a mask stays one;
    any other is a reduction over its one element (a loaded value keeps its dependences)."""
    owner = x.owner
    if isinstance(owner, tt.ExpandDimsOp) and owner.axis.value.data == axis:
        return owner.operands[0]
    shape = list(_shape(x.type))
    del shape[axis]
    if isinstance(owner, tt.SplatOp):
        return b.splat(owner.operands[0], shape)
    return _reduce_axis(b, x, axis, "reduce_sum")


@lowering("reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_and", "reduce_or")
def _reduce(b: KernelBuilder, eqn) -> None:
    x = b.value(eqn.invars[0])
    for axis in sorted(eqn.params["axes"], reverse=True):
        x = _reduce_axis(b, x, axis, eqn.primitive.name)
    _out(b, eqn, x)


_COMBINE = {"reduce_sum": (arith.AddiOp, arith.AddfOp), "reduce_max": (arith.MaxSIOp, arith.MaximumfOp),
            "reduce_min": (arith.MinSIOp, arith.MinimumfOp), "reduce_prod": (arith.MuliOp, arith.MulfOp),
            "reduce_and": (arith.AndIOp, None), "reduce_or": (arith.OrIOp, None)}


def _reduce_axis(b: KernelBuilder, x: SSAValue, axis: int, kind: str) -> SSAValue:
    element = x.type.element_type
    shape = list(_shape(x.type))
    del shape[axis]
    combine = _COMBINE[kind][1 if _is_float(element) else 0]
    if combine is None:
        raise Unsupported(f"`{kind}` on floats", b.where)
    body = Block(arg_types=[element, element])
    saved = b.block
    b.block = []
    total = b.emit(combine(body.args[0], body.args[1]))
    b.emit(tt.ReduceReturnOp.create(operands=[total]))
    body.add_ops(b.block)
    b.block = saved
    result = TensorType(element, shape) if shape else element
    return b.emit(tt.ReduceOp.create(operands=[x], result_types=[result], properties={"axis": IntegerAttr(axis, I32)},
                                     regions=[Region(body)]))


@lowering("transpose")
def _transpose(b: KernelBuilder, eqn) -> None:
    x = b.value(eqn.invars[0])
    _out(b, eqn, _trans(b, x, list(eqn.params["permutation"])))


def _trans(b: KernelBuilder, x: SSAValue, order: list[int]) -> SSAValue:
    shape = _shape(x.type)
    result = TensorType(x.type.element_type, [shape[i] for i in order])
    return b.create(tt.TransOp, [x], result, order=DenseArrayBase.from_list(I32, order))


@lowering("reshape")
def _reshape(b: KernelBuilder, eqn) -> None:
    """A reshape that only adds or drops unit dimensions (`mask.reshape(-1)` of a (16, 1) mask)
    keeps every element in its lane: the unit dimensions are squeezed and expanded. Any other is a
    `tt.reshape`, which says the elements moved between lanes."""
    x = b.value(eqn.invars[0])
    target = tuple(eqn.outvars[0].aval.shape)
    if not is_unit_reshape(_shape(x.type), target):
        _out(b, eqn, b.create(tt.ReshapeOp, [x], _type(eqn.outvars[0].aval, b.where)))
        return
    for axis in reversed([i for i, size in enumerate(_shape(x.type)) if size == 1]):
        x = _drop_unit_axis(b, x, axis)
    current = [size for size in target if size != 1]
    for axis, size in enumerate(target):
        if size != 1:
            continue
        current.insert(axis, 1)
        if isinstance(x.type, TensorType):
            x = b.create(tt.ExpandDimsOp, [x], TensorType(x.type.element_type, list(current)),
                         axis=IntegerAttr(axis, I32))
        else:
            x = b.splat(x, current)
    _out(b, eqn, x)


def is_unit_reshape(source: Sequence[int], target: Sequence[int]) -> bool:
    """Whether a reshape from `source` to `target` only adds or removes dimensions of size 1."""
    return [d for d in source if d != 1] == [d for d in target if d != 1]


@lowering("tile")
def _tile(b: KernelBuilder, eqn) -> None:
    """`jnp.tile`: each repeated axis is expanded, broadcast `reps` times and merged with a
    `tt.reshape` (the copies' elements come from other lanes); a unit axis is broadcast, and an axis
    repeated once is itself."""
    x = b.value(eqn.invars[0])
    if not isinstance(x.type, TensorType):
        _out(b, eqn, b.splat(x, tuple(eqn.outvars[0].aval.shape)))
        return
    for axis, reps in enumerate(eqn.params["reps"]):
        if reps == 1:
            continue
        shape = list(_shape(x.type))
        element = x.type.element_type
        if shape[axis] == 1:  # a unit axis repeated is broadcast: every copy is the one element
            x = b.create(tt.BroadcastOp, [x], TensorType(element, [*shape[:axis], reps, *shape[axis + 1:]]))
            continue
        expanded = [*shape[:axis], 1, *shape[axis:]]
        x = b.create(tt.ExpandDimsOp, [x], TensorType(element, expanded), axis=IntegerAttr(axis, I32))
        x = b.create(tt.BroadcastOp, [x], TensorType(element, [*shape[:axis], reps, *shape[axis:]]))
        x = b.create(tt.ReshapeOp, [x], TensorType(element, [*shape[:axis], reps * shape[axis], *shape[axis + 1:]]))
    _out(b, eqn, x)


@lowering("dot_general")
def _dot(b: KernelBuilder, eqn) -> None:
    x, y = (b.value(a) for a in eqn.invars[:2])
    (cx, cy), (bx, by) = eqn.params["dimension_numbers"]
    if bx or by or len(_shape(x.type)) != 2 or len(_shape(y.type)) != 2:
        raise Unsupported("dot_general other than a 2-D matrix product", b.where)
    if tuple(cx) == (0,):
        x = _trans(b, x, [1, 0])
    if tuple(cy) == (1,):
        y = _trans(b, y, [1, 0])
    result = _type(eqn.outvars[0].aval, b.where)
    zero = b.constant(0.0 if _is_float(result) else 0, result)
    _out(b, eqn, b.create(tt.DotOp, [x, y, zero], result))


@lowering("get")
def _get(b: KernelBuilder, eqn) -> None:
    view = b.indexed(b.view(eqn.invars[0]), _unflatten(eqn))
    _out(b, eqn, b.load(view, eqn.outvars[0], None, None))


@lowering("masked_load")
def _masked_load(b: KernelBuilder, eqn) -> None:
    ref, transforms, mask, other = _unflatten(eqn)
    view = b.indexed(b.view(ref), transforms or ())
    mask_value = b.value(mask) if mask is not None else None
    other_value = b.value(other) if other is not None else None
    _out(b, eqn, b.load(view, eqn.outvars[0], mask_value, other_value))


@lowering("swap", "addupdate", "masked_swap")
def _swap(b: KernelBuilder, eqn) -> None:
    if eqn.primitive.name == "masked_swap":
        ref, transforms, value_var, mask_var = _unflatten(eqn)
    else:
        ref, value_var, mask_var, transforms = eqn.invars[0], eqn.invars[1], None, _unflatten(eqn)
    view = b.indexed(b.view(ref), transforms or ())
    value = b.value(value_var)
    mask = b.value(mask_var) if mask_var is not None else None
    used = [v for v in eqn.outvars if v in b.used]
    old = None
    if used or eqn.primitive.name == "addupdate":
        old = b.load(view, value_var, mask, None)
    if eqn.primitive.name == "addupdate":
        value = b.binary("add", old, value) if not _is_float(value.type) else b.emit(arith.AddfOp(old, value))
    b.store(view, value_var, value, mask)
    for var in used:
        b.values[var] = old


@dataclass(frozen=True, eq=False)
class _Tile:
    """The tile a DMA moves (no jaxpr value holds it): its shape, and a key for its lanes."""

    shape: tuple[int, ...]

    @property
    def aval(self):
        return self


def _ref_and_transforms(ref: Any) -> tuple[Any, tuple]:
    """A DMA operand: a ref variable, or a TransformedRef (`x_hbm.at[pl.ds(i * 128, 128)]`)."""
    if hasattr(ref, "transforms") and hasattr(ref, "ref"):
        return ref.ref, tuple(ref.transforms)
    return ref, ()


def _tile_shape(ref: Any, transforms: tuple) -> tuple[int, ...]:
    if transforms and hasattr(transforms[-1], "get_indexer_shape"):
        return tuple(int(d) for d in transforms[-1].get_indexer_shape())
    return tuple(int(d) for d in ref.aval.shape)


@lowering("dma_start")
def _dma_start(b: KernelBuilder, eqn) -> None:
    """`pltpu.make_async_copy(src, dst, sem).start()`: the copy, as a load of `src` and a store of it
    into `dst` where it starts (its wait only orders it: a read of `dst` between the two is the
    kernel's race, which the runs see); `add=True` accumulates into `dst`."""
    src, dst, _dst_sem, _src_sem, device_id = eqn.params["tree"].unflatten(eqn.invars)
    if device_id is not None:
        raise Unsupported("a DMA to or from another device (remote copies are not modelled)", b.where)
    src_ref, src_transforms = _ref_and_transforms(src)
    dst_ref, dst_transforms = _ref_and_transforms(dst)
    tile = _Tile(_tile_shape(src_ref, src_transforms))
    if _tile_shape(dst_ref, dst_transforms) != tile.shape:
        raise Unsupported("a DMA between blocks of different shapes", b.where)
    src_view = b.indexed(b.view(src_ref), src_transforms)
    dst_view = b.indexed(b.view(dst_ref), dst_transforms)
    value = b.load(src_view, tile, None, None)
    if eqn.params.get("add"):
        old = b.load(dst_view, tile, None, None)
        value = b.emit(arith.AddfOp(old, value)) if _is_float(value.type) else b.binary("add", old, value)
    b.store(dst_view, tile, value, None)


@lowering("dma_wait", "semaphore_signal", "semaphore_wait")
def _ordering(b: KernelBuilder, eqn) -> None:
    """Waits and signals order copies and programs; they move no data of the kernel."""


@lowering("jit", "pjit", "closed_call", "custom_jvp_call", "custom_vjp_call")
def _call(b: KernelBuilder, eqn) -> None:
    inner = eqn.params.get("jaxpr", eqn.params.get("call_jaxpr"))
    consts = getattr(inner, "consts", ())
    inner = getattr(inner, "jaxpr", inner)
    if consts:
        raise Unsupported("a call with captured constants inside the kernel", b.where)
    for var, outer in zip(inner.invars, eqn.invars, strict=True):
        b.values[var] = b.values[outer] if not _is_literal(outer) else b.value(outer)
    b.run(inner)
    for var, outer in zip(inner.outvars, eqn.outvars, strict=True):
        b.values[outer] = b.value(var) if _is_literal(var) else b.values[var]


@lowering("cond")
def _cond(b: KernelBuilder, eqn) -> None:
    branches = eqn.params["branches"]
    if len(branches) != 2:
        raise Unsupported("a switch with more than two branches", b.where)
    index = b.value(eqn.invars[0])
    owner = index.owner
    if isinstance(owner, tt.ExtUIOp) and owner.operands[0].type == I1:
        condition = owner.operands[0]  # pl.when(c): cond on int(c)
    else:
        condition = b.cmp("ne", index, b.constant(0, index.type))
    operands = [b.values[v] if not _is_literal(v) else b.value(v) for v in eqn.invars[1:]]
    result_types = [_type(v.aval, b.where) for v in eqn.outvars]
    regions = []
    for branch in (branches[1], branches[0]):  # then: index 1 (true); else: index 0
        if branch.consts:
            raise Unsupported("a branch with captured constants", b.where)
        block = Block()
        outs = b.nested(branch.jaxpr, operands, block)
        block.add_op(scf.YieldOp(*outs))
        regions.append(Region(block))
    op = scf.IfOp(condition, result_types, regions[0], regions[1])
    b.emit(op)
    for var, result in zip(eqn.outvars, op.results, strict=True):
        b.values[var] = result


@lowering("scan")
def _scan(b: KernelBuilder, eqn) -> None:
    """`lax.fori_loop` with static bounds (and `scan` without xs/ys) as `scf.for` from 0 to length."""
    params = eqn.params
    n_consts, n_carry = params["num_consts"], params["num_carry"]
    if params["reverse"] or len(eqn.invars) != n_consts + n_carry or len(eqn.outvars) != n_carry:
        raise Unsupported("a scan over arrays (only fori_loop-style loops are modelled)", b.where)
    body = params["jaxpr"]
    if body.consts:
        raise Unsupported("a loop body with captured constants", b.where)
    consts = [b.values[v] if not _is_literal(v) else b.value(v) for v in eqn.invars[:n_consts]]
    inits = [b.value(v) for v in eqn.invars[n_consts:]]
    block = Block(arg_types=[I32, *[v.type for v in inits]])
    outs = b.nested(body.jaxpr, [*consts, *block.args[1:]], block)
    block.add_op(scf.YieldOp(*outs))
    op = scf.ForOp(b.i32(0), b.i32(int(params["length"])), b.i32(1), inits, block)
    b.emit(op)
    for var, result in zip(eqn.outvars, op.results, strict=True):
        b.values[var] = result


def fori_form(eqn) -> bool:
    """Whether a `while` is what `lax.fori_loop` with traced bounds traces to: the carry starts with
    the counter and its bound, the condition is `counter < bound`, and the body steps the counter by
    one and passes the bound on unchanged."""
    cond, body = eqn.params["cond_jaxpr"].jaxpr, eqn.params["body_jaxpr"].jaxpr
    n_cond, n_body = eqn.params["cond_nconsts"], eqn.params["body_nconsts"]
    carry_cond, carry_body = cond.invars[n_cond:], body.invars[n_body:]
    if len(carry_cond) < 2 or len(cond.eqns) != 1 or cond.eqns[0].primitive.name != "lt" \
            or list(cond.eqns[0].invars) != carry_cond[:2] or cond.outvars[0] is not cond.eqns[0].outvars[0]:
        return False
    counter, bound = carry_body[:2]
    stepped = next((e for e in body.eqns if body.outvars[0] in e.outvars), None)
    return body.outvars[1] is bound and stepped is not None and stepped.primitive.name == "add" \
        and stepped.invars[0] is counter and _is_literal(stepped.invars[1]) and int(stepped.invars[1].val) == 1


@lowering("while")
def _while(b: KernelBuilder, eqn) -> None:
    """`lax.fori_loop` with traced bounds as `scf.for` from its start to its bound; any other while
    loop (`lax.while_loop` on a condition on data) as `scf.while`: its condition computed in the
    before region, its body in the after region (extract-accesses enumerates what it can)."""
    if not fori_form(eqn):
        _general_while(b, eqn)
        return
    body = eqn.params["body_jaxpr"]
    if body.consts:
        raise Unsupported("a loop body with captured constants", b.where)
    n_consts = eqn.params["cond_nconsts"] + eqn.params["body_nconsts"]
    consts = [b.values[v] if not _is_literal(v) else b.value(v)
              for v in eqn.invars[eqn.params["cond_nconsts"]:n_consts]]
    start, bound, *inits = (b.value(v) for v in eqn.invars[n_consts:])
    block = Block(arg_types=[I32, *[v.type for v in inits]])
    outs = b.nested(body.jaxpr, [*consts, block.args[0], bound, *block.args[1:]], block)
    block.add_op(scf.YieldOp(*outs[2:]))
    op = scf.ForOp(start, bound, b.i32(1), inits, block)
    b.emit(op)
    final_counter = b.emit(arith.MaxSIOp(start, bound))  # the counter after the loop
    for var, result in zip(eqn.outvars, [final_counter, bound, *op.results], strict=True):
        b.values[var] = result


def _general_while(b: KernelBuilder, eqn) -> None:
    cond, body = eqn.params["cond_jaxpr"], eqn.params["body_jaxpr"]
    if cond.consts or body.consts:
        raise Unsupported("a while loop with captured constants", b.where)
    n_cond, n_body = eqn.params["cond_nconsts"], eqn.params["body_nconsts"]

    def bound(v):
        return b.values[v] if not _is_literal(v) else b.value(v)
    cond_consts = [bound(v) for v in eqn.invars[:n_cond]]
    body_consts = [bound(v) for v in eqn.invars[n_cond:n_cond + n_body]]
    inits = [b.value(v) for v in eqn.invars[n_cond + n_body:]]
    types = [v.type for v in inits]
    before, after = Block(arg_types=types), Block(arg_types=types)
    (going,) = b.nested(cond.jaxpr, [*cond_consts, *before.args], before)
    if going.type != I1:
        raise Unsupported(f"a while loop whose condition is a `{going.type}`, not one boolean", b.where)
    before.add_op(scf.ConditionOp(going, *before.args))
    outs = b.nested(body.jaxpr, [*body_consts, *after.args], after)
    after.add_op(scf.YieldOp(*outs))
    op = scf.WhileOp(inits, types, [before], [after])
    b.emit(op)
    for var, result in zip(eqn.outvars, op.results, strict=True):
        b.values[var] = result


# ---------------------------------------------------------------------------------------------
# One pallas_call


def block_sizes(mapping, where: SourceLocation | None) -> list[int | None]:
    """Per array dimension: the block size, or None for a squeezed dimension (`None` in the
    BlockSpec: the ref has no such dimension and the index_map gives the element index)."""
    sizes: list[int | None] = []
    for dim in mapping.block_shape:
        kind = type(dim).__name__
        if dim is None or kind == "Squeezed":
            sizes.append(None)
        elif isinstance(dim, int):
            sizes.append(dim)
        elif kind == "Blocked":
            sizes.append(int(dim.block_size))
        else:
            raise Unsupported(f"a BlockSpec dimension of kind `{kind}` (only blocked and squeezed dimensions "
                              "are modelled)", where)
    return sizes


def _block_index_bounds(mapping, grid: tuple[int, ...]) -> list[tuple[int, int]] | None:
    """(lowest, highest) block index per array dimension over the whole grid, or None if the
    index_map cannot be evaluated on its own (then windows outside the array are assumed possible)."""
    import jax
    import numpy as np
    from jax.extend.core import jaxpr_as_fun

    if 0 in grid:
        return None
    try:
        fn = jaxpr_as_fun(mapping.index_map_jaxpr)
        if grid:
            points = np.indices(grid, dtype=np.int32).reshape(len(grid), -1)
            outs = jax.vmap(fn)(*points)
        else:
            outs = fn()
        return [(int(np.min(o)), int(np.max(o))) for o in outs]
    except Exception:  # noqa: BLE001 - an index_map that needs more than the grid (scalar prefetch)
        return None


def launch_grid(grid: Sequence[int]) -> list[int]:
    """The launch's (at most three) grid axes: Pallas allows any number, so the leading ones beyond
    the last two are folded, row-major, into axis 0 (`program_ids` unfolds them)."""
    if len(grid) <= 3:
        return list(grid)
    return [prod(grid[:-2]), *grid[-2:]]


def ordered_axes(params: Mapping[str, Any]) -> list[int]:
    """The launch axes (`launch_grid`) whose steps run in order: the axes a pallas_call's TPU
    compiler params declare "arbitrary" (a TPU core runs such an axis step after step, the blocks
    it revisits resident). Declared nowhere, none is: a GPU runs its programs in parallel, and a
    kernel that says nothing may run on one. A vmapped axis is parallel; the leading axes folded
    into launch axis 0 are ordered when all of them are."""
    grid_mapping = params["grid_mapping"]
    grid = tuple(grid_mapping.grid)
    semantics = _dimension_semantics(params.get("compiler_params"))
    vmapped = set(getattr(grid_mapping, "vmapped_dims", ()) or ())
    user = [axis for axis in range(len(grid)) if axis not in vmapped]
    if semantics is None or len(semantics) != len(user):
        return []
    arbitrary = {axis for axis, s in zip(user, semantics, strict=True)
                 if str(getattr(s, "value", s)).lower() == "arbitrary"}
    if len(grid) <= 3:
        return sorted(arbitrary)
    leading = [0] if all(axis in arbitrary for axis in range(len(grid) - 2)) else []
    return leading + [launch for launch, axis in ((1, len(grid) - 2), (2, len(grid) - 1)) if axis in arbitrary]


def _dimension_semantics(given: Any) -> tuple | None:
    """`dimension_semantics` of the compiler params (`pltpu.CompilerParams`, or a dict of them by
    backend), or None."""
    for value in (given.values() if isinstance(given, Mapping) else [given]):
        found = value.get("dimension_semantics") if isinstance(value, Mapping) \
            else getattr(value, "dimension_semantics", None)
        if found is not None:
            return tuple(found)
    return None


def program_ids(b: KernelBuilder, grid: Sequence[int]) -> list[SSAValue]:
    """One program index per Pallas grid axis, from the launch's program ids (`launch_grid`)."""
    launch = [b.create(tt.GetProgramIdOp, [], I32, axis=IntegerAttr(axis, I32))
              for axis in range(len(launch_grid(grid)))]
    if len(grid) <= 3:
        return launch
    folded = len(grid) - 2
    indices = []
    for axis in range(folded):
        inner = prod(grid[axis + 1:folded])
        index = launch[0] if inner == 1 else b.emit(arith.DivSIOp(launch[0], b.i32(inner)))
        indices.append(index if axis == 0 else b.emit(arith.RemSIOp(index, b.i32(grid[axis]))))
    return [*indices, *launch[1:]]


def build_kernel(call, path: str, symbol: str) -> tt.FuncOp:
    """The `tt.func` of one pallas_call (see the module doc). Its arguments are the scalar-prefetch
    operands (whole arrays, which the index maps and the body may read), then one per BlockSpec;
    scratch buffers are allocated in the prologue."""
    eqn = call.eqn
    where = call.location
    mapping = eqn.params["grid_mapping"]
    if eqn.params.get("input_output_aliases"):
        raise Unsupported("input_output_aliases is not modelled yet", where)
    grid = tuple(mapping.grid)
    if not all(isinstance(g, int) for g in grid):
        raise Unsupported("a grid whose extent is a traced value", where)
    body = eqn.params["jaxpr"]
    lanes = Lanes()
    lanes.walk(body)
    b = KernelBuilder(path, lanes, where=where, grid=grid)
    n_prefetch, n_scratch = mapping.num_index_operands, mapping.num_scratch_operands
    prefetch_avals = [v.aval for v in eqn.invars[:n_prefetch]]
    avals = [m.array_aval for m in mapping.block_mappings]
    arg_types = [tt.PtrType(element_type(a.dtype, where)) for a in [*prefetch_avals, *avals]]
    entry = Block(arg_types=arg_types)
    b.block = b.prologue
    b.program_ids = program_ids(b, grid)
    operand_strides = call.strides + [None] * (len(entry.args) - len(call.strides))  # outputs: row-major
    prefetched = []
    for arg, aval, strides in zip(entry.args[:n_prefetch], prefetch_avals, operand_strides, strict=False):
        whole = _whole(b, arg, tuple(aval.shape), element_type(aval.dtype, where))
        prefetched.append(replace(whole, strides=strides))
    windowed = body.invars[n_prefetch:len(body.invars) - n_scratch]
    for var, view in zip(body.invars[:n_prefetch], prefetched, strict=True):
        b.values[var] = view
    for var, arg, m, aval, strides in zip(windowed, entry.args[n_prefetch:], mapping.block_mappings, avals,
                                          operand_strides[n_prefetch:], strict=True):
        b.values[var] = replace(_window(b, m, arg, aval, prefetched, grid, where), strides=strides)
    for var in body.invars[len(body.invars) - n_scratch:] if n_scratch else ():
        b.values[var] = _scratch(b, var.aval, where)
    b.block = []
    b.run(body)
    b.emit(tt.ReturnOp.create())
    entry.add_ops([*b.prologue, *b.block])
    func = tt.FuncOp.create(properties={"sym_name": StringAttr(symbol),
                                        "function_type": FunctionType.from_lists(arg_types, []),
                                        "sym_visibility": StringAttr("public")},
                            regions=[Region(entry)])
    if is_tpu_kernel(eqn.params.get("compiler_params"), n_prefetch):  # its runs check bounds
        func.attributes[BOUNDS_CHECKED] = UnitAttr()
    line = _kernel_line(body, path)
    if line is not None:
        func.location = FileLineColLoc(StringAttr(path), IntAttr(line), IntAttr(1))
    return func


def _window(b: KernelBuilder, mapping, arg: SSAValue, aval, prefetched: list[View], grid, where) -> View:
    sizes = block_sizes(mapping, where)
    index_map = mapping.index_map_jaxpr
    if index_map.consts:
        raise Unsupported("an index_map with captured constants", where)
    for var, value in zip(index_map.jaxpr.invars, [*b.program_ids, *prefetched], strict=True):
        b.values[var] = value
    b.run(index_map.jaxpr)
    blocks = [b.value(v) for v in index_map.jaxpr.outvars]
    bounds = _block_index_bounds(mapping, grid)
    dims, window, guards = [], [], []
    for axis, (block, size, extent) in enumerate(zip(blocks, sizes, aval.shape, strict=True)):
        start = block if size in (None, 1) else b.binary("mul", block, b.i32(size))
        window.append(start)
        dims.append(Dim(start, size))
        padded = size is not None and extent % size != 0
        outside = bounds is None or bounds[axis][1] * (size or 1) >= extent
        guards.append("" if not padded else "pad-or-outside" if outside else "pad")
    return View(arg, tuple(aval.shape), element_type(aval.dtype, where), tuple(dims), tuple(window), tuple(guards))


def _whole(b: KernelBuilder, arg: SSAValue, shape: tuple[int, ...], element: Attribute) -> View:
    """A ref to a whole array, not windowed: a scalar-prefetch operand, a scratch buffer."""
    zero = b.i32(0)
    return View(arg, shape, element, tuple(Dim(zero, size) for size in shape), (zero,) * len(shape),
                ("",) * len(shape))


class Semaphore:
    """A semaphore scratch buffer (`pltpu.SemaphoreType.DMA`, `.REGULAR`): no memory of the kernel's
    data; the DMAs and waits on it only order copies, which the access IR takes as done at start."""


def _scratch(b: KernelBuilder, aval, where: SourceLocation | None) -> View | Semaphore:
    """A scratch buffer (`scratch_shapes`, `pltpu.VMEM(...)`): one per program, like a CUDA
    `__shared__` array, so a `memref.alloca` in address space 3; a semaphore, a `Semaphore`."""
    dtype = str(getattr(aval, "dtype", ""))
    if "sem" in dtype:  # `dma_sem`, `sem`, `barrier_sem`: jax's semaphore dtypes
        return Semaphore()
    if dtype not in _ELEMENTS:
        raise Unsupported(f"a scratch buffer of `{dtype}`", where)
    element = _ELEMENTS[dtype]
    shape = tuple(int(d) for d in aval.shape)
    alloca = memref.AllocaOp.get(element, shape=[prod(shape)], memory_space=IntegerAttr(3, IntegerType(64)))
    buffer = b.emit(alloca)
    assert buffer is not None
    return _whole(b, buffer, shape, element)


def _kernel_line(body, path: str) -> int | None:
    info = getattr(body, "debug_info", None)
    text = getattr(info, "func_src_info", "") or ""
    _, _, place = text.rpartition(" at ")
    file, _, line = place.rpartition(":")
    if line.isdigit() and os.path.realpath(file) == os.path.realpath(path):
        return int(line)
    return None


def kernel_name(call) -> str:
    info = getattr(call.eqn.params["jaxpr"], "debug_info", None)
    text = getattr(info, "func_src_info", "") or ""
    name = text.split(" at ")[0].strip() or "kernel"
    return name if name.isidentifier() else "kernel"
