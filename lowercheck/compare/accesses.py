"""Access relations in isl: an `access` module becomes one isl map per access.

A map sends a work item (GRID, LANE and SEQ variables) to the buffer element it touches, in the
buffer's logical coordinates (one per dimension, see `coordinates.py`):

    [n] -> { K0_w0[GRID0, GRID1, GRID2, LANE0] -> c[i0] : i0 = 256GRID0 + LANE0 and
             0 <= GRID0 < floor((n + 255)/256) and ... and 256GRID0 + LANE0 < n }
    [cols, rows] -> { K0_r0[GRID0, GRID1, GRID2, LANE4, LANE5] -> x[i0, i1] :
             i0 = 32GRID1 + LANE4 and i1 = 32GRID0 + LANE5 and ... }

Sizes are isl parameters, so a check answers for every size at once ("parametric"). When an
expression is not quasi-affine in the sizes (a product of a loop trip and a size), the relation is
built for each concrete size of the sweep instead ("swept"), and says so.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import islpy as isl
import sympy
from xdsl.dialects.builtin import ModuleOp

from lowercheck import symbolic
from lowercheck.compare import coordinates
from lowercheck.dialects._expr import strings
from lowercheck.dialects.access import AccessOp, BufferOp, IndirectOp, KernelOp, UnmodelledOp
from lowercheck.dialects.kernel import EntryOp
from lowercheck.dialects.sources import read_id
from lowercheck.errors import SourceLocation


@dataclass(frozen=True)
class Access:
    """One access with its isl relation (for one size binding, or parametric when sizes is None)."""

    kernel: int
    callee: str
    op: AccessOp
    relation: isl.Map
    index: sympy.Basic  # the flat element index (sizes bound when the relations are per size)
    location: SourceLocation | None
    coords: tuple[sympy.Basic, ...] = ()  # the logical coordinates the relation maps to
    split: str = "flat"  # how the flat index was split into coordinates (coordinates.Coordinates.how)
    ordered: frozenset[int] = frozenset()  # the launch's grid axes whose steps run in order

    @property
    def buffer(self) -> str:
        if self.op.space.data == "global":
            return self.op.buffer.data
        return allocated_name(self.kernel, self.op.buffer.data)

    @property
    def space(self) -> str:
        return self.op.space.data

    @property
    def kind(self) -> str:
        return self.op.kind.data

    @property
    def id(self) -> str:
        return self.op.access_id.data

    @property
    def data_condition(self) -> str | None:
        """The condition on loaded data it happens under (it may not happen at all), if any."""
        return self.op.data_condition.data if self.op.data_condition is not None else None


def left_to_runs(op: object) -> bool:
    """An access the static checks leave to the runs ("partly proved"): its index comes from loaded
    data, or it writes global memory only where loaded data says so. A thread's own cells (a local
    object's fields, read and updated under conditions on its values) are not: they are always there."""
    if isinstance(op, IndirectOp):
        return True
    return isinstance(op, AccessOp) and op.data_condition is not None and op.kind.data != "read" \
        and op.space.data == "global"


@dataclass(frozen=True)
class Unmodelled:
    buffer: str
    reason: str
    location: SourceLocation | None


@dataclass(frozen=True)
class Indirect:
    """An access at an index computed from loaded data: bounds-checked by the runs only."""

    buffer: str  # a shared or local one by its per-launch name, as `Access.buffer`
    kind: str
    reason: str
    location: SourceLocation | None
    space: str = "global"


@dataclass(frozen=True)
class PartlyProved:
    """A buffer's accesses of one kind that the static checks leave to the runs: at an index from
    loaded data (`how` = "index"), or writes under a condition on it ("condition")."""

    buffer: str
    kind: str
    how: str
    location: SourceLocation | None
    condition: str | None = None

    def __str__(self) -> str:
        what = (f"{self.kind} at an index computed from loaded data" if self.how == "index"
                else f"{self.kind} under {self.condition}")
        return f"`{self.buffer}`: {what}" + (f" ({self.location})" if self.location else "")


@dataclass
class Relations:
    """Every access of one side, for one size binding (`sizes` None: parametric)."""

    entry: EntryOp
    accesses: list[Access]
    unmodelled: list[Unmodelled]
    sizes: dict[str, int] | None
    params: list[str]
    # Buffers the kernels allocate (shared, local), by their per-launch name: (space, shape).
    allocated: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    indirect: list[Indirect] = field(default_factory=list)
    # What the dependence analysis computed once (`static.dependence`): flows, schedules, reaches.
    memo: dict = field(default_factory=dict, repr=False, compare=False)

    def partly_proved(self) -> list[PartlyProved]:
        """What the static checks leave to the runs, one per buffer and kind: its accesses at indices
        from loaded data, its writes under conditions on loaded data."""
        found: dict[tuple[str, str], PartlyProved] = {}
        for i in self.indirect:
            found.setdefault((i.buffer, i.kind), PartlyProved(i.buffer, i.kind, "index", i.location))
        for a in self.accesses:
            if left_to_runs(a.op):
                found.setdefault((a.buffer, a.kind), PartlyProved(a.buffer, a.kind, "condition", a.location,
                                                                  a.data_condition))
        return list(found.values())

    def of(self, buffer: str, *kinds: str) -> list[Access]:
        return [a for a in self.accesses if a.buffer == buffer and (not kinds or a.kind in kinds)]

    def writes_reaching(self, buffer: str) -> list[Access]:
        """The writes (and atomics) of `buffer`, and those of the shared and local buffers whose values
        their reads pass on, transitively (a tree's stores behind the store of its result)."""
        found: dict[tuple[int, str], Access] = {}
        pending = list(self.of(buffer, "write", "atomic"))
        while pending:
            acc = pending.pop()
            if (acc.kernel, acc.id) in found:
                continue
            found[(acc.kernel, acc.id)] = acc
            reads = {r.id: r for r in self.accesses if r.kernel == acc.kernel and r.kind in ("read", "atomic")}
            for source in acc.op.sources.data:
                read = reads.get(read_id(source.data))
                if read is not None and read.space != "global":
                    pending += [w for w in self.of(read.buffer, "write", "atomic") if w.kernel == acc.kernel]
        return list(found.values())

    def union(self, buffer: str, *kinds: str) -> isl.UnionMap | None:
        maps = [a.relation for a in self.of(buffer, *kinds)]
        if not maps:
            return None
        result = isl.UnionMap.from_map(maps[0])
        for m in maps[1:]:
            result = result.union(isl.UnionMap.from_map(m))
        return result


def location_of(op) -> SourceLocation | None:
    loc = getattr(op, "location", None)
    if loc is None or type(loc).__name__ != "FileLineColLoc":
        return None
    return SourceLocation(display_path(loc.filename.data), loc.line.data, loc.column.data)


def display_path(path: str) -> str:
    """A path as the user would type it: relative to the current directory when inside it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return relative if not relative.startswith("..") else path


def _isl_params(params: Iterable[str]) -> str:
    return "[" + ", ".join(params) + "]"


def size_constraints(params: Iterable[str]) -> str:
    """Sizes are at least 1 (an empty tensor launches nothing worth checking)."""
    return " and ".join(f"{p} >= 1" for p in params) or "0 = 0"


# Relations built once per module, size binding and shapes, and shared: the static checks, the
# traffic, the cost model and the reduction facts each ask for the same ones, and parsing the maps
# is most of a build. The entries keep their modules, so an `id` is not reused while it is a key.
_BUILT: OrderedDict[tuple, tuple[ModuleOp, Relations | symbolic.NonAffine]] = OrderedDict()
_BUILT_KEPT = 64
_BUILT_LOCK = threading.Lock()


def build(module: ModuleOp, sizes: Mapping[str, int] | None, size_names: Iterable[str],
          shapes: Mapping[str, Sequence[str]] | None = None) -> Relations:
    """isl relations of every access in `module` (the output of `extract-accesses`), in the logical
    coordinates of each global buffer's `shapes` (default: the entry's param shapes). Built once for
    the same arguments: the result is shared, and read only.

    Raises `symbolic.NonAffine` when `sizes` is None and some expression is not quasi-affine in the
    sizes: the caller then retries with concrete sizes."""
    entry = next(op for op in module.ops if isinstance(op, EntryOp))
    if shapes is None:
        shapes = {p.pname: strings(p.shape) for p in entry.params if p.kind.data == "buffer" and p.shape.data}
    params = sorted(size_names) if sizes is None else []
    key = (id(module), None if sizes is None else tuple(sorted(sizes.items())), tuple(params),
           tuple(sorted((name, tuple(shape)) for name, shape in shapes.items())))
    with _BUILT_LOCK:
        kept = _BUILT.get(key)
        if kept is not None:
            _BUILT.move_to_end(key)
    if kept is None:
        try:
            kept = (module, _build(module, entry, sizes, params, shapes))
        except symbolic.NonAffine as err:
            kept = (module, err)
        with _BUILT_LOCK:
            _BUILT[key] = kept
            while len(_BUILT) > _BUILT_KEPT:
                _BUILT.popitem(last=False)
    if isinstance(kept[1], symbolic.NonAffine):
        raise symbolic.NonAffine(*kept[1].args)
    return kept[1]


def _build(module: ModuleOp, entry: EntryOp, sizes: Mapping[str, int] | None, params: list[str],
           shapes: Mapping[str, Sequence[str]]) -> Relations:
    accesses: list[Access] = []
    unmodelled: list[Unmodelled] = []
    indirect: list[Indirect] = []
    allocated: dict[str, tuple[str, list[str]]] = {}
    kernel_index = 0
    for kernel in module.ops:
        if not isinstance(kernel, KernelOp):
            continue
        grid = [_bind(g, sizes) for g in kernel.grid_exprs]
        block = block_of(entry, kernel_index, sizes)
        for op in kernel.body.ops:
            if isinstance(op, BufferOp):
                allocated[allocated_name(kernel_index, op.buffer_name.data)] = (op.space.data, strings(op.shape))
                continue
            if isinstance(op, UnmodelledOp):
                unmodelled.append(Unmodelled(op.buffer.data, op.reason.data, location_of(op)))
                continue
            if isinstance(op, IndirectOp):
                name = op.buffer.data if op.space.data == "global" else allocated_name(kernel_index, op.buffer.data)
                indirect.append(Indirect(name, op.kind.data, op.reason.data, location_of(op), op.space.data))
                continue
            if not isinstance(op, AccessOp):
                continue
            shape = shapes.get(op.buffer.data) if op.space.data == "global" else None
            try:
                relation, index, chosen = _relation(kernel_index, op, grid, block, sizes, params, shape)
            except symbolic.NonAffine:
                if sizes is None:
                    raise
                unmodelled.append(Unmodelled(op.buffer.data, "a non-affine index", location_of(op)))
                continue
            accesses.append(Access(kernel_index, kernel.callee.root_reference.data, op, relation,
                                   index, location_of(op), chosen.exprs, chosen.how, kernel.ordered_axes))
        kernel_index += 1
    return Relations(entry, accesses, unmodelled, dict(sizes) if sizes is not None else None, params, allocated,
                     indirect)


def block_of(entry: EntryOp, kernel: int, sizes) -> list[sympy.Basic]:
    """The block extents (x, y, z) of launch `kernel`; Triton launches have none (1, 1, 1)."""
    launches = entry.launches
    exprs = launches[kernel].block_exprs if kernel < len(launches) else []
    exprs = (list(exprs) + ["1", "1", "1"])[:3]
    return [_bind(e, sizes) for e in exprs]


def allocated_name(kernel: int, name: str) -> str:
    """Shared and local buffers are per launch: `shared0` of launch 1 is `K1_shared0`."""
    return f"K{kernel}_{name}"


# The extra coordinates that identify an element of a per-block or per-thread buffer.
OWNER_DIMS = {"global": [], "shared": ["GRID0", "GRID1", "GRID2"],
              "local": ["GRID0", "GRID1", "GRID2", "LANE0", "LANE1", "LANE2"]}


def _bind(text: str, sizes: Mapping[str, int] | None) -> sympy.Basic:
    expr = symbolic.parse(text)
    return symbolic.substitute(expr, sizes) if sizes is not None else expr


def _relation(kernel: int, op: AccessOp, grid: list[sympy.Basic], block: list[sympy.Basic], sizes,
              params, shape: Sequence[str] | None) -> tuple[isl.Map, sympy.Basic, coordinates.Coordinates]:
    """The access's map to coordinates of `shape` (flat when None), with its flat index and the
    coordinate split chosen: the first split of `coordinates.candidates`, unless it puts an inner
    coordinate out of its dimension's range; then the next split that does not ("borrowed" for a
    reversed row, "merged" for a run of dimensions indexed as one), else the split that leaves the
    fewest dimensions out of range (a real wrap is reported in the dimension it wraps)."""
    symbolic_index = symbolic.parse(strings(op.indices)[0])
    index = _bind(strings(op.indices)[0], sizes)
    if not shape or len(shape) == 1:
        chosen = coordinates.Coordinates((index,), "flat")
        return _map(kernel, op, [index], grid, block, sizes, params), index, chosen
    extents = [symbolic.parse(d) for d in shape]
    options = coordinates.candidates(symbolic_index, extents)
    bound_extents = [symbolic.substitute(e, sizes) if sizes is not None else e for e in extents]
    bind = (lambda c: symbolic.substitute(c, sizes)) if sizes is not None else (lambda c: c)

    def build_one(option: coordinates.Coordinates) -> tuple[isl.Map, coordinates.Coordinates]:
        exprs = tuple(bind(c) for c in option.exprs)
        return (_map(kernel, op, list(exprs), grid, block, sizes, params),
                coordinates.Coordinates(exprs, option.how))

    relation, chosen = build_one(options[0])
    splits = [o for o in options[1:] if o.how != "flat"]
    if options[0].how != "split" or not splits:
        return relation, index, chosen
    best = (len(_outside(relation, bound_extents, params)), relation, chosen)
    if best[0] == 0:
        return relation, index, chosen
    for option in splits:
        other, picked = build_one(option)
        outside = len(_outside(other, bound_extents, params))
        if outside < best[0]:
            best = (outside, other, picked)
        if outside == 0:
            break
    return best[1], index, best[2]


def _outside(relation: isl.Map, extents: Sequence[sympy.Basic], params: list[str]) -> list[int]:
    """The inner dimensions (all but the outermost) where the relation's coordinate leaves its range."""
    if relation.range().is_subset(inner_box(relation, extents, params)):
        return []
    return [j for j in range(1, len(extents))
            if not relation.range().is_subset(inner_box(relation, extents, params, only=j))]


def inner_box(relation: isl.Map, extents: Sequence[sympy.Basic], params: list[str],
              only: int | None = None) -> isl.Set:
    """{ buffer[i0, i1, ...] : 0 <= i_j < extent_j for j >= 1 }: every coordinate but the outermost
    in range (an outermost coordinate out of range is a plain out-of-bounds, not a wrap); with
    `only`, that one coordinate."""
    name = relation.get_tuple_name(isl.dim_type.out)
    dims = [f"i{j}" for j in range(len(extents))]
    parts = [f"0 <= i{j} < {symbolic.to_isl(e)}" for j, e in enumerate(extents)
             if j >= 1 and only in (None, j)]
    parts.append(size_constraints(params))
    return isl.Set(f"{_isl_params(params)} -> {{ {name}[{', '.join(dims)}] : {' and '.join(parts)} }}")


MAX_PROGRAMS = 4096  # programs enumerated one by one for an index that is per-program non-affine


def _map(kernel: int, op: AccessOp, coords: Sequence[sympy.Basic], grid: list[sympy.Basic],
         block: list[sympy.Basic], sizes, params) -> isl.Map:
    """The access's map; at concrete sizes, an index that is not quasi-affine only through the
    program ids (a division by a per-program value) is built program by program."""
    try:
        return _map_text(kernel, op, coords, grid, block, sizes, params)
    except symbolic.NonAffine:
        if sizes is None or not all(g.is_Integer for g in grid):
            raise
        count = int(grid[0]) * int(grid[1]) * int(grid[2])
        if count > MAX_PROGRAMS:
            raise
        result = None
        for point in itertools.product(*(range(int(g)) for g in grid)):
            fixed = {f"GRID{d}": v for d, v in enumerate(point)}
            one = _map_text(kernel, op, coords, grid, block, sizes, params, fixed)
            result = one if result is None else result.union(one)
        if result is None:
            raise
        return result


def _map_text(kernel: int, op: AccessOp, coords: Sequence[sympy.Basic], grid: list[sympy.Basic],
              block: list[sympy.Basic], sizes, params, program: Mapping[str, int] | None = None) -> isl.Map:
    constraints = [_bind(c, sizes) for c in strings(op.domain) + strings(op.guard)]
    if program is not None:
        coords = [symbolic.substitute(c, program) for c in coords]
        constraints = [symbolic.substitute(c, program) for c in constraints]
    variables = set().union(*(c.free_symbols for c in coords), *(c.free_symbols for c in constraints))
    tagged = sorted((s.name for s in variables if symbolic.tag_of(s) is not symbolic.Tag.PARAM),
                    key=_var_order)
    unknown = [s.name for s in variables if symbolic.tag_of(s) is symbolic.Tag.PARAM and s.name not in params]
    if unknown:
        raise symbolic.NonAffine(f"unknown parameters {unknown}")
    space = op.space.data
    owner = OWNER_DIMS[space]
    dims = ["GRID0", "GRID1", "GRID2"] + [t for t in tagged if not t.startswith("GRID")]
    dims += [d for d in owner if d not in dims]
    dims = dims[:3] + sorted(dims[3:], key=_var_order)
    buffer = op.buffer.data if space == "global" else allocated_name(kernel, op.buffer.data)
    out = [f"o_{d}" for d in owner] + [f"i{j}" for j in range(len(coords))]
    parts = [symbolic.to_isl(sympy.Eq(sympy.Symbol(f"i{j}"), c, evaluate=False)) for j, c in enumerate(coords)]
    parts += [f"o_{d} = {d}" for d in owner]
    if space == "local":  # a thread's position inside its block ranges over the block
        parts += [f"0 <= {d} < {symbolic.to_isl(b)}" for d, b in zip(("LANE0", "LANE1", "LANE2"), block, strict=True)]
    parts += [f"0 <= GRID{d} and ({symbolic.to_isl(sympy.Lt(symbolic.grid(d), g, evaluate=False))})"
              for d, g in enumerate(grid)]
    parts += [f"GRID{d[len('GRID'):]} = {v}" for d, v in (program or {}).items()]
    parts += [f"{d} >= 0" for d in dims]  # tagged variables are non-negative by definition
    parts += [symbolic.to_isl(c) for c in constraints if c is not sympy.true]
    parts.append(size_constraints(params))
    text = (f"{_isl_params(params)} -> {{ K{kernel}_{op.access_id.data}[{', '.join(dims)}] -> "
            f"{buffer}[{', '.join(out)}] : " + " and ".join(f"({p})" for p in parts) + " }")
    try:
        return isl.Map(text)
    except isl.Error as err:  # an expression isl cannot read (Min of sizes, a piecewise bound)
        raise symbolic.NonAffine(f"isl cannot read the relation ({err})") from None


def _var_order(name: str) -> tuple[int, int]:
    order = {"GRID": 0, "LANE": 1, "SEQ": 2}
    for prefix, rank in order.items():
        if name.startswith(prefix):
            return rank, int(name[len(prefix):])
    return 3, 0


def extent_set(buffer: str, shape: list[str], sizes: Mapping[str, int] | None, params: list[str],
               space: str = "global") -> isl.Set:
    """The buffer's elements: the box 0 <= i_j < shape_j of a global buffer (the coordinates of
    `build`), the flat range [0, prod(shape)) per block or thread of an allocated one."""
    if space == "global" and len(shape) > 1:
        extents = [_bind(d, sizes) for d in shape]
        parts = [f"0 <= i{j} < {symbolic.to_isl(e)}" for j, e in enumerate(extents)]
        dims = ", ".join(f"i{j}" for j in range(len(extents)))
        return isl.Set(f"{_isl_params(params)} -> {{ {buffer}[{dims}] : {' and '.join(parts)} and "
                       f"{size_constraints(params)} }}")
    total = sympy.Integer(1)
    for dim in shape:
        total *= _bind(dim, sizes)
    bound = symbolic.to_isl(sympy.expand(total))  # NonAffine propagates: the caller sweeps instead
    owner = ", ".join([f"o_{d}" for d in OWNER_DIMS[space]] + ["i0"])
    return isl.Set(f"{_isl_params(params)} -> {{ {buffer}[{owner}] : 0 <= i0 < {bound} and "
                   f"{size_constraints(params)} }}")


def lexmin_point(obj: isl.Map | isl.Set) -> tuple[dict[str, int], list[int]] | None:
    """The lexicographically smallest point, sizes first (so the smallest sizes show it): the
    parameter values by name, and the coordinates (a map's input then output dimensions)."""
    if obj.is_empty():
        return None
    nparam = obj.dim(isl.dim_type.param)
    params = [obj.get_dim_name(isl.dim_type.param, i) for i in range(nparam)]
    flat = obj.wrap() if isinstance(obj, isl.Map) else obj
    moved = flat.move_dims(isl.dim_type.set, 0, isl.dim_type.param, 0, nparam)
    point = moved.lexmin().sample_point()
    values = [point.get_coordinate_val(isl.dim_type.set, i).to_python()
              for i in range(moved.dim(isl.dim_type.set))]
    return dict(zip(params, values[:nparam], strict=True)), values[nparam:]


def witness(obj: isl.Map | isl.Set) -> dict[str, int] | None:
    """`lexmin_point` as one dict: parameter names, the map's input dimension names (GRID0, LANE0,
    ...) and `index` for its (single) output or the set's (single) dimension."""
    found = lexmin_point(obj)
    if found is None:
        return None
    params, values = found
    if isinstance(obj, isl.Map):
        names = [obj.get_dim_name(isl.dim_type.in_, i) or f"d{i}" for i in range(obj.dim(isl.dim_type.in_))]
        out = isl.dim_type.out
        out_names = [obj.get_dim_name(out, i) or f"i{i}" for i in range(obj.dim(out))]
    else:
        names = []
        out_names = [obj.get_dim_name(isl.dim_type.set, i) or f"i{i}" for i in range(obj.dim(isl.dim_type.set))]
    item = dict(zip(names, values[:len(names)], strict=True))
    coords = [v for name, v in zip(out_names, values[len(names):], strict=True) if not name.startswith("o_")]
    return {**params, **item, "index": coords[0] if len(coords) == 1 else coords}
