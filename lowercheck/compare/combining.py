"""LC204's operators: by what each output combines the values of several work items, lanes or trips.

Two outputs can read the same input elements and still differ: a row sum against a row max. The
`extract-accesses` pass names, on each write, the operators by which its stored value combined
values (`access.access`'s `combined`: sum, max, min, product, or `?`); here they are collected per
output through shared and local buffers (a shared-memory tree's `s[tid] += s[tid + stride]` names
the sum its last store passes on) and compared between the two sides.

The comparison claims a difference only where it cannot be a blind spot of the extraction: both
sides name at least one operator, neither names `?`, and they have none in common (a row sum
against a row max). A softmax whose port forgot the max ({"sum"} against {"max", "sum"}) is left
to the runs, which see its values.
"""

from __future__ import annotations

from collections.abc import Mapping

from lowercheck.compare.accesses import Relations
from lowercheck.findings import Finding

UNNAMED = "?"  # a combination the pass could not name (an online softmax's rescaled sum)


def combined_by(rel: Relations, buffer: str) -> frozenset[str]:
    """The operators that combined the values stored into `buffer`, through shared and local
    buffers: each write's own, and those of the writes its reads of such buffers take from."""
    key = ("combined", buffer)
    if key not in rel.memo:
        rel.memo[key] = frozenset(c.data for acc in rel.writes_reaching(buffer) if acc.op.combined is not None
                                  for c in acc.op.combined.data)
    return rel.memo[key]


def operator_words(operators: frozenset[str]) -> list[str]:
    """Operators as a sentence says them (UNNAMED: "an operator lowercheck does not name")."""
    return sorted(o if o != UNNAMED else "an operator lowercheck does not name" for o in operators)


def compare_operators(src: Relations, tgt: Relations, correspondence: Mapping[str, str],
                      outputs: Mapping[str, str], source_location, target_location) -> list[Finding]:
    """LC204 for each output (`outputs`: target buffer -> how its dependence was judged) whose two
    sides combine their values by disjoint operators. `source_location`/`target_location` give the
    first access of a buffer on each side (the finding's location and the other side's)."""
    findings: list[Finding] = []
    for t_out, status in outputs.items():
        s_out = correspondence.get(t_out)
        if s_out is None or status == "left to the runs":
            continue
        mine, theirs = combined_by(tgt, t_out), combined_by(src, s_out)
        if not mine or not theirs or UNNAMED in mine | theirs or mine & theirs:
            continue
        findings.append(Finding(
            "LC204", f"output `{t_out}` combines its inputs by {' and '.join(operator_words(mine))} on the "
                     f"target; the source's `{s_out}` by {' and '.join(operator_words(theirs))}",
            side="target", buffer=t_out, location=target_location(tgt, t_out),
            other_location=source_location(src, s_out),
            witness={"sizes": dict(src.sizes or {}), "target_operators": sorted(mine),
                     "source_operators": sorted(theirs)},
            hint=f"reduce with the source's operator ({' and '.join(operator_words(theirs))}): the same elements combined by "
                 "another operator give other values"))
    return findings
