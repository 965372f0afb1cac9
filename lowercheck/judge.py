"""The judge stage of `diff`: which findings decide the verdict.

A diff asks whether the target differs from the source, not whether either is perfect. A fault that
both sides have in the same way is a property the port kept, not a difference it made (both time
out at the same size; both leave the same elements unwritten because both assume multiples of 32).
Such a pair becomes one warning that says "both sides"; the verdict comes from what only one side
does. The rule needs the two faults to be the same, not merely to share a first witness: a port
that leaves more elements unwritten than its source differs from it even where both start at n = 1.

Rules (each a function of its own, applied where the evidence is complete):
- `merge_shared` (per run, in `differential.run`): both sides failed to run (LC902) on the same
  run, with the same kind of failure: one warning.
- `merge_unwritten` (after the static checks): both sides leave the same set of output elements
  unwritten (LC202: the isl sets equal, for all sizes or at the same sizes): one warning.
- unwritten outputs (LC303, `compare/dynamic.py`): the same elements unwritten on both sides of a
  run: one warning; any element that only one side leaves is an error of that side.
- `outside_the_domain` (per run, in `differential.run`): the source itself went out of bounds on
  a buffer it indexes with loaded data (`table[ids[i]]` with an id past the table): the run's
  inputs are outside the source's domain (what its callers promise), so the run judges neither
  side: one warning, the spec's `range` as the fix.
- `outside_the_task` (per run, in `differential.run`, for a solution module against its problem):
  KernelBench judges a solution at the task's sizes, on inputs like `get_inputs()`'s; a difference
  found only at other sizes or on other inputs (the tails a larger sweep shows, large magnitudes,
  special values) is a warning that says so, never the verdict: a solution right for its task is
  not wrong because it is not general. A run on which the task's reference itself fails
  (`reference_failed`) judges nothing: its inputs are outside what the task accepts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace

from lowercheck.findings import Finding, Severity


def indexed_by_data(accesses) -> dict[str, list[str]]:
    """{buffer: the buffers its indices are loaded from} for an access module's `access.indirect`
    ops (`table` -> [`ids`] for `table[ids[i]]`)."""
    from lowercheck.dialects.access import AccessOp, IndirectOp, KernelOp

    found: dict[str, list[str]] = {}
    if accesses is None:
        return found
    for kernel in (op for op in accesses.ops if isinstance(op, KernelOp)):
        reads = {op.access_id.data: op.buffer.data for op in kernel.body.ops
                 if isinstance(op, AccessOp) and op.space.data == "global"}
        for op in kernel.body.ops:
            if isinstance(op, IndirectOp):
                inputs = found.setdefault(op.buffer.data, [])
                for source in op.sources.data:
                    name = reads.get(source.data.split("@")[0])
                    if name is not None and name not in inputs:
                        inputs.append(name)
    return found


def outside_the_domain(findings: list[Finding], oob_events, indexed: Mapping[str, list[str]],
                       sizes: Mapping[str, int], kind: str) -> list[Finding] | None:
    """The run's findings replaced by one warning when the source went out of bounds on a buffer it
    indexes with loaded data (`indexed`: `indexed_by_data` of the source): None when it did not."""
    event = next((e for e in oob_events if e.buffer in indexed), None)
    if event is None:
        return None
    where = ", ".join(f"{k}={v}" for k, v in sizes.items())
    by = ", ".join(f"`{b}`" for b in indexed[event.buffer]) or "loaded data"
    judged = sorted({f.code for f in findings if f.level == Severity.ERROR and f.side == "target"})
    return [Finding("LC201", f"the source itself indexes `{event.buffer}` out of bounds on the {kind} inputs at "
                             f"{where} (index {event.index}, extent {event.extent}), with an index loaded from {by}: "
                             "these inputs are outside its domain, so this run judges neither side"
                             + (f" (the target's {', '.join(judged)} there set aside)" if judged else ""),
                    severity=Severity.WARNING, side="source", buffer=event.buffer,
                    witness={"sizes": dict(sizes), "inputs": kind, "index": event.index, "extent": event.extent},
                    hint=f"give the values the callers pass: `range = [0, \"ROWS\"]` for {by} in the spec")]


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


def reference_failed(findings: list[Finding]) -> list[Finding]:
    """For a solution module against its problem: the task's PyTorch reference failing on a run
    (LC902 of the source) says the run's inputs are outside what the task accepts, not that the
    solution differs: inconclusive, as a run lowercheck could not make."""
    return [replace(f, severity=Severity.INCONCLUSIVE,
                    message=f"{f.message} (the task's reference itself fails on these inputs: they are outside what the "
                            "task accepts, so this run judges nothing)")
            if f.code == "LC902" and f.side == "source" and f.level == Severity.ERROR else f for f in findings]


def outside_the_task(findings: list[Finding], sizes: Mapping[str, int], kind: str,
                     task: list[dict[str, int]], task_kind: str = "normal") -> list[Finding]:
    """The run's errors (and what it could not run) as warnings when the run is not at the task's
    sizes (`task`) with the typical inputs: the task does not ask for it (the module's docstring)."""
    if dict(sizes) in task and kind == task_kind:
        return findings
    why = ("at sizes the task does not use" if dict(sizes) not in task
           else f"on {kind} inputs, which the task's get_inputs() does not draw")
    return [replace(f, severity=Severity.WARNING, message=f"{f.message} ({why}: the verdict stands on the task's "
                                                          "own sizes and inputs)")
            if f.level in (Severity.ERROR, Severity.INCONCLUSIVE) else f for f in findings]
