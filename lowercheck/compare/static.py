"""Static checks on access relations: bounds, coverage, exactly-once, dependences, strides.

Each side is checked on its own (LC201, LC202, LC203, LC211), then the two sides are compared
(LC204 dependence of each output on each input, LC205 stride class along the fastest lane, LC101
launch geometry). Every check is first tried for all sizes at once; when an index is not
quasi-affine in the sizes, for each size of the sweep. The verdict's strength says which.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from typing import Any

import islpy as isl
import sympy
from xdsl.dialects.builtin import ModuleOp

from lowercheck import symbolic
from lowercheck.compare import explain
from lowercheck.compare.accesses import (
    Access,
    PartlyProved,
    Relations,
    block_of,
    build,
    extent_set,
    lexmin_point,
    location_of,
    witness,
)
from lowercheck.compare.combining import combined_by, compare_operators
from lowercheck.compare.traffic import (
    BufferTraffic,
    buffer_traffic,
    nominal_sizes,
    sectors_per_request,
    stride_class,
)
from lowercheck.dialects import sources
from lowercheck.dialects.kernel import EntryOp
from lowercheck.dialects.sources import MOVED
from lowercheck.errors import SourceLocation, Unsupported
from lowercheck.findings import CODES, Evidence, Finding, Severity


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

    @cached_property
    def host_written(self) -> frozenset[str]:
        """Outputs the entry computes with its own (host) operations, no kernel writing them: nothing
        of theirs for the access checks to check."""
        return frozenset(p.pname for p in self.entry.params if p.host_written)

    @property
    def scheduled(self) -> bool:
        """False for a PyTorch reference: it has no accesses to check or compare."""
        return self.entry.scheduled


@dataclass
class StaticResult:
    findings: list[Finding] = field(default_factory=list)
    strength: Evidence = Evidence.PARAMETRIC
    notes: list[str] = field(default_factory=list)
    swept: list[dict[str, int]] = field(default_factory=list)
    traffic: dict[str, dict[str, BufferTraffic]] = field(default_factory=dict)  # side -> buffer -> bytes
    traffic_sizes: dict[str, int] = field(default_factory=dict)
    checks: list[CheckVerdict] = field(default_factory=list)
    swept_sizes: list[dict[str, int]] = field(default_factory=list)  # where the range checks ran
    unscheduled: str | None = None  # the side that is a PyTorch reference (no accesses to compare)
    # Per side, the buffers whose accesses are only partly proved (indices or writes from loaded data).
    partly_proved: dict[str, list[PartlyProved]] = field(default_factory=dict)
    # Per output of the target, how its dependence map was judged (LC204): `DEPENDENCE_STATUSES`.
    dependences: dict[str, str] = field(default_factory=dict)
    # Per side ("source", "target"), each compared dependence map in words (`explain.describe_dependence`).
    dependence_words: dict[str, list[str]] = field(default_factory=dict)
    # (side, output, input) -> (the map, the output's operators), at the first sizes checked: for the words.
    dependence_maps: dict[tuple[str, str, str], tuple[Any, frozenset[str]]] = field(default_factory=dict, repr=False)


# isl operations the static checks of one comparison may take (about 80 s on the 2-core machine kind
# of CI; `$LOWERCHECK_ISL_OPERATIONS` overrides it); past it they stop with LC901.
ISL_OPERATIONS = int(os.environ.get("LOWERCHECK_ISL_OPERATIONS", 10**8))
_QUOTA = "maximal number of operations exceeded"


def analyse(source: Side, target: Side, correspondence: Mapping[str, str],
            size_names: Sequence[str], sweep: Sequence[Mapping[str, int]], swept: bool = False,
            domain: bool = False) -> StaticResult:
    """All static checks (`_analyse`) within isl's operation budget: a relation too costly to build
    or check is LC901 "too complex" (inconclusive), never a hang."""
    context = isl.DEFAULT_CONTEXT
    context.set_max_operations(ISL_OPERATIONS)
    context.reset_operations()
    try:
        result = _analyse(source, target, correspondence, size_names, sweep, swept, domain)
        context.set_max_operations(_WORDS_OPERATIONS)
        context.reset_operations()
        result.dependence_words = _dependence_words(result.dependence_maps)
        return result
    except isl.Error as err:
        if _QUOTA not in str(err):
            raise
        result = StaticResult(strength=Evidence.UNSUPPORTED)
        result.findings.append(Finding(
            "LC901", f"the static checks are too complex: isl's budget of {ISL_OPERATIONS:,} operations ran out "
                     "while building or checking the access relations", evidence=str(Evidence.UNSUPPORTED),
            hint="the runs still compare the two sides; a spec with fewer or smaller sizes, or a kernel with "
                 "fewer index dimensions, may fit the budget"))
        result.checks = _check_verdicts(result)
        return result
    finally:
        context.set_max_operations(0)
        context.reset_operations()


_WORDS_OPERATIONS = 10**7  # isl operations the words of the dependence maps may take, after the checks


def _dependence_words(maps: Mapping[tuple[str, str, str], tuple[Any, frozenset[str]]]) -> dict[str, list[str]]:
    """Each side's compared dependence maps in words, with the operators that combined the output;
    what isl cannot put in words within `_WORDS_OPERATIONS` is left out."""
    words: dict[str, list[str]] = {}
    for (side, _, _), (dep, operators) in maps.items():
        try:
            words.setdefault(side, []).append(explain.dependence_sentence(dep, operators))
        except isl.Error:
            break
    return words


def words_score(sizes: Mapping[str, int]) -> int:
    """How well a binding of the sizes shows a dependence map in words: the largest with none of 1
    (a size of 1 makes a coordinate a constant) best; 0 for one with a size of 1."""
    return math.prod(sizes.values()) if all(v >= 2 for v in sizes.values()) else 0


def _analyse(source: Side, target: Side, correspondence: Mapping[str, str],
             size_names: Sequence[str], sweep: Sequence[Mapping[str, int]], swept: bool = False,
             domain: bool = False) -> StaticResult:
    """All static checks. `correspondence` maps each target buffer to its source buffer. With
    `swept`, skip the parametric attempt (a side was lowered for these concrete sizes only). With
    `domain`, the sweep is the spec's: an error the parametric checks find only at other sizes (a
    length of 1 for a kernel whose spec asks for multiples of 4) is checked again at the sweep's."""
    if domain and not swept:
        result = _analyse(source, target, correspondence, size_names, sweep)
        spec_sizes = [dict(b) for b in sweep]
        outside = [f for f in result.findings if f.level is Severity.ERROR
                   and isinstance(f.witness.get("sizes"), dict) and f.witness["sizes"] not in spec_sizes]
        if not outside:
            return result
        again = _analyse(source, target, correspondence, size_names, sweep, swept=True)
        where = "; ".join(sorted({", ".join(f"{k}={v}" for k, v in f.witness["sizes"].items()) for f in outside}))
        again.notes.insert(0, f"the parametric checks found {', '.join(sorted({f.code for f in outside}))} only at "
                              f"sizes outside the spec's ({where}): not checked there; the static checks "
                              "ran at the spec's sizes instead")
        return again
    result = StaticResult()
    try:
        if swept:
            raise symbolic.NonAffine("a side was captured for concrete sizes")
        rels = [(build(s.module, None, size_names, s.extents), s) for s in (source, target)]
        for side in (source, target):  # extents must be quasi-affine too for a parametric proof
            for buffer, shape in side.extents.items():
                extent_set(buffer, shape, None, sorted(size_names))
        per_binding = [rels]
    except symbolic.NonAffine as why:
        result.strength = Evidence.SWEPT
        if not swept:
            result.notes.append(f"an index or extent is not quasi-affine in the sizes ({why}); "
                                "checked for each swept size instead")
        per_binding, kept = [], []
        for b in sweep:
            try:
                per_binding.append([(build(s.module, b, size_names, s.extents), s) for s in (source, target)])
                kept.append(b)
            except ZeroDivisionError:  # a size of 0 under a `/` or `%` of an index
                result.notes.append(f"at {', '.join(f'{k}={v}' for k, v in b.items())} an index divides by a size "
                                    "that is zero: not checked statically at these sizes")
        if not per_binding:
            raise Unsupported("every swept size makes an index divide by zero: nothing to check statically",
                              hint="sweep sizes above zero in the spec")
        sweep = kept
        result.swept = [dict(b) for b in sweep]
    seen: set[tuple] = set()
    reference = next((s for s in (source, target) if not s.scheduled), None)
    result.unscheduled = reference.name if reference is not None else None
    if reference is not None:
        result.notes.append(f"the {reference.name} is a PyTorch reference, without a schedule: the kernel's "
                            "accesses are checked on their own (bounds, coverage, exactly-once, index ranges); "
                            "dependences and traffic are not compared")
    for side in (source, target):
        if side.scheduled and side.host_written:
            result.notes.append(f"the {side.name} computes {', '.join(f'`{b}`' for b in sorted(side.host_written))} "
                                "with torch operations of its wrapper, after its launches, no kernel writing "
                                f"{'them' if len(side.host_written) > 1 else 'it'}: the runs check the values, "
                                "the access checks have nothing there to check")
    # The words of the dependence maps, where the checks ran for one size at a time: at the best sizes.
    words_at = max(range(len(sweep)), key=lambda k: words_score(sweep[k])) if len(per_binding) > 1 else 0
    for k, rels in enumerate(per_binding):
        findings: list[Finding] = []
        for rel, side in rels:
            if side.scheduled:
                findings += _check_side(rel, side)
            for line in rel.partly_proved():
                if line not in result.partly_proved.setdefault(side.name, []):
                    result.partly_proved[side.name].append(line)
        notes: list[str] = []
        if reference is None:
            findings += _compare(rels[0][0], rels[1][0], source, target, correspondence, notes,
                                 result.dependences, result.dependence_maps if k == words_at else None)
            findings += compare_operators(rels[0][0], rels[1][0], correspondence, result.dependences,
                                          _first_location, _first_location)
        result.notes += [n for n in notes if n not in result.notes]
        for f in findings:
            key = (f.code, f.side, f.buffer, f.location, f.message if f.code == "LC901" else None)
            if key not in seen:
                seen.add(key)
                result.findings.append(f)
    if any(f.code == "LC901" for f in result.findings):
        result.strength = Evidence.UNSUPPORTED
    for side, parts in result.partly_proved.items():
        result.notes.append(f"partly proved ({side}): " + "; ".join(map(str, parts)) + ". The runs bounds-check these "
                            "accesses and compare the values; coverage and dependences of these buffers are not "
                            "compared statically; every other access is checked as usual")
    # Type checks: integer index ranges at every swept size (LC209), accumulation types (LC305).
    concrete = per_binding if per_binding[0][0][0].sizes is not None else \
        [[(build(s.module, b, size_names, s.extents), s) for s in (source, target)] for b in sweep]
    result.swept_sizes = [dict(rels[0][0].sizes or {}) for rels in concrete]
    for rels in concrete:
        for rel, side in rels:
            for f in _index_overflow(rel, side):
                key = (f.code, f.side, f.buffer, f.location)
                if key not in seen:
                    seen.add(key)
                    result.findings.append(f)
    result.findings += _accumulation_types(concrete[0][0][0], concrete[0][1][0], correspondence, target,
                                           reference=source if not source.scheduled else None)
    at = dict(sweep[0]) if swept and sweep else nominal_sizes(size_names)
    found, result.traffic = traffic(source, target, correspondence, size_names, at)
    result.traffic_sizes = at
    result.findings += found
    result.findings = [_with_evidence(f) for f in result.findings]
    result.checks = _check_verdicts(result)
    if reference is None:
        result.findings += _geometry(source, target)
    return result


# The static checks, in report order; each gets a verdict even when it found nothing.
CHECKS = ("LC201", "LC202", "LC203", "LC204", "LC209", "LC305", "LC205", "LC206")
_ESTIMATES = ("LC205", "LC206")  # compared at nominal sizes: estimates, not proofs


@dataclass(frozen=True)
class CheckVerdict:
    code: str
    title: str
    status: str  # an Evidence value, or "not compared"
    detail: str = ""

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "title": self.title, "status": self.status, "detail": self.detail}


def _with_evidence(f: Finding) -> Finding:
    if f.evidence is not None:
        return f
    evidence = Evidence.UNSUPPORTED if f.code == "LC901" else \
        Evidence.MEASURED if f.code in _ESTIMATES else Evidence.REFUTED
    return replace(f, evidence=str(evidence))


def _check_verdicts(result: StaticResult) -> list[CheckVerdict]:
    unmodelled = [f for f in result.findings if f.code == "LC901"]
    verdicts = []
    for code in CHECKS:
        found = [f for f in result.findings if f.code == code]
        title = CODES[code].title
        if result.unscheduled is not None and code in ("LC204", "LC205", "LC206"):
            verdicts.append(CheckVerdict(code, title, "not compared", "a PyTorch reference has no accesses to "
                                         "compare with: " + ("the kernel's traffic is in the cost model"
                                                             if code != "LC204" else "the runs compare values")))
        elif found:
            verdicts.append(CheckVerdict(code, title, str(Evidence.REFUTED), f"{len(found)} finding(s)"))
        elif code in _ESTIMATES:
            where = ", ".join(f"{k}={v}" for k, v in result.traffic_sizes.items())
            verdicts.append(CheckVerdict(code, title, str(Evidence.MEASURED),
                                         f"no material difference at {where}" if result.traffic else
                                         "not estimated (no concrete relations)"))
        elif unmodelled:
            verdicts.append(CheckVerdict(code, title, str(Evidence.UNSUPPORTED),
                                         f"{len(unmodelled)} access(es) not modelled: " + unmodelled[0].message))
        elif code in ("LC201", "LC202", "LC204") and (where := _partly(result, code)):
            verdicts.append(CheckVerdict(code, title, str(Evidence.PARTLY), f"{result.strength}, except {where} "
                                         "(indices or writes from loaded data: checked by the runs)"))
        elif code == "LC204" and any("not exact" in n or "not compared" in n for n in result.notes):
            verdicts.append(CheckVerdict(code, title, "not compared",
                                         next(n for n in result.notes if "not exact" in n or "not compared" in n)))
        elif code == "LC209":  # ranges are checked at concrete sizes only
            verdicts.append(CheckVerdict(code, title, str(Evidence.SWEPT), "sizes: " + "; ".join(
                ", ".join(f"{k}={v}" for k, v in b.items()) for b in result.swept_sizes)))
        else:
            detail = "" if result.strength is Evidence.PARAMETRIC else \
                "sizes: " + "; ".join(", ".join(f"{k}={v}" for k, v in b.items()) for b in result.swept)
            verdicts.append(CheckVerdict(code, title, str(result.strength), detail))
    return verdicts


def _partly(result: StaticResult, code: str) -> str:
    """The buffers a check leaves to the runs, per side: for bounds (LC201) those at indices from
    loaded data (a write under a condition on data is bounds-checked as if it always happened), for
    coverage (LC202) the written ones, for dependences (LC204) all."""
    sides = []
    for side, parts in result.partly_proved.items():
        buffers = [f"`{p.buffer}`" for p in parts
                   if (code != "LC201" or p.how == "index") and (code != "LC202" or p.kind != "read")]
        if buffers:
            sides.append(f"{side}: {', '.join(dict.fromkeys(buffers))}")
    return "; ".join(sides)


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
    # LC201: every access inside its buffer, dimension by dimension.
    for acc in rel.accesses:
        ext = extents.get(acc.buffer)
        if ext is None:
            continue
        outside = acc.relation.subtract_range(ext)
        w = witness(outside)
        if w is None:
            continue
        sizes = _sizes_of(w, rel)
        findings.append(_out_of_bounds(acc, w, sizes, shapes[acc.buffer], side.name, triton, verb[acc.kind]))
    # LC202 / LC203 / LC211 per buffer.
    for buffer, role in side.roles.items():
        writes = rel.union(buffer, "write")
        if role in ("in",) and (writes is not None or rel.of(buffer, "atomic")):
            acc = rel.of(buffer, "write", "atomic")[0]
            findings.append(Finding("LC211", f"the kernel writes its input `{buffer}`", side=side.name,
                                    buffer=buffer, location=acc.location,
                                    hint="write the result into an output buffer"))
        if (role not in ("out", "inout") or buffer not in extents or uncertain(rel, buffer)
                or buffer in side.host_written):
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
            writers = rel.of(buffer, "write", "atomic")
            words = explain.describe(writers[0], triton) if writers else None
            if rel.sizes is None and (never := explain.describe_set(m)) is not None:
                unwritten = f"{never} is never written; e.g. {unwritten}"
            findings.append(Finding(
                "LC202", f"output `{buffer}` is not fully written: " + (f"{words}; " if words else "") + unwritten,
                side=side.name, buffer=buffer, location=_first_location(rel, buffer),
                witness={"sizes": sizes, "index": w["index"], "unwritten": unwritten,
                         "unwritten_set": str(missing)},
                hint=("launch `triton.cdiv(n, BLOCK)` programs and mask the tail" if triton
                      else "launch enough blocks to cover the output: (n + B - 1) / B")))
        if writes is not None and not writes.is_injective():
            found_pair = _double_write(rel, buffer, triton)
            if found_pair is not None:
                pair, where = found_pair
                how = (f"is written by two work items: {pair['first']} and {pair['second']}"
                       if pair["work_items"] == 2 else
                       f"is written twice by one program, with no order between the writes: {pair['first']} "
                       f"and {pair['second']} ({pair['why']})")
                findings.append(Finding(
                    "LC203", f"element {element_text(buffer, pair['index'])} {how}",
                    side=side.name, buffer=buffer, location=where,
                    witness=pair, hint="make the tiles disjoint, or use atomics"))
    return findings


def _extent_value(shape: list[str], sizes: Mapping[str, int]) -> int | str:
    total = sympy.Integer(1)
    for dim in shape:
        total *= symbolic.substitute(symbolic.parse(dim), sizes)
    return int(total) if total.is_Integer else symbolic.format(total)


def _dims_at(shape: list[str], sizes: Mapping[str, int]) -> list[int | str]:
    values = [symbolic.substitute(symbolic.parse(d), sizes) for d in shape]
    return [int(v) if v.is_Integer else symbolic.format(v) for v in values]


def _out_of_bounds(acc: Access, w: dict, sizes: dict[str, int], shape: list[str], side: str, triton: bool,
                   verb: str) -> Finding:
    """LC201 for one access, with the dimension that is out of range and, for an inner dimension
    whose flat index is still inside the buffer, the wrap into the next row."""
    index = w["index"]
    item = _work_item(w)
    where = _describe_item(w, triton)
    hint = ("guard the access: pass `mask=offs < n` to tl.load/tl.store (one condition per dimension "
            "of a 2-D tile)" if triton else "guard the access with `if (i < n)` (each dimension)")
    if isinstance(index, list) and acc.space == "global":
        dims = _dims_at(shape, sizes)
        bad = next((j for j, (c, d) in enumerate(zip(index, dims, strict=True))
                    if isinstance(d, int) and not 0 <= c < d), len(dims) - 1)
        flat = 0
        for c, d in zip(index, dims, strict=True):
            flat = flat * (d if isinstance(d, int) else 0) + c
        total = _extent_value(shape, sizes)
        wraps = bad > 0 and isinstance(total, int) and 0 <= flat < total
        where_text = (f"; flat index {flat} is inside the buffer: the access wraps into another "
                      f"{'row' if bad == len(dims) - 1 else 'slice'}" if wraps else "")
        message = (f"out-of-bounds {verb} `{acc.buffer}`: {acc.buffer}[{', '.join(map(str, index))}] "
                   f"with coordinate {bad} = {index[bad]} outside [0, {dims[bad]}) "
                   f"(dimension {bad} of [{', '.join(shape)}]){where_text}")
        return Finding("LC201", message, side=side, buffer=acc.buffer, location=acc.location,
                       witness={"sizes": sizes, "work_item": item, "index": index, "dimension": bad,
                                "extent": dims, "flat_index": flat, "wraps": wraps, "where": where},
                       hint=hint)
    extent = _extent_value(shape, sizes)
    return Finding("LC201", f"out-of-bounds {verb} `{acc.buffer}` (index {index}, extent {extent})",
                   side=side, buffer=acc.buffer, location=acc.location,
                   witness={"sizes": sizes, "work_item": item, "index": index, "extent": extent, "where": where},
                   hint=hint)


def _range_text(missing: isl.Set, sizes: Mapping[str, int], rel: Relations) -> str:
    fixed = missing
    for i in range(missing.dim(isl.dim_type.param)):
        name = missing.get_dim_name(isl.dim_type.param, i)
        if name in sizes:
            fixed = fixed.fix_val(isl.dim_type.param, i, isl.Val(str(sizes[name])))
    lo = _coordinate(fixed.lexmin())
    hi = _coordinate(fixed.lexmax())
    where = ", ".join(f"{k}={v}" for k, v in sizes.items())
    name = missing.get_tuple_name()
    if isinstance(lo, list):
        count = fixed.count_val().to_python() if fixed.is_bounded() else None
        many = f"{count} elements" if count is not None else "elements"
        text = (f"element {name}[{_join(lo)}] is never written" if lo == hi else
                f"{many} from {name}[{_join(lo)}] to {name}[{_join(hi)}] are never written")
        return text + (f" (for {where})" if where else "")
    return (f"element {lo} is never written" if lo == hi else
            f"elements {lo}..{hi} are never written") + (f" (for {where})" if where else "")


def _join(values) -> str:
    return ", ".join(str(v) for v in values)


def _coordinate(point_set: isl.Set) -> int | list[int]:
    point = point_set.sample_point()
    n = point_set.dim(isl.dim_type.set)
    names = [point_set.get_dim_name(isl.dim_type.set, i) or "" for i in range(n)]
    values = [point.get_coordinate_val(isl.dim_type.set, i).to_python() for i in range(n)
              if not names[i].startswith("o_")]
    return values[0] if len(values) == 1 else values


def _first_location(rel: Relations, buffer: str):
    accs = rel.of(buffer, "write", "atomic")
    return accs[0].location if accs else None


def _double_write(rel: Relations, buffer: str, tile: bool) -> tuple[dict, SourceLocation | None] | None:
    """Two writes of one element with no order between them, with the element: writes by two work
    items (two CUDA threads, two programs, or two launches), or two writes by one program that
    different threads of it perform (`tile`: Triton and Pallas, whose LANE variables are positions
    in a tile, not threads). One thread's writes are in program order: a CUDA thread's rewrites,
    and a program's writes at one position of its tiles (a later store of the same element, or a
    later trip of a loop) are not double writes; two lanes of one store are (`_same_thread`).
    Returns the witness and the location of the first of the two writes."""
    accs = rel.of(buffer, "write")
    for a in accs:
        for b in accs:
            pairs = a.relation.apply_range(b.relation.reverse())
            if a is b:
                pairs = pairs.subtract(isl.Map.identity(pairs.get_space()))
            if a.kernel == b.kernel:
                pairs = pairs.subtract(_same_thread(a, b, pairs, tile))
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
            one = a.kernel == b.kernel and all(first.get(f"GRID{d}") == second.get(f"GRID{d}") for d in range(3))
            why = ("two lanes of one store: a store writes its tile's elements at once" if a is b and
                   all(first.get(k) == v for k, v in second.items() if k.startswith("SEQ")) else
                   "different positions of its tiles, done by different threads of the program")
            return {"sizes": params or dict(rel.sizes or {}), "index": element,
                    "first": _describe_item(first, tile), "second": _describe_item(second, tile),
                    "work_items": 1 if one and tile else 2, **({"why": why} if one and tile else {})}, \
                a.location
    return None


def _same_thread(a: Access, b: Access, pairs: isl.Map, tile: bool) -> isl.Map:
    """{ a's instance -> b's instance : both done by one thread }, in the space of `pairs` (a and b
    of one launch). One thread: the same block and threadIdx (CUDA); in a tile language, the same
    program and the same position of the two tiles (Triton lays out two tiles of one shape alike:
    an element at one position is one thread's). Its writes are in program order, and so are those
    of the steps along an ordered grid axis (a Pallas TPU kernel's "arbitrary" axis: one core runs
    its steps one after another), whatever the step."""
    names_a = [a.relation.get_dim_name(isl.dim_type.in_, i) for i in range(a.relation.dim(isl.dim_type.in_))]
    names_b = [b.relation.get_dim_name(isl.dim_type.in_, i) for i in range(b.relation.dim(isl.dim_type.in_))]
    equal = [f"GRID{d} = q_GRID{d}" for d in range(3) if d not in a.ordered]
    if not tile:
        equal += [f"{d} = q_{d}" for d in ("LANE0", "LANE1", "LANE2") if d in names_a and d in names_b]
    else:
        pos_a, pos_b = _positions(a, names_a), _positions(b, names_b)
        if a is b and pos_a is None:  # one store: its lanes are its positions, whatever their order
            pos_a = pos_b = [n for n in names_a if n.startswith("LANE")]
        if pos_a is None or pos_b is None or len(pos_a) != len(pos_b):
            return isl.Map.empty(pairs.get_space())  # positions not comparable: no write is ordered
        for la, lb in zip(pos_a, pos_b, strict=True):
            if la and lb:
                equal.append(f"{la} = q_{lb}")
            elif la or lb:  # a dimension of size 1 on one side: position 0 there
                equal.append(f"{la} = 0" if la else f"q_{lb} = 0")
    nparam = pairs.dim(isl.dim_type.param)
    params = [pairs.get_dim_name(isl.dim_type.param, i) for i in range(nparam)]
    text = (f"[{', '.join(params)}] -> {{ {pairs.get_tuple_name(isl.dim_type.in_)}[{', '.join(names_a)}] -> "
            f"{pairs.get_tuple_name(isl.dim_type.out)}[{', '.join('q_' + n for n in names_b)}] : "
            f"{' and '.join(equal) or '0 = 0'} }}")
    return isl.Map(text)


def _positions(acc: Access, names: Sequence[str]) -> list[str] | None:
    """The lane of each dimension of a tile access ("" for size 1); [] for a scalar access (no
    lane: one position); None when the IR does not say which lane is which dimension."""
    lanes = acc.op.tile_lanes
    if lanes is not None:
        return list(lanes) if all(not lane or lane in names for lane in lanes) else None
    return [] if not any(n.startswith("LANE") for n in names) else None


def _index_of(acc: Access, params: Mapping[str, int], item: Mapping[str, int]) -> int | list[int] | None:
    """The element `acc` touches for this work item: its coordinates (one int for a 1-D buffer)."""
    values = [symbolic.substitute(c, {**params, **item}) for c in (acc.coords or (acc.index,))]
    if not all(v.is_Integer for v in values):
        return None
    return _scalar_or_list([int(v) for v in values])


def element_text(buffer: str, index: int | list[int] | None) -> str:
    """`x[3, 4]` for coordinates, `x[7]` for a flat index."""
    if isinstance(index, list):
        return f"{buffer}[{_join(index)}]"
    return f"{buffer}[{index}]"


def uncertain(rel: Relations, buffer: str) -> bool:
    """What the modelled accesses of `buffer` cover, or compute from, is not the whole story: an
    access to it (or to a buffer lowercheck could not name) was not modelled (LC901 says so), one
    takes its index from loaded data, or a write to it happens only where loaded data says so (both
    "partly proved": the runs check them)."""
    return (any(u.buffer in (buffer, "?") for u in rel.unmodelled)
            or any(i.buffer == buffer for i in rel.indirect)
            or any(a.data_condition and a.kind != "read" for a in rel.of(buffer)))


# How an output's dependence map was judged, best first; over several size bindings the worst stands.
# "observed": not compared statically, then observed in runs (`lowercheck.observe`).
DEPENDENCE_STATUSES = ("compared", "observed", "left to the runs", "not compared")


def judged(statuses: dict[str, str], output: str, status: str) -> None:
    """Record `status` for `output` unless a worse one is there already."""
    if DEPENDENCE_STATUSES.index(status) > DEPENDENCE_STATUSES.index(statuses.get(output, "compared")):
        statuses[output] = status
    statuses.setdefault(output, status)


def _compare(src: Relations, tgt: Relations, source: Side, target: Side,
             correspondence: Mapping[str, str], notes: list[str],
             statuses: dict[str, str] | None = None, maps: dict | None = None) -> list[Finding]:
    """LC204: each output's dependence map on each input, source against target; `statuses` gets how
    each output was judged ("left to the runs" when its accesses are partly proved, "not compared"
    when a dependence could not be computed exactly); `maps` the maps compared (the first ones)."""
    findings: list[Finding] = []
    statuses = statuses if statuses is not None else {}
    maps = maps if maps is not None else {}
    for t_out, s_out in correspondence.items():
        if target.roles.get(t_out) not in ("out", "inout"):
            continue
        if t_out in target.host_written or s_out in source.host_written:
            continue
        if uncertain(tgt, t_out) or uncertain(src, s_out):
            judged(statuses, t_out, "left to the runs")
            continue
        judged(statuses, t_out, "compared")
        # Stride class of each buffer along the fastest lane (LC205).
        for t_in, s_in in correspondence.items():
            if target.roles.get(t_in) not in ("in", "inout"):
                continue
            if uncertain(tgt, t_in) or uncertain(src, s_in):
                judged(statuses, t_out, "left to the runs")
                continue
            dep_s = dependence(src, s_out, s_in)
            dep_t = dependence(tgt, t_out, t_in)
            if dep_s is UNKNOWN or dep_t is UNKNOWN:
                judged(statuses, t_out, "not compared")
                why = src.memo.get(("inexact", s_out, s_in)) if dep_s is UNKNOWN else \
                    tgt.memo.get(("inexact", t_out, t_in))
                notes.append(f"the dependence of `{t_out}` on `{t_in}` is not exact on the "
                             f"{'source' if dep_s is UNKNOWN else 'target'} ({why}): not compared")
                continue
            if dep_s is None and dep_t is None:
                continue
            for side, rel, out, inp, dep in (("source", src, s_out, s_in, dep_s), ("target", tgt, t_out, t_in, dep_t)):
                if dep is not None and (side, out, inp) not in maps:
                    maps[(side, out, inp)] = (dep, combined_by(rel, out))
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
            if (dep_s.dim(isl.dim_type.in_), dep_s.dim(isl.dim_type.out)) != \
                    (dep_t.dim(isl.dim_type.in_), dep_t.dim(isl.dim_type.out)):
                judged(statuses, t_out, "not compared")
                notes.append(f"`{t_out}` and `{t_in}` have different ranks on the two sides: dependence not compared")
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
            params, values = found
            rank = dep_s.dim(isl.dim_type.in_)
            element = _scalar_or_list(values[:rank])
            index = _scalar_or_list(values[rank:])
            sizes = params or dict(src.sizes or {})
            other = "the target" if reader == "the source" else "the source"
            findings.append(Finding(
                "LC204", f"element {element_text(t_out, element)} of the output is computed from "
                f"{element_text(t_in, index)} in {reader} "
                f"but not in {other}", side="target", buffer=t_out, location=_first_location(tgt, t_out),
                other_location=_first_location(src, s_out),
                witness={"sizes": sizes, "element": element, "input_index": index, "read_by": reader},
                hint="compare the index expressions of the loads feeding this store"))
    return findings


def traffic(source: Side, target: Side, correspondence: Mapping[str, str], size_names: Sequence[str],
            sizes: Mapping[str, int]) -> tuple[list[Finding], dict[str, dict[str, BufferTraffic]]]:
    """LC205 (sectors per warp request) and LC206 (issued bytes) per buffer, at concrete `sizes`;
    and each side's traffic table for the report."""
    rels = {}
    for side in (source, target):
        try:
            rels[side.name] = build(side.module, sizes, size_names, side.extents)
        except (symbolic.NonAffine, isl.Error):
            return [], {}
    tables: dict[str, dict[str, BufferTraffic]] = {"source": {}, "target": {}}
    for side in (source, target):
        rel = rels[side.name]
        for buffer in side.roles:
            found = buffer_traffic(rel, buffer, lambda k, rel=rel: block_of(rel.entry, k, sizes))
            if found is not None:
                tables[side.name][buffer] = found
    findings: list[Finding] = []
    where = ", ".join(f"{k}={v}" for k, v in sizes.items())
    src, tgt = rels["source"], rels["target"]
    for t_buf, s_buf in correspondence.items():
        s_t, t_t = tables["source"].get(s_buf), tables["target"].get(t_buf)
        if s_t is None or t_t is None:
            continue
        if s_t.sectors and t_t.sectors and t_t.sectors > MATERIAL * s_t.sectors:
            t_classes = sorted({stride_class(a) for a in tgt.of(t_buf)} - {"scalar"})
            s_classes = sorted({stride_class(a) for a in src.of(s_buf)} - {"scalar"})
            worst = max(tgt.of(t_buf), key=lambda a: sectors_per_request(
                a, block_of(tgt.entry, a.kernel, sizes), sizes) or 0)
            findings.append(Finding(
                "LC205", f"`{t_buf}` is accessed {', '.join(t_classes)} along the fastest lane: "
                f"{t_t.sectors:g} sectors per warp request; the source's `{s_buf}` is {', '.join(s_classes)}: "
                f"{s_t.sectors:g} (at {where})",
                side="target", buffer=t_buf, location=worst.location,
                other_location=src.of(s_buf)[0].location,
                witness={"sizes": dict(sizes), "target_sectors": t_t.sectors, "source_sectors": s_t.sectors,
                         "target_class": t_classes, "source_class": s_classes},
                hint="make the fastest-varying lane (the tile's last dimension, or threadIdx.x) walk the "
                     "contiguous dimension, or stage the tile through shared memory"))
        # LC206 on requested bytes: extra sectors from uncoalesced accesses are LC205's business.
        if t_t.requested_bytes > MATERIAL * s_t.requested_bytes and \
                t_t.requested_bytes - s_t.requested_bytes > 4096:
            findings.append(Finding(
                "LC206", f"`{t_buf}`: the target requests {_bytes(t_t.requested_bytes)} "
                f"({t_t.requested_bytes / s_t.requested_bytes:.1f}x the source's {_bytes(s_t.requested_bytes)}) "
                f"for {_bytes(t_t.compulsory_bytes)} of compulsory traffic (at {where})",
                side="target", buffer=t_buf, location=_first_access_location(tgt, t_buf),
                other_location=_first_access_location(src, s_buf),
                witness={"sizes": dict(sizes), "target": t_t.to_json(), "source": s_t.to_json()},
                hint="reuse loaded tiles (a larger tile, shared memory) instead of loading them again"))
    return findings, tables


MATERIAL = 1.5  # a side's traffic differs materially when it is this many times the other's


def _bytes(n: float) -> str:
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{int(n)} B"


def _first_access_location(rel: Relations, buffer: str):
    accs = rel.of(buffer)
    return accs[0].location if accs else None


INT32 = (-(2**31), 2**31 - 1)


def _index_overflow(rel: Relations, side: Side) -> list[Finding]:
    """LC209: each subexpression of an index computed in 32-bit integers stays in range over the
    work items that perform the access, at `rel`'s concrete sizes."""
    findings = []
    triton = side.entry.language.data == "triton"
    for acc in rel.accesses:
        if acc.op.int32 is None:
            continue
        domain = acc.relation.domain()
        names = [domain.get_dim_name(isl.dim_type.set, i) for i in range(domain.dim(isl.dim_type.set))]
        tuple_name = domain.get_tuple_name()
        for text in (t.data for t in acc.op.int32.data):
            expr = symbolic.substitute(symbolic.parse(text), rel.sizes or {})
            try:
                values = isl.Map(f"{{ {tuple_name}[{', '.join(names)}] -> [v] : v = {symbolic.to_isl(expr)} }}")
            except symbolic.NonAffine:
                continue
            values = values.intersect_domain(domain)
            reached = values.range()
            if reached.is_empty():
                continue
            for extreme, bound, beyond in ((reached.lexmax(), INT32[1], lambda v: v > INT32[1]),
                                           (reached.lexmin(), INT32[0], lambda v: v < INT32[0])):
                value = extreme.sample_point().get_coordinate_val(isl.dim_type.set, 0).to_python()
                if not beyond(value):
                    continue
                found = lexmin_point(values.intersect_range(extreme).domain())
                where = dict(zip(names, found[1], strict=True)) if found else {}
                sizes = dict(rel.sizes or {})
                findings.append(Finding(
                    "LC209", f"`{text}` is computed in 32-bit integers and reaches {value} "
                    f"({'above 2^31 - 1' if value > 0 else 'below -2^31'}) for "
                    f"{', '.join(f'{k}={v}' for k, v in sizes.items())}: the index into `{acc.buffer}` wraps",
                    side=side.name, buffer=acc.buffer, location=acc.location,
                    witness={"sizes": sizes, "expression": text, "value": value, "limit": bound,
                             "work_item": where, "where": _describe_item(where, triton)},
                    hint=("compute offsets in int64: `pid.to(tl.int64) * BLOCK`, or cast the row index "
                          "before multiplying by the stride" if triton else
                          "compute the index in 64 bits: `(long long)row * cols + col`, or size_t")))
                break
    return findings


# Bits of significand of each float type an addition can be done in (tf32: a dot whose fp32 inputs
# are rounded to tf32's 10-bit fraction).
_PRECISION = {"f64": 53, "f32": 24, "tf32": 11, "f16": 11, "bf16": 8}


def accumulates(rel: Relations, buffer: str) -> set[str]:
    """The float types the values stored into `buffer` were summed in, through shared and local
    buffers (a shared-memory tree reduction sums in the shared array's type)."""
    return {a.data for acc in rel.writes_reaching(buffer) if acc.op.accumulation is not None
            for a in acc.op.accumulation.data}


def _accumulation_types(src: Relations, tgt: Relations, correspondence: Mapping[str, str],
                        target: Side, reference: Side | None = None) -> list[Finding]:
    """LC305: the target sums an output in a narrower float type than the source does. A PyTorch
    reference sums in its output's type, and never in less than f32 (torch accumulates fp16 and
    bf16 reductions in float)."""
    findings = []
    for t_out, s_out in correspondence.items():
        if target.roles.get(t_out) not in ("out", "inout"):
            continue
        if reference is not None:
            param = reference.entry.param(s_out)
            own = str(param.element_type) if param is not None else "f32"
            s_types = {own if _PRECISION.get(own, 0) > _PRECISION["f32"] else "f32"}
        else:
            s_types = {t for t in accumulates(src, s_out) if t in _PRECISION}
        t_types = {t for t in accumulates(tgt, t_out) if t in _PRECISION}
        if not s_types or not t_types:
            continue
        s_low = min(s_types, key=_PRECISION.get)
        t_low = min(t_types, key=_PRECISION.get)
        if _PRECISION[t_low] >= _PRECISION[s_low]:
            continue
        findings.append(Finding(
            "LC305", f"the target sums `{t_out}` in {t_low} ({_PRECISION[t_low]}-bit significand); the "
            f"source sums `{s_out}` in {s_low} ({_PRECISION[s_low]} bits)",
            side="target", buffer=t_out, location=_first_location(tgt, t_out),
            other_location=_first_location(src, s_out),
            witness={"target_types": sorted(t_types), "source_types": sorted(s_types)},
            hint=("accumulate in fp32: `acc = tl.zeros(..., tl.float32)`, and for fp32 inputs "
                  "`tl.dot(a, b, input_precision=\"ieee\")` (the default rounds them to tf32)")
            if target.entry.language.data == "triton" else "accumulate in float"))
    return findings


def _scalar_or_list(values: list[int]) -> int | list[int]:
    return values[0] if len(values) == 1 else list(values)


class _Inexact(Exception):
    """No exact dependence map: a buffer's value feeds itself across the trips of a loop (an
    accumulator in shared memory), or values moved between lanes in a way no step spells."""


UNKNOWN = object()  # the dependence could not be computed exactly: do not compare it


def dependence(rel: Relations, out: str, inp: str):
    """{ out[e] -> inp[j] }: the input elements each output element's stored value is computed from,
    through shared and local buffers (each read of one takes what the last write before it, in
    program order, stored there: a tree reduction composes step by step) and through moves between
    the lanes of a warp (shuffles); None when no output value reads `inp`; UNKNOWN when that cannot
    be known exactly."""
    result = None
    try:
        for w in rel.of(out, "write"):
            reach = _reach(rel, w, inp, frozenset())
            if reach is not None:
                dep = w.relation.reverse().apply_range(reach)
                result = dep if result is None else result.union(dep)
    except _Inexact as err:
        rel.memo[("inexact", out, inp)] = str(err)
        return UNKNOWN
    return result.coalesce() if result is not None else None


def _reach(rel: Relations, acc: Access, inp: str, active: frozenset[str]) -> isl.Map | None:
    """{ work item of `acc` -> inp[j] }: what its stored value is computed from, transitively."""
    key = ("reach", acc.kernel, acc.id, inp)
    if key in rel.memo:
        return rel.memo[key]
    if acc.id in active:
        raise _Inexact(f"a value stored in `{acc.buffer}` ({acc.location}) feeds itself across the trips of a loop")
    active = active | {acc.id}
    if MOVED in (src.data for src in acc.op.sources.data):
        raise _Inexact(f"the value stored at {acc.location} moved between lanes in a way lowercheck does not "
                       "follow (tl.reshape, tl.trans of an opaque tile, a reversed scan or a histogram, a shuffle whose "
                       "offset varies)")
    result = None
    reads = {r.id: r for r in rel.accesses if r.kernel == acc.kernel and r.kind in ("read", "atomic")}
    for source in _same_values_merged(rel, [s.data for s in acc.op.sources.data], reads):
        base, steps = parse_source(source)
        read = reads.get(base)
        if read is None:
            continue
        items = _aligned_items(read.relation, acc.relation, steps)
        if items is None:
            continue
        if read.buffer == inp:
            part = items.apply_range(read.relation)
        elif read.space != "global":  # through a shared/local buffer: who wrote what was read
            if any(i.buffer == read.buffer and i.kind != "read" for i in rel.indirect):
                raise _Inexact(f"`{read.buffer}` is written at indices computed from loaded data")
            if not _feeds(rel, read.buffer, acc.kernel, inp):
                continue  # nothing stored there comes from `inp`: its cycles do not matter here
            part = None
            for writer, flow in _last_writers(rel, read):
                inner = _reach(rel, writer, inp, active)
                if inner is not None:
                    step = items.apply_range(flow).apply_range(inner)
                    part = step if part is None else part.union(step)
        else:
            continue
        if part is not None:
            result = part if result is None else result.union(part)
    if result is not None:
        # A butterfly's rounds double the pieces of a plain union; merged each step they stay few.
        result = result.coalesce()
        if result.n_basic_map() > _MAX_PIECES:
            raise _Inexact(f"the value stored at {acc.location} is computed from {result.n_basic_map()} "
                           f"disjoint pieces of `{inp}` (more than {_MAX_PIECES})")
    rel.memo[key] = result
    return result


_MAX_PIECES = 256  # pieces of one dependence map past which comparing it would cost more than it tells


def _same_values_merged(rel: Relations, found: list[str], reads: Mapping[str, Access]) -> list[str]:
    """A write's sources with reads that take the same value named by one of them, then merged
    (`sources.merged`): `v[0] += __shfl_xor_sync(m, v[0], o)` reads `v[0]` twice, and the pair
    {r, r'~x o} is the one span step r~X o only once r' is known to be r. Unmerged, each round of a
    butterfly doubles the pieces of the dependence map."""
    bases = {parse_source(f)[0] for f in found}
    if len(bases) < 2:
        return found
    canonical: dict[str, str] = {}
    kept: list[Access] = []
    for base in sorted(bases):
        read = reads.get(base)
        if read is None:
            continue
        same = next((k for k in kept if _same_value(rel, k, read)), None)
        if same is None:
            kept.append(read)
        else:
            canonical[base] = same.id
    if not canonical:
        return found
    renamed = set()
    for f in found:
        base = parse_source(f)[0]
        renamed.add(canonical.get(base, base) + f[len(base):])
    return sorted(sources.merged(frozenset(renamed)))


def _same_value(rel: Relations, a: Access, b: Access) -> bool:
    """Whether reads `a` and `b` take the same value in each work item: the same elements of the
    same buffer, over the same work items, from the same writes (an input no launch writes has one
    value)."""
    if a.buffer != b.buffer or a.kernel != b.kernel or a.relation.dim(isl.dim_type.in_) != b.relation.dim(isl.dim_type.in_):
        return False
    name = a.relation.get_tuple_name(isl.dim_type.in_)
    if not a.relation.is_equal(b.relation.set_tuple_name(isl.dim_type.in_, name)):
        return False
    if a.space == "global":
        return not rel.of(a.buffer, "write", "atomic")
    mine, theirs = _last_writers(rel, a), _last_writers(rel, b)
    if len(mine) != len(theirs):
        return False
    flows = {w.id: f for w, f in mine}
    for writer, flow in theirs:
        other = flows.get(writer.id)
        if other is None or not other.is_equal(flow.set_tuple_name(isl.dim_type.in_, name)):
            return False
    return True


def _last_writers(rel: Relations, read: Access) -> list[tuple[Access, isl.Map]]:
    """For a read of a shared/local buffer, each write of that buffer (in the same launch) with
    { read item -> write item }: the write whose value the read takes, the last one before it in
    program order (isl's dataflow analysis over `_schedule`). A write under a condition on loaded
    data is a may-source: the read may take its value or an earlier one's."""
    key = ("writers", read.kernel, read.id)
    if key in rel.memo:
        return rel.memo[key]
    writers = [w for w in rel.of(read.buffer, "write", "atomic") if w.kernel == read.kernel]
    found: list[tuple[Access, isl.Map]] = []
    if writers:
        must = [w for w in writers if w.data_condition is None]
        may = [w for w in writers if w.data_condition is not None]
        info = isl.UnionAccessInfo.from_sink(isl.UnionMap.from_map(read.relation))
        if must:
            info = info.set_must_source(_union(w.relation for w in must))
        if may:
            info = info.set_may_source(_union(w.relation for w in may))
        info = info.set_schedule_map(_schedule(rel, read.kernel))
        flow = info.compute_flow().get_may_dependence()  # { write item -> read item }, must ones included
        by_name = {f"K{w.kernel}_{w.id}": w for w in writers}
        maps: list[isl.Map] = []
        flow.foreach_map(maps.append)
        for m in maps:
            writer = by_name.get(m.get_tuple_name(isl.dim_type.in_))
            if writer is not None and not m.is_empty():
                found.append((writer, m.reverse()))
    rel.memo[key] = found
    return found


def _union(maps) -> isl.UnionMap:
    result = None
    for m in maps:
        result = isl.UnionMap.from_map(m) if result is None else result.union(isl.UnionMap.from_map(m))
    return result


def _schedule(rel: Relations, kernel: int) -> isl.UnionMap:
    """When each work item of each access of launch `kernel` happens: its block, then, in program
    order, for each loop around it (outermost first) the loop's position and its trip, then its own
    position (`access` ops are in program order; a loop's accesses share its SEQ variable). The
    threads of a block are not ordered: between barriers they run at once, and a read of what
    another thread wrote in the same interval is a race, which LC207 reports."""
    key = ("schedule", kernel)
    if key in rel.memo:
        return rel.memo[key]
    mine = [a for a in rel.accesses if a.kernel == kernel]
    dims = {a.id: [a.relation.get_dim_name(isl.dim_type.in_, i) for i in range(a.relation.dim(isl.dim_type.in_))]
            for a in mine}
    first: dict[str, int] = {}
    for pos, a in enumerate(mine):
        for d in dims[a.id]:
            if d.startswith("SEQ"):
                first.setdefault(d, pos)
    depth = max((sum(d.startswith("SEQ") for d in ds) for ds in dims.values()), default=0)
    result = None
    for pos, a in enumerate(mine):
        loops = sorted((d for d in dims[a.id] if d.startswith("SEQ")), key=lambda d: (first[d], d))
        time = [d for d in dims[a.id][:3]]
        for loop in loops:
            time += [str(first[loop]), loop]
        time += [str(pos)] + ["0"] * (2 * (depth - len(loops)))
        params = [a.relation.get_dim_name(isl.dim_type.param, i) for i in range(a.relation.dim(isl.dim_type.param))]
        text = (f"[{', '.join(params)}] -> {{ K{kernel}_{a.id}[{', '.join(dims[a.id])}] -> "
                f"[{', '.join(time)}] }}")
        one = isl.UnionMap.from_map(isl.Map(text))
        result = one if result is None else result.union(one)
    rel.memo[key] = result
    return result


def _feeds(rel: Relations, buffer: str, kernel: int, inp: str) -> bool:
    """Whether any value stored into the shared/local `buffer` (in `kernel`) is computed, through any
    chain of shared/local buffers, from a read of `inp`; cycles (a tree reduction) are followed once."""
    reads = {r.id: r for r in rel.accesses if r.kernel == kernel and r.kind in ("read", "atomic")}
    seen, todo = {buffer}, [buffer]
    while todo:
        current = todo.pop()
        for writer in rel.of(current, "write", "atomic"):
            if writer.kernel != kernel:
                continue
            for source in (s.data for s in writer.op.sources.data):
                read = reads.get(parse_source(source)[0])
                if read is None:
                    continue
                if read.buffer == inp:
                    return True
                if read.space != "global" and read.buffer not in seen:
                    seen.add(read.buffer)
                    todo.append(read.buffer)
    return False


def parse_source(source: str) -> tuple[str, list[tuple[str, Any]]]:
    """A write's source: its read id and steps (`lowercheck.dialects.sources`)."""
    return sources.parse(source)


def _aligned_items(r: isl.Map, w: isl.Map, steps: list[tuple[str, Any]]) -> isl.Map | None:
    """{ work item of `w` -> work item of `r` }: the read items the write's value comes from. After
    the source's steps (reductions project a lane out, renames say which write lane a read lane is,
    lane steps relate the write's lane to the read's by a move between the lanes of a warp), each
    read variable equal to the write variable of the same name; read variables the write lacks (a
    loop trip, a reduced lane) range freely: the item reads for all of them."""
    names = [r.get_dim_name(isl.dim_type.in_, i) for i in range(r.dim(isl.dim_type.in_))]
    current: list[tuple[str | None, tuple]] = [(n, ()) for n in names]
    for kind, arg in steps:
        if kind == "reduce":
            current = [(None, ()) if c == arg else (c, chain) for c, chain in current]
        elif kind == "rename":
            current = [(arg.get(c, c), chain) if c is not None else (None, ()) for c, chain in current]
        else:
            current = [(c, chain + (arg,)) if c == arg.lane else (c, chain) for c, chain in current]
    names_w = [w.get_dim_name(isl.dim_type.in_, i) for i in range(w.dim(isl.dim_type.in_))]
    params = [r.get_dim_name(isl.dim_type.param, i) for i in range(r.dim(isl.dim_type.param))]
    w_params = [w.get_dim_name(isl.dim_type.param, i) for i in range(w.dim(isl.dim_type.param))]
    if params != w_params:
        return None
    equal, hidden = [], []
    for i, (c, chain) in enumerate(current):
        if c is None or c not in names_w:
            continue
        outer = c
        for k, step in enumerate(reversed(chain)):  # the last step is the one nearest the write
            inner = f"r_{i}" if k == len(chain) - 1 else f"t_{i}_{k}"
            if inner != f"r_{i}":
                hidden.append(inner)
            equal.append(f"({step.relation(outer, inner)})")
            outer = inner
        if not chain:
            equal.append(f"r_{i} = {c}")
    body = " and ".join(equal)
    if hidden and body:
        body = f"exists ({', '.join(hidden)}: {body})"
    text = (f"[{', '.join(params)}] -> {{ {w.get_tuple_name(isl.dim_type.in_)}[{', '.join(names_w)}] -> "
            f"{r.get_tuple_name(isl.dim_type.in_)}[{', '.join(f'r_{i}' for i in range(len(names)))}]"
            + (f" : {body}" if body else "") + " }")
    return isl.Map(text).intersect_range(r.domain())

def _geometry(source: Side, target: Side) -> list[Finding]:
    s, t = geometry_text(source.module), geometry_text(target.module)
    if s == t:
        return []
    return [Finding("LC101", f"source launches {s}; target launches {t}", evidence=str(Evidence.MEASURED),
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
