"""Static checks on access relations: bounds, coverage, exactly-once, dependences, strides.

Each side is checked on its own (LC201, LC202, LC203, LC211), then the two sides are compared
(LC204 dependence of each output on each input, LC205 stride class along the fastest lane, LC101
launch geometry). Every check is first tried for all sizes at once; when an index is not
quasi-affine in the sizes, for each size of the sweep. The verdict's strength says which.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import islpy as isl
import sympy
from xdsl.dialects.builtin import ModuleOp

from lowercheck import symbolic
from lowercheck.compare.accesses import (
    Access,
    Relations,
    Strength,
    build,
    extent_set,
    lexmin_point,
    location_of,
    witness,
)
from lowercheck.dialects.kernel import EntryOp
from lowercheck.findings import Finding


@dataclass(frozen=True)
class Side:
    """One side as the static checks see it."""

    name: str  # "source" | "target"
    module: ModuleOp  # after extract-accesses
    extents: dict[str, list[str]]  # buffer -> shape (size expressions)
    roles: dict[str, str]  # buffer -> in | out | inout | temp

    @property
    def entry(self) -> EntryOp:
        return next(op for op in self.module.ops if isinstance(op, EntryOp))


@dataclass
class StaticResult:
    findings: list[Finding] = field(default_factory=list)
    strength: Strength = Strength.PARAMETRIC
    notes: list[str] = field(default_factory=list)
    swept: list[dict[str, int]] = field(default_factory=list)


def analyse(source: Side, target: Side, correspondence: Mapping[str, str],
            size_names: Sequence[str], sweep: Sequence[Mapping[str, int]], swept: bool = False) -> StaticResult:
    """All static checks. `correspondence` maps each target buffer to its source buffer. With
    `swept`, skip the parametric attempt (a side was lowered for these concrete sizes only)."""
    result = StaticResult()
    try:
        if swept:
            raise symbolic.NonAffine("a side was captured for concrete sizes")
        rels = [(build(s.module, None, size_names), s) for s in (source, target)]
        for side in (source, target):  # extents must be quasi-affine too for a parametric proof
            for buffer, shape in side.extents.items():
                extent_set(buffer, shape, None, sorted(size_names))
        per_binding = [rels]
    except symbolic.NonAffine as why:
        result.strength = Strength.SWEPT
        if not swept:
            result.notes.append(f"an index or extent is not quasi-affine in the sizes ({why}); "
                                "checked for each swept size instead")
        result.swept = [dict(b) for b in sweep]
        per_binding = [[(build(s.module, b, size_names), s) for s in (source, target)] for b in sweep]
    seen: set[tuple] = set()
    for rels in per_binding:
        findings: list[Finding] = []
        for rel, side in rels:
            findings += _check_side(rel, side)
        notes: list[str] = []
        findings += _compare(rels[0][0], rels[1][0], source, target, correspondence, notes)
        result.notes += [n for n in notes if n not in result.notes]
        for f in findings:
            key = (f.code, f.side, f.buffer, f.location, f.message if f.code == "LC901" else None)
            if key not in seen:
                seen.add(key)
                result.findings.append(f)
    if any(f.code == "LC901" for f in result.findings):
        result.strength = Strength.UNSUPPORTED
    result.findings += _geometry(source, target)
    return result


def _sizes_of(w: dict[str, int] | None, rel: Relations) -> dict[str, int]:
    if rel.sizes is not None:
        return dict(rel.sizes)
    return {k: v for k, v in (w or {}).items() if k in rel.params}


def _work_item(w: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in w.items() if k.startswith(("GRID", "LANE", "SEQ"))}


def _describe_item(item: Mapping[str, int], triton: bool) -> str:
    grid = ", ".join(str(item.get(f"GRID{d}", 0)) for d in range(3))
    lanes = {k: v for k, v in item.items() if k.startswith(("LANE", "SEQ"))}
    unit = "program" if triton else "block"
    inner = ", ".join(f"{k.lower()}={v}" for k, v in lanes.items())
    return f"{unit} ({grid})" + (f", {inner}" if inner else "")


def _check_side(rel: Relations, side: Side) -> list[Finding]:
    findings: list[Finding] = []
    triton = side.entry.language.data == "triton"
    verb = {"read": "load from", "write": "store to", "atomic": "atomic on"}
    for u in rel.unmodelled:
        findings.append(Finding("LC901", f"access to `{u.buffer}` not modelled: {u.reason}",
                                side=side.name, buffer=u.buffer, location=u.location,
                                hint="the static verdict is inconclusive; the differential run still applies"))
    extents: dict[str, isl.Set] = {}
    shapes = dict(side.extents)
    for buffer, (space, shape) in rel.allocated.items():
        shapes[buffer] = shape
        try:
            extents[buffer] = extent_set(buffer, shape, rel.sizes, rel.params, space)
        except symbolic.NonAffine:
            continue
    for buffer, shape in side.extents.items():
        try:
            extents[buffer] = extent_set(buffer, shape, rel.sizes, rel.params)
        except symbolic.NonAffine:
            continue
    # LC201: every access inside its buffer.
    for acc in rel.accesses:
        ext = extents.get(acc.buffer)
        if ext is None:
            continue
        outside = acc.relation.subtract_range(ext)
        w = witness(outside)
        if w is None:
            continue
        sizes = _sizes_of(w, rel)
        extent = _extent_value(shapes[acc.buffer], sizes)
        findings.append(Finding(
            "LC201",
            f"out-of-bounds {verb[acc.kind]} `{acc.buffer}` (index {w['index']}, extent {extent})",
            side=side.name, buffer=acc.buffer, location=acc.location,
            witness={"sizes": sizes, "work_item": _work_item(w), "index": w["index"], "extent": extent,
                     "where": _describe_item(w, triton)},
            hint=("guard the access: pass `mask=offs < n` to tl.load/tl.store" if triton
                  else "guard the access with `if (i < n)`")))
    # LC202 / LC203 / LC211 per buffer.
    for buffer, role in side.roles.items():
        writes = rel.union(buffer, "write")
        if role in ("in",) and (writes is not None or rel.of(buffer, "atomic")):
            acc = rel.of(buffer, "write", "atomic")[0]
            findings.append(Finding("LC211", f"the kernel writes its input `{buffer}`", side=side.name,
                                    buffer=buffer, location=acc.location,
                                    hint="write the result into an output buffer"))
        if role not in ("out", "inout") or buffer not in extents:
            continue
        written = writes.range() if writes is not None else None
        atomics = rel.union(buffer, "atomic")
        if atomics is not None:
            written = atomics.range() if written is None else written.union(atomics.range())
        missing = isl.UnionSet(extents[buffer]) if written is None else isl.UnionSet(extents[buffer]).subtract(written)
        if not missing.is_empty():
            m = missing.get_set_list().get_at(0)
            w = witness(m)
            sizes = _sizes_of(w, rel)
            unwritten = _range_text(m, sizes, rel)
            findings.append(Finding(
                "LC202", f"output `{buffer}` is not fully written: {unwritten}",
                side=side.name, buffer=buffer, location=_first_location(rel, buffer),
                witness={"sizes": sizes, "index": w["index"], "unwritten": unwritten},
                hint=("launch `triton.cdiv(n, BLOCK)` programs and mask the tail" if triton
                      else "launch enough blocks to cover the output: (n + B - 1) / B")))
        if writes is not None and not writes.is_injective():
            pair = _double_write(rel, buffer)
            if pair is not None:
                findings.append(Finding(
                    "LC203", f"element {pair['index']} of `{buffer}` is written by two work items: "
                    f"{pair['first']} and {pair['second']}",
                    side=side.name, buffer=buffer, location=_first_location(rel, buffer),
                    witness=pair, hint="make the tiles disjoint, or use atomics"))
    return findings


def _extent_value(shape: list[str], sizes: Mapping[str, int]) -> int | str:
    total = sympy.Integer(1)
    for dim in shape:
        total *= symbolic.substitute(symbolic.parse(dim), sizes)
    return int(total) if total.is_Integer else symbolic.format(total)


def _range_text(missing: isl.Set, sizes: Mapping[str, int], rel: Relations) -> str:
    fixed = missing
    for i in range(missing.dim(isl.dim_type.param)):
        name = missing.get_dim_name(isl.dim_type.param, i)
        if name in sizes:
            fixed = fixed.fix_val(isl.dim_type.param, i, isl.Val(str(sizes[name])))
    lo = _coordinate(fixed.lexmin())
    hi = _coordinate(fixed.lexmax())
    where = ", ".join(f"{k}={v}" for k, v in sizes.items())
    return (f"element {lo} is never written" if lo == hi else
            f"elements {lo}..{hi} are never written") + (f" (for {where})" if where else "")


def _coordinate(point_set: isl.Set) -> int:
    return point_set.sample_point().get_coordinate_val(isl.dim_type.set, 0).to_python()


def _first_location(rel: Relations, buffer: str):
    accs = rel.of(buffer, "write", "atomic")
    return accs[0].location if accs else None


def _double_write(rel: Relations, buffer: str) -> dict | None:
    """Two distinct work items that write the same element, with the element."""
    accs = rel.of(buffer, "write")
    for a in accs:
        for b in accs:
            pairs = a.relation.apply_range(b.relation.reverse())
            if a is b:
                pairs = pairs.subtract(isl.Map.identity(pairs.get_space()))
            found = lexmin_point(pairs)
            if found is None:
                continue
            params, values = found
            n_a = a.relation.dim(isl.dim_type.in_)
            names = [a.relation.get_dim_name(isl.dim_type.in_, i) for i in range(n_a)]
            first = dict(zip(names, values[:n_a], strict=True))
            names_b = [b.relation.get_dim_name(isl.dim_type.in_, i) for i in range(b.relation.dim(isl.dim_type.in_))]
            second = dict(zip(names_b, values[n_a:], strict=True))
            element = _index_of(a, params, first)
            return {"sizes": params or dict(rel.sizes or {}), "index": element,
                    "first": _describe_item(first, False), "second": _describe_item(second, False)}
    return None


def _index_of(acc: Access, params: Mapping[str, int], item: Mapping[str, int]) -> int | None:
    value = symbolic.substitute(acc.index, {**params, **item})
    return int(value) if value.is_Integer else None


def _compare(src: Relations, tgt: Relations, source: Side, target: Side,
             correspondence: Mapping[str, str], notes: list[str]) -> list[Finding]:
    findings: list[Finding] = []
    for t_out, s_out in correspondence.items():
        if target.roles.get(t_out) not in ("out", "inout"):
            continue
        # Stride class of each buffer along the fastest lane (LC205).
        for t_in, s_in in correspondence.items():
            if target.roles.get(t_in) not in ("in", "inout"):
                continue
            dep_s = _dependence(src, s_out, s_in)
            dep_t = _dependence(tgt, t_out, t_in)
            if dep_s is UNKNOWN or dep_t is UNKNOWN:
                notes.append(f"the dependence of `{t_out}` on `{t_in}` is not exact (a buffer that feeds "
                             "itself, as in a shared-memory tree reduction, or values moved between lanes by "
                             "warp shuffles or tl.trans/tl.reshape): not compared")
                continue
            if dep_s is None and dep_t is None:
                continue
            if dep_s is None or dep_t is None:
                reads, other = ("target", "source") if dep_s is None else ("source", "target")
                findings.append(Finding(
                    "LC204", f"output `{t_out}` is computed {'from' if reads == 'target' else 'without'} "
                    f"`{t_in}` on the target; the source's `{s_out}` {'does not read' if reads == 'target' else 'reads'} "
                    f"`{s_in}`", side="target", buffer=t_out, location=_first_location(tgt, t_out),
                    other_location=_first_location(src, s_out),
                    witness={"sizes": dict(src.sizes or {}), "input": t_in, "read_by": reads},
                    hint=f"the port must read `{t_in}` exactly where the source reads `{s_in}`"))
                continue
            dep_t = dep_t.reset_tuple_id(isl.dim_type.in_).set_tuple_name(isl.dim_type.in_, s_out) \
                .set_tuple_name(isl.dim_type.out, s_in)
            both = dep_s.domain().intersect(dep_t.domain())
            only_source = dep_s.intersect_domain(both).subtract(dep_t.intersect_domain(both))
            only_target = dep_t.intersect_domain(both).subtract(dep_s.intersect_domain(both))
            found, reader = lexmin_point(only_source), "the source"
            if found is None:
                found, reader = lexmin_point(only_target), "the target"
            if found is None:
                continue
            params, (element, index) = found
            sizes = params or dict(src.sizes or {})
            other = "the target" if reader == "the source" else "the source"
            findings.append(Finding(
                "LC204", f"element {element} of output `{t_out}` is computed from `{t_in}[{index}]` in {reader} "
                f"but not in {other}", side="target", buffer=t_out, location=_first_location(tgt, t_out),
                other_location=_first_location(src, s_out),
                witness={"sizes": sizes, "element": element, "input_index": index, "read_by": reader},
                hint="compare the index expressions of the loads feeding this store"))
    for t_buf, s_buf in correspondence.items():
        # A one-lane tile ("scalar") says nothing about coalescing: compare the others.
        s_classes = {_stride_class(a) for a in src.of(s_buf)} - {"scalar"}
        t_classes = {_stride_class(a) for a in tgt.of(t_buf)} - {"scalar"}
        if s_classes and t_classes and s_classes != t_classes:
            acc = tgt.of(t_buf)[0]
            findings.append(Finding(
                "LC205", f"`{t_buf}` is accessed {', '.join(sorted(t_classes))} along the fastest lane; "
                f"the source's `{s_buf}` {', '.join(sorted(s_classes))}",
                side="target", buffer=t_buf, location=acc.location,
                other_location=src.of(s_buf)[0].location,
                hint="make the fastest-varying lane walk the contiguous dimension"))
    return findings


class _Inexact(Exception):
    """No exact dependence map: a buffer's value feeds itself (a shared-memory tree reduction), or
    values moved between lanes (`tl.trans`, `tl.reshape`)."""


UNKNOWN = object()  # the dependence could not be computed exactly: do not compare it


def _dependence(rel: Relations, out: str, inp: str):
    """{ out[e] -> inp[j] }: the input elements each output element's stored value is computed from,
    through shared and local buffers; None when no output value reads `inp`; UNKNOWN for a cycle."""
    result = None
    try:
        for w in rel.of(out, "write"):
            reach = _reach(rel, w, inp, frozenset())
            if reach is not None:
                dep = w.relation.reverse().apply_range(reach)
                result = dep if result is None else result.union(dep)
    except _Inexact:
        return UNKNOWN
    return result


def _reach(rel: Relations, acc: Access, inp: str, active: frozenset[str]) -> isl.Map | None:
    """{ work item of `acc` -> inp[j] }: what its stored value is computed from, transitively."""
    if acc.id in active:
        raise _Inexact(acc.id)
    active = active | {acc.id}
    if "*moved*" in (src.data for src in acc.op.sources.data):
        raise _Inexact("moved")
    result = None
    reads = {r.id: r for r in rel.accesses if r.kernel == acc.kernel and r.kind in ("read", "atomic")}
    for source in (s.data for s in acc.op.sources.data):
        base, *reduced = source.split("/")  # `r3/LANE7`: read r3 for every value of LANE7
        read = reads.get(base)
        if read is None:
            continue
        relation = read.relation
        for lane in reduced:
            position = relation.find_dim_by_name(isl.dim_type.in_, lane)
            if position >= 0:
                relation = relation.project_out(isl.dim_type.in_, position, 1)
        aligned = _align_domain(relation, acc.relation)
        if aligned is None:
            continue
        if read.buffer == inp:
            part = aligned
        elif read.space != "global":  # through a shared/local buffer: who wrote what was read
            part = None
            for writer in rel.of(read.buffer, "write", "atomic"):
                if writer.kernel != acc.kernel:
                    continue
                inner = _reach(rel, writer, inp, active)
                if inner is not None:
                    step = aligned.apply_range(writer.relation.reverse()).apply_range(inner)
                    part = step if part is None else part.union(step)
        else:
            continue
        if part is not None:
            result = part if result is None else result.union(part)
    return result


def _align_domain(r: isl.Map, w: isl.Map) -> isl.Map | None:
    """`r` over `w`'s work items: variables only the read has (a loop trip, a reduced lane) are
    projected out (the item reads for all of them); variables only the write has are added free."""
    names_w = [w.get_dim_name(isl.dim_type.in_, i) for i in range(w.dim(isl.dim_type.in_))]
    for i in reversed(range(r.dim(isl.dim_type.in_))):
        if r.get_dim_name(isl.dim_type.in_, i) not in names_w:
            r = r.project_out(isl.dim_type.in_, i, 1)
    names_r = [r.get_dim_name(isl.dim_type.in_, i) for i in range(r.dim(isl.dim_type.in_))]
    if [n for n in names_w if n in names_r] != names_r:
        return None  # both are in tag order; anything else is a bug worth not hiding behind a guess
    for pos, name in enumerate(names_w):
        if pos >= r.dim(isl.dim_type.in_) or r.get_dim_name(isl.dim_type.in_, pos) != name:
            r = r.insert_dims(isl.dim_type.in_, pos, 1).set_dim_name(isl.dim_type.in_, pos, name)
    return r.set_tuple_name(isl.dim_type.in_, w.get_tuple_name(isl.dim_type.in_))


def _stride_class(acc: Access) -> str:
    lane_name = acc.op.fastest.data
    if not lane_name:
        return "scalar"
    lane = symbolic.var(lane_name)
    index = symbolic.parse(acc.op.indices.data[0].data)  # over the sizes, whatever the binding
    if lane not in index.free_symbols:
        return "broadcast"
    if index.has(sympy.floor, sympy.Mod, sympy.Min, sympy.Max, sympy.Piecewise):
        return "gather"
    coeff = sympy.diff(index, lane)
    if lane in coeff.free_symbols:
        return "gather"
    if not coeff.is_Integer:
        return f"strided({symbolic.format(coeff)})"
    return "contiguous" if abs(int(coeff)) == 1 else f"strided({abs(int(coeff))})"


def _geometry(source: Side, target: Side) -> list[Finding]:
    s, t = geometry_text(source.module), geometry_text(target.module)
    if s == t:
        return []
    return [Finding("LC101", f"source launches {s}; target launches {t}",
                    hint="informational: a different geometry is fine when the accesses agree")]


def geometry_text(module: ModuleOp) -> str:
    entry = next(op for op in module.ops if isinstance(op, EntryOp))
    parts = []
    for launch in entry.launches:
        grid = [g for g in launch.grid_exprs]
        while len(grid) > 1 and grid[-1] == "1":
            grid.pop()
        block = [b for b in launch.block_exprs]
        while len(block) > 1 and block[-1] == "1":
            block.pop()
        where = f"@{launch.callee.root_reference.data}: grid ({', '.join(grid)})"
        if block:
            where += f" x block ({', '.join(block)})"
        elif launch.num_warps is not None:
            where += f", {launch.num_warps.data} warps"
        parts.append(where)
    return "; ".join(parts)


__all__ = ["Side", "StaticResult", "analyse", "geometry_text", "location_of"]
