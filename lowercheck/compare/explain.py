"""Access relations in words, for findings and for `lowercheck lower --emit access`.

`describe(access)` says which elements one work unit (a Triton program, a CUDA block) touches, as
isl computes it for every size at once:

    program p writes out[1024p .. 1024p + 1023] for p >= 0 and 1024p <= -1024 + n

Each buffer dimension is described by its smallest and largest coordinate per work unit (the
lanes, threads and loop trips of the unit range over it); a dimension whose bounds are piecewise
(a tail the mask cuts short) is shown with the first piece and "...".
"""

from __future__ import annotations

import re

import islpy as isl

from lowercheck.compare.accesses import Access, Relations
from lowercheck.compare.combining import operator_words

_VERBS = {"read": "reads", "write": "writes", "atomic": "updates"}


def describe(acc: Access, triton: bool) -> str | None:
    """One sentence for `acc`; None when isl cannot give per-unit bounds."""
    unit_map = _per_unit(acc.relation)
    grid_names = [unit_map.get_dim_name(isl.dim_type.in_, i) for i in range(unit_map.dim(isl.dim_type.in_))]
    names = _unit_names(grid_names)
    ranges = []
    domain_text = ""
    for j in range(unit_map.dim(isl.dim_type.out)):
        name = unit_map.get_dim_name(isl.dim_type.out, j) or ""
        if name.startswith("o_"):
            continue
        one = unit_map.project_out(isl.dim_type.out, j + 1, unit_map.dim(isl.dim_type.out) - j - 1) \
            .project_out(isl.dim_type.out, 0, j)
        lo, lo_domain = _first_piece(one.lexmin_pw_multi_aff())
        hi, _ = _first_piece(one.lexmax_pw_multi_aff())
        if lo is None or hi is None:
            return None
        ranges.append(lo if lo == hi else f"{lo} .. {hi}")
        domain_text = domain_text or lo_domain
    if not ranges:
        return None
    unit = "program" if triton else "block"
    who = f"{unit} {', '.join(names.values())}" if names else f"the single {unit}"
    text = f"{who} {_VERBS.get(acc.kind, 'touches')} {acc.buffer}[{', '.join(ranges)}]"
    if domain_text:
        text += f" for {domain_text}"
    return _rename(text, names)


def describe_set(elements: isl.Set) -> str | None:
    """A set of buffer elements in words, for all sizes: `out[n - (n) mod 1024 .. -1 + n] when n > 0
    and ...` (each dimension's smallest and largest coordinate as functions of the sizes)."""
    ranges = []
    condition = ""
    for j in range(elements.dim(isl.dim_type.set)):
        name = elements.get_dim_name(isl.dim_type.set, j) or ""
        if name.startswith("o_"):
            continue
        lo, lo_domain = _first_piece_pw(elements.dim_min(j))
        hi, _ = _first_piece_pw(elements.dim_max(j))
        if lo is None or hi is None:
            return None
        ranges.append(lo if lo == hi else f"{lo} .. {hi}")
        condition = condition or lo_domain
    if not ranges:
        return None
    text = f"{elements.get_tuple_name()}[{', '.join(ranges)}]"
    return text + (f" when {condition}" if condition else "")


def _first_piece_pw(pw: isl.PwAff) -> tuple[str | None, str]:
    pieces: list[tuple[isl.Set, isl.Aff]] = []
    pw.foreach_piece(lambda s, a: pieces.append((s, a)))
    if len(pieces) != 1:
        return None, ""
    domain, aff = pieces[0]
    expr = _between(str(aff), "{ [(", ")] }") or _between(str(aff), "{ [", "] }")
    return (expr.strip() if expr else None), _constraints(domain)


def relation_text(acc: Access) -> str:
    """The relation in isl notation (work item -> element)."""
    return str(acc.relation)


def describe_all(rel: Relations, triton: bool) -> list[str]:
    lines = []
    for acc in rel.accesses:
        words = describe(acc, triton)
        where = f" ({acc.location})" if acc.location else ""
        lines.append(f"{acc.id} {acc.kind} {acc.buffer}{where}: {words or 'no per-unit bounds'}")
        lines.append(f"  {relation_text(acc)}")
    return lines


def describe_dependence(dep: isl.Map) -> str:
    """A dependence map { out[i..] -> x[j..] } in words: each input coordinate's smallest and largest
    value per output element (one expression where the element reads one value of it); "part of"
    when not every element between them is read (a stride, a gap), "within" when isl cannot tell:
    `return0[i0, i1] reads x[i0, 0 .. -1 + cols] for ...`."""
    out, inp = dep.get_tuple_name(isl.dim_type.in_), dep.get_tuple_name(isl.dim_type.out)
    names = [f"i{k}" for k in range(dep.dim(isl.dim_type.in_))]
    pieces: list[isl.BasicMap] = []
    dep.foreach_basic_map(pieces.append)
    divs = max((b.dim(isl.dim_type.div) for b in pieces), default=0)
    if divs > _WORDS_DIVS or len(pieces) > _WORDS_PIECES:  # lexmin over existentials can take minutes
        return (f"{out}[{', '.join(names)}] reads {inp} through {len(pieces)} piece(s) of up to {divs} existential "
                "variables (not put in words)")
    for k, name in enumerate(names):
        dep = dep.set_dim_name(isl.dim_type.in_, k, name)
    ranges, condition, box, piecewise = [], "", None, False
    for j in range(dep.dim(isl.dim_type.out)):
        one = dep.project_out(isl.dim_type.out, j + 1, dep.dim(isl.dim_type.out) - j - 1) \
            .project_out(isl.dim_type.out, 0, j)
        lo_pma, hi_pma = one.lexmin_pw_multi_aff(), one.lexmax_pw_multi_aff()
        lo, lo_domain = _first_piece(lo_pma)
        hi, _ = _first_piece(hi_pma)
        if lo is None or hi is None:
            return f"{out}[{', '.join(names)}] reads {inp}: {dep}"
        piecewise = piecewise or lo.endswith(" ...") or hi.endswith(" ...")
        lo, hi = lo.removesuffix(" ..."), hi.removesuffix(" ...")
        ranges.append(lo if one.is_single_valued() else f"{lo} .. {hi}")
        condition = condition or lo_domain
        space = one.get_space().range()
        between = isl.Map.from_pw_multi_aff(lo_pma).apply_range(isl.Map.lex_le(space)).intersect(
            isl.Map.from_pw_multi_aff(hi_pma).apply_range(isl.Map.lex_ge(space)))
        box = between if box is None else box.flat_range_product(between)
    try:
        box = box.set_tuple_name(isl.dim_type.out, inp)
        qualifier = "" if dep.is_equal(box.intersect_domain(dep.domain())) else "part of "
    except isl.Error:
        qualifier = "within "
    text = f"{out}[{', '.join(names)}] reads {qualifier}{inp}[{', '.join(ranges)}]"
    if piecewise:  # the bounds differ in another piece (a tail a mask cuts short): the interior one is shown
        text += " (interior piece)"
    return text + (f" for {condition}" if condition else "")


def dependence_sentence(dep: isl.Map, operators: frozenset[str]) -> str:
    """`describe_dependence`, and the operators that combined the output (`combining.combined_by`)."""
    by = f"; combined by {' and '.join(operator_words(operators))}" if operators else ""
    return describe_dependence(dep) + by


# Past these a dependence map is not put in words: isl's lexmin over a few pieces of several
# existential variables each (a layer norm's flat rows) took a minute, and its C code sees no alarm.
_WORDS_DIVS = 1  # existential variables per piece
_WORDS_PIECES = 4


def _per_unit(relation: isl.Map) -> isl.Map:
    """The relation from work units (GRID dims that take more than one value) to elements."""
    m = relation
    for i in reversed(range(m.dim(isl.dim_type.in_))):
        if not (m.get_dim_name(isl.dim_type.in_, i) or "").startswith("GRID"):
            m = m.project_out(isl.dim_type.in_, i, 1)
    for i in reversed(range(m.dim(isl.dim_type.in_))):
        values = m.domain().project_out(isl.dim_type.set, i + 1, m.dim(isl.dim_type.in_) - i - 1) \
            .project_out(isl.dim_type.set, 0, i)
        if values.params().is_empty() or values.is_singleton():
            m = m.project_out(isl.dim_type.in_, i, 1)
    return m


def _unit_names(grid_names: list[str]) -> dict[str, str]:
    if len(grid_names) == 1:
        return {grid_names[0]: "p"}
    return {g: f"p{g[len('GRID'):]}" for g in grid_names}


def _first_piece(pma: isl.PwMultiAff) -> tuple[str | None, str]:
    pieces: list[tuple[isl.Set, isl.MultiAff]] = []
    pma.foreach_piece(lambda s, a: pieces.append((s, a)))
    if not pieces:
        return None, ""
    params = [pma.get_dim_name(isl.dim_type.param, i) for i in range(pma.dim(isl.dim_type.param))]
    texts = []
    for domain, aff in pieces:
        expr = _between(str(aff.get_at(0)), "-> [(", ")]") or _between(str(aff.get_at(0)), "-> [", "]")
        if expr is None:
            return None, ""
        texts.append((sum(bool(re.search(rf"\b{p}\b", expr)) for p in params), expr, domain))
    # The interior piece (a whole tile: no size in its bounds) rather than the tail a mask cuts short.
    _, expr, domain = min(texts, key=lambda t: t[0])
    suffix = " ..." if len(pieces) > 1 else ""
    return expr.strip() + suffix, _constraints(domain)


def _between(text: str, start: str, end: str) -> str | None:
    i = text.find(start)
    j = text.rfind(end)
    if i < 0 or j <= i:
        return None
    return text[i + len(start):j]


def _constraints(s: isl.Set) -> str:
    text = str(s)
    return text.split(":", 1)[1].rstrip(" }").strip() if ":" in text else ""


def _rename(text: str, names: dict[str, str]) -> str:
    for grid, short in names.items():
        text = re.sub(rf"(\d)({grid})\b", rf"\1*{short}", text)  # 1024GRID0 -> 1024*p
        text = re.sub(rf"\b{grid}\b", short, text)
    return text


__all__ = ["dependence_sentence", "describe", "describe_all", "describe_dependence", "describe_set", "relation_text"]
