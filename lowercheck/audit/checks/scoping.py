"""Scoping: is the task specified tightly enough to have one clear solution?"""

from __future__ import annotations

from lowercheck.audit.checker import judge
from lowercheck.audit.checks import Context, check, needs_deterministic, needs_runs
from lowercheck.compare.tolerance import dtype_name
from lowercheck.findings import Evidence, Finding

READINGS = {
    "reading-variance": ("the variance (or standard deviation) with and without Bessel's correction",
                         "say which (correction=0 or 1) and use a reduction length where they differ (N small)"),
    "reading-division": ("floor and truncating division", "say which rounding, and draw negative operands"),
}


@check("LC631", "scoping", "output dtype and layout unchecked")
def output_unchecked(context: Context) -> list[Finding]:
    correctness = context.task.harness.correctness
    outputs = context.probe.meta.get("outputs") or []
    problems, keys = [], []
    if not correctness.check_dtype:
        problems.append("dtype (a float32 output for a bf16 task, twice the bytes, passes)")
        keys.append("check_dtype")
    if not correctness.check_layout and (not outputs or any(sum(d > 1 for d in o["shape"]) >= 2 for o in outputs)):
        problems.append("layout (a transposed view or other strides pass)")
        keys.append("check_layout")
    if not problems:
        return []
    return [Finding("LC631", "the checker does not compare the output's " + " nor its ".join(problems),
                    location=context.task.location(keys[0]), witness={"unchecked": keys},
                    hint="compare out.dtype and out.stride() (or is_contiguous()) with the reference's",
                    evidence=Evidence.HARNESS)]


@check("LC632", "scoping", "one fixed shape")
def fixed_shape(context: Context) -> list[Finding]:
    shapes = context.probe.facts.get("trial_shapes")
    if not shapes or "shapes_vary" not in context.probe.facts:
        needs_runs(context)
        return []
    if context.probe.facts["shapes_vary"]:  # drawn per seed (a fixed seed repeating them is LC612's)
        return []
    return [Finding("LC632", f"get_inputs() returns the same shapes {shapes[0]} whatever the seed"
                             ": a solution hard-coding these sizes (grid, strides, loop bounds) passes",
                    location=context.task.inputs_location(), witness={"shapes": shapes[0]},
                    hint="draw the shapes per trial (among them sizes that are no multiple of a tile)",
                    evidence=Evidence.OBSERVED)]


@check("LC633", "scoping", "in-place updates of the inputs")
def inplace_updates(context: Context) -> list[Finding]:
    correctness = context.task.harness.correctness
    mutated = context.probe.facts.get("mutated_inputs") or []
    findings = []
    if not correctness.check_inputs:
        what = "does not give each side its own copy of the inputs nor" if not correctness.clone_inputs else "does not"
        findings.append(Finding("LC633", f"the checker {what} check that the solution left its inputs unchanged: a "
                                         "solution that overwrites them (or returns one updated in place) passes",
                                location=context.task.location("check_inputs"),
                                witness={"clone_inputs": correctness.clone_inputs, "check_inputs": False},
                                hint="clone the inputs for each side and compare them with a saved copy after the call",
                                evidence=Evidence.HARNESS))
    if mutated:
        findings.append(Finding("LC633", f"the reference itself writes its input(s) {mutated}: whether a solution may "
                                         "update them in place is left open",
                                location=context.task.location("reference"), witness={"inputs": mutated},
                                hint="return a new tensor, or say that the update in place is the task",
                                evidence=Evidence.OBSERVED))
    return findings


@check("LC634", "scoping", "unseeded weights")
def unseeded_weights(context: Context) -> list[Finding]:
    correctness = context.task.harness.correctness
    if correctness.seed_init:
        return []
    random = context.probe.facts.get("init_random")
    if random is None:
        needs_runs(context)
        return []
    what = [w for w, hit in (("the Model's parameters", random.get("weights")),
                             ("get_init_inputs()", random.get("init_inputs"))) if hit]
    if not what:
        return []
    return [Finding("LC634", f"{' and '.join(what)} differ from one construction to the next and the harness does not "
                             "seed before building each side: the reference and the solution get different weights",
                    location=context.task.location("seed_init"), witness={"random": what},
                    hint="seed before each construction (seed_init), or pass the weights through get_init_inputs",
                    evidence=Evidence.OBSERVED)]


@check("LC635", "scoping", "two readings both pass")
def ambiguous_readings(context: Context) -> list[Finding]:
    needs_deterministic(context)
    references = [t.reference for t in context.probe.trials]
    findings = []
    for name, (text, fix) in READINGS.items():
        outs = context.probe.variant(name)
        if outs is None:
            continue
        if all(o.tobytes() == r.tobytes() for os_, rs in zip(outs, references) for o, r in zip(os_, rs)):
            continue
        verdict = judge(outs, references, context.task.harness.correctness, [dtype_name(r) for r in references[0]])
        if verdict.passed:
            findings.append(Finding("LC635", f"the checker accepts both readings of {text} ({verdict.margin()}): the "
                                             "task does not say which it wants",
                                    location=context.task.location("reference"), witness={"reading": name},
                                    hint=fix, evidence=Evidence.OBSERVED))
    return findings
