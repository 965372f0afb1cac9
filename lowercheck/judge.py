"""The judge stage of `diff`: which findings decide the verdict.

A diff asks whether the target differs from the source, not whether either is perfect. A fault that
both sides have in the same way is a property the port kept, not a difference it made (both time
out at the same size; both leave the same elements unwritten because both assume multiples of 32).
Such a pair becomes one warning that says "both sides"; the verdict comes from what only one side
does. The rule needs the two faults to be the same, not merely to share a first witness: a port
that leaves more elements unwritten than its source differs from it even where both start at n = 1.

Rules (each a function of its own, applied where the evidence is complete):
- `merge_shared` (per run, in `diff._differential`): both sides failed to run (LC902) on the same
  run, with the same kind of failure: one warning.
- `merge_unwritten` (after the static checks): both sides leave the same set of output elements
  unwritten (LC202: the isl sets equal, for all sizes or at the same sizes): one warning.
- unwritten outputs (LC303, `compare/dynamic.py`): the same elements unwritten on both sides of a
  run: one warning; any element that only one side leaves is an error of that side.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace

from lowercheck.findings import Finding, Severity


def merge_shared(findings: list[Finding], correspondence: Mapping[str, str]) -> list[Finding]:
    """Runs that failed alike on both sides (LC902: the same sizes and kind of failure) merged into
    one "both sides" warning. `correspondence` maps the target's names to the source's."""
    return _merge(findings, "LC902", lambda s, t: _same_failure(s, t, correspondence))


def merge_unwritten(findings: list[Finding], correspondence: Mapping[str, str]) -> list[Finding]:
    """LC202 of the source and of the target merged where the unwritten element sets are equal."""
    return _merge(findings, "LC202", lambda s, t: _same_unwritten(s, t, correspondence))


def _merge(findings: list[Finding], code: str, same: Callable[[Finding, Finding], bool]) -> list[Finding]:
    """Each error of the target with `code` that `same` pairs with an unpaired error of the source
    becomes one warning in the target's place; the source's goes."""
    def errors(side: str) -> list[int]:
        return [i for i, f in enumerate(findings) if f.code == code and f.side == side and f.level == Severity.ERROR]

    sources, merged, used = errors("source"), {}, set()
    for t in errors("target"):
        s = next((s for s in sources if s not in used and same(findings[s], findings[t])), None)
        if s is not None:
            used.add(s)
            merged[t] = _both(findings[s], findings[t])
    return [merged.get(i, f) for i, f in enumerate(findings) if i not in used]


def _same_failure(s: Finding, t: Finding, correspondence: Mapping[str, str]) -> bool:
    if (s.buffer or t.buffer) and correspondence.get(t.buffer or "", t.buffer) != s.buffer:
        return False
    return (s.witness.get("sizes") == t.witness.get("sizes")
            and s.witness.get("error_kind") == t.witness.get("error_kind"))


def _both(s: Finding, t: Finding) -> Finding:
    return replace(t, side=None, severity=Severity.WARNING, other_location=s.location,
                   message=f"both sides: {t.message} (the source too: {s.message})",
                   witness={**t.witness, "source": s.witness, "both_sides": True},
                   hint="the port keeps a property of the source; if the task's sizes include this witness, "
                        "both need the fix")


def _same_unwritten(s: Finding, t: Finding, correspondence: Mapping[str, str]) -> bool:
    import islpy as isl

    if correspondence.get(t.buffer or "") != s.buffer or s.witness.get("sizes") != t.witness.get("sizes"):
        return False
    texts = [f.witness.get("unwritten_set") for f in (s, t)]
    if not all(texts):
        return False
    try:
        a, b = (isl.UnionSet(_renamed(text, buffer)) for text, buffer in zip(texts, (s.buffer, t.buffer)))
        return bool(a.is_equal(b))
    except isl.Error:
        return False


def _renamed(text: str, buffer: str | None) -> str:
    """The set with its buffer's tuple name made common (`out[i0]` and `return0[i0]` -> `elements[i0]`)."""
    return re.sub(rf"(?<![\w]){re.escape(buffer or '')}\[", "elements[", text) if buffer else text
