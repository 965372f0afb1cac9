"""The differential runs of `diff` (its run stage): both sides on the same inputs for every run of
the plan, each side's runs in one sandboxed child, the two sides in parallel, judged against each
other and, where the source has one, the float64 oracle.

- `plan_runs`: every swept size with signed normal inputs, then the other input kinds at the probe
  size; `_within_budget` leaves out a size whose buffers would not fit a run's memory limit (a note).
- `index_inputs`, `index_ranges`: integer inputs the source loads indices from are drawn inside
  what they index in the typical runs.
- `run`: the requests (`arguments`: inputs as recipes the children make, `runners.draws`), the
  oracle's float64 runs, the probe run again for determinism (LC304), the sum-|terms| run where a
  reduction's bound needs it, each run's tolerance (`_policies`: dtype, math functions, K, the
  accumulation type, the inputs' magnitude from the children's facts), the comparison
  (`compare.dynamic`), the trivial-output probes (LC501, `_probes`), and the rules of `judge`
  (both sides failed alike, inputs outside the source's domain).
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from lowercheck import plan
from lowercheck.arguments import TYPICAL_DRAWS, concrete_shape, is_argument, plan_arguments, run_request
from lowercheck.bind import dtype_name
from lowercheck.compare import dynamic, infer, inputs, numerics, operators, probes
from lowercheck.compare.accesses import build
from lowercheck.compare.tolerance import Policy, Tolerance, judge
from lowercheck.errors import SourceLocation, UserError
from lowercheck.findings import Evidence, Finding, Severity
from lowercheck.judge import indexed_by_data, merge_shared, outside_the_domain, outside_the_task, reference_failed
from lowercheck.runners import draws, poison
from lowercheck.runners.base import RunRequest, RunResult

if TYPE_CHECKING:
    from lowercheck.diff import DiffOptions, Report, SideInfo


@dataclass(frozen=True)
class Run:
    """One differential run: a size binding and an input kind; `seed` draws its inputs."""

    sizes: dict[str, int]
    kind: str
    seed: int


FLUSHES_SUBNORMALS = ("pallas",)  # runners that treat denormals as 0 (JAX on the CPU, like a TPU)


def plan_runs(sweep: Sequence[Mapping[str, int]], options: DiffOptions, flushes_subnormals: bool = False,
              probe: Mapping[str, int] | None = None) -> list[Run]:
    """Every swept size with signed normal inputs, then the other input kinds (uniform, large
    magnitudes, small integers, special values) at the probe size (`probe`, else the largest swept
    size of at most PROBE_ELEMENTS elements per size). The baseline mode: one run, the largest size,
    torch.rand."""
    if options.baseline == "kernelbench":
        return [Run(dict(sweep[-1]), "rand01", options.seed)]
    runs = [Run(dict(sizes), "normal", options.seed + index) for index, sizes in enumerate(sweep)]
    probe = probe or probe_sizes(sweep)
    runs += [Run(dict(probe), kind.name, options.seed) for kind in inputs.default_kinds(flushes_subnormals)
             if kind.name != "normal"]
    return runs


PROBE_ELEMENTS = 1100
PROBE_PRIMES = (97, 89, 83, 79, 73, 71)
# Sources that can run in float64 (RunRequest option `shadow_f64`): the oracle.
ORACLES = {"cuda": "the source in float64 (the emulator's shadow mode)",
           "torch": "the reference in float64 (eager PyTorch, float64 inputs and weights)"}
BASELINE_CODES = ("LC301", "LC302", "LC902")


def probe_sizes(sweep: Sequence[Mapping[str, int]]) -> Mapping[str, int]:
    fitting = [b for b in sweep if all(v <= PROBE_ELEMENTS for v in b.values())] or list(sweep)
    return max(fitting, key=lambda b: (min(b.values(), default=0), sum(b.values())))


def index_inputs(report: Report, sides: dict[str, SideInfo]) -> dict[str, list[str]]:
    """The buffers the source indexes with loaded data (by the index inputs), each index input's
    range set for the runs (`_index_ranges`)."""
    source, target = sides["source"], sides["target"]
    indexed = indexed_by_data(source.accesses)
    index_ranges(source, indexed, report.notes)
    if not indexed:  # a PyTorch reference has no accesses: the kernel says what indexes what
        index_ranges(target, indexed_by_data(target.accesses), report.notes)
    return indexed


def run(report: Report, sides: dict[str, SideInfo], correspondence: dict[str, str],
        outputs: list[tuple[str, str]], sweep, options: DiffOptions, indexed: dict[str, list[str]],
        task: list[dict[str, int]] | None = None, task_kind: str = "normal") -> None:
    """Run both sides on the same inputs for every run of the plan and compare (one child process
    per side for all runs, the two sides in parallel); a CUDA source also runs in float64 (the
    emulator's shadow mode): the oracle. `indexed`: the buffers the source indexes with loaded data.
    `task`: a solution module's own sizes, where alone its runs decide the verdict
    (`judge.outside_the_task`), on inputs of `task_kind` (its get_inputs()' kind of floats: "rand01"
    for torch.rand, which the task's sizes also run)."""
    from lowercheck.runners.sandbox import run_isolated_batch

    source, target = sides["source"], sides["target"]
    flushes = any(s.language in FLUSHES_SUBNORMALS for s in (source, target))
    # A solution module's other input kinds and its determinism run go at the cheapest neighbour of
    # the task's sizes (the sweep's second, `plan.solution_sweep`): they only ever give warnings.
    probe = dict(sweep[1]) if task and len(sweep) > 1 else probe_sizes(sweep)
    planned = plan_runs(sweep, options, flushes, probe)
    if task and task_kind != "normal" and options.baseline is None:
        planned.insert(1, Run(dict(task[0]), task_kind, options.seed))
        report.notes.append(f"the task's get_inputs() draws its floats as {task_kind}: the verdict rests on those at "
                            "its sizes; signed normal inputs there show what the solution assumes of them")
    runs = _within_budget(planned, sides, options, report.notes)
    if not runs:
        return
    baseline = options.baseline == "kernelbench"
    if flushes and not baseline:
        report.notes.append("special-value inputs without denormals: a Pallas side runs in JAX, which flushes "
                            "them to zero on the CPU (as a TPU does)")
    batches: dict[str, list[RunRequest]] = {"source": [], "target": []}
    for run in runs:
        args = plan_arguments(sides, correspondence, run.sizes, run.seed, run.kind)
        for name in batches:
            batches[name].append(run_request(sides[name].at(run.sizes), args[name], options, run.sizes))
    oracle_kind = None
    plain = list(batches["source"])
    if source.language in ORACLES and not baseline:
        oracle_kind = ORACLES[source.language]
        batches["source"] += [replace(r, options={**r.options, "shadow_f64": True}) for r in plain]
    # The probe run: run again with other block and atomic orders (LC304), and its source's inputs
    # come back for the trivial-output probes (LC501).
    again = None if baseline else next((i for i, r in enumerate(runs) if r.kind == "normal" and r.sizes == probe), None)
    if again is not None:
        for name in ("source", "target"):
            batches[name].append(replace(batches[name][again], seed=options.seed + 7919))
        batches["source"][again] = replace(plain[again], options={**plain[again].options, draws.KEEP_INPUTS: True})
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        from lowercheck import progress

        futures = {name: pool.submit(run_isolated_batch, batches[name], options.timeout_s, options.memory_mb,
                                     progress.advancer(f"{name} runs", [
                                         plan.sizes_text(r.options.get("sizes") or {}) for r in batches[name]]))
                   for name in batches}
        results = {name: future.result() for name, future in futures.items()}
    policies = _policies(sides, outputs, runs, results["source"][:len(runs)], baseline, task_harness=bool(task))
    # Where an output sums K > 1 terms and the run does not pass without it, the oracle runs again
    # on the inputs' absolute values: the K-aware rule's magnitude, sum |terms| (exact for a sum, a
    # dot, a scan), which only widens that rule's bound.
    terms: dict[int, RunResult] = {}
    compared: dict[int, tuple] = {}  # run index -> its comparison without the sum-|terms| run
    if oracle_kind is not None:
        for index, run in enumerate(runs):
            if (any(p.policy is not None and (p.policy.reduction_length or 1) > 1 for p in policies[index])
                    and results["source"][index].error is None and results["target"][index].error is None):
                compared[index] = dynamic.compare(run.sizes, results["source"][index], results["target"][index],
                                                  policies[index], run.kind, results["source"][len(runs) + index])
        needed = [index for index, (found, _) in compared.items() if _rejected(found)]
        absolute = [replace(plain[i], args=_absolute(plain[i].args), options={**plain[i].options, "shadow_f64": True})
                    for i in needed]
        terms = dict(zip(needed, run_isolated_batch(absolute, options.timeout_s, options.memory_mb) if needed else []))
    if oracle_kind is not None:
        report.notes.append(f"oracle: {oracle_kind}")
    elif not baseline:
        report.notes.append(f"oracle: none (a {source.language} source has no float64 mode yet): the tolerance "
                            "compares the target with the source only")
    if baseline:
        report.notes.append("baseline kernelbench: one size, torch.rand inputs in [0, 1), allclose with "
                            "atol = rtol = 1e-2, no static checks: what a KernelBench-style harness checks")
    seen: set[tuple] = set()
    wrong_on: set[str] = set()  # the input kinds on which a solution's values differ at the task's sizes
    outside: list[str] = []  # the runs whose inputs are outside the source's domain
    for index, run in enumerate(runs):
        sizes = run.sizes
        src_result, tgt_result = results["source"][index], results["target"][index]
        oracle = results["source"][len(runs) + index] if oracle_kind is not None else None
        findings: list[Finding] = []
        for side_name, result, side in (("source", src_result, source), ("target", tgt_result, target)):
            findings += dynamic.failure_findings(side_name, result, sizes, side.path)
            findings += dynamic.oob_findings(side_name, result, sizes)
            findings += dynamic.event_findings(side_name, result, sizes)
        if src_result.error is None and tgt_result.error is None:
            if index in compared and index not in terms:  # already compared, and nothing to add
                more, record = compared[index]
            else:
                more, record = dynamic.compare(sizes, src_result, tgt_result, policies[index], run.kind, oracle,
                                               terms.get(index))
            findings += more
            if index == again:
                findings += _probes(policies[index], src_result, oracle, source.at(sizes), sizes)
        else:
            record = dynamic.RunRecord(dict(sizes), status="failed", inputs=run.kind,
                                       wall_s={"source": src_result.wall_s, "target": tgt_result.wall_s})
        findings = merge_shared(findings, correspondence)  # both sides failed alike: one warning
        if task:
            findings = reference_failed(findings)
            if dict(sizes) in task and any(f.code == "LC301" and f.level == Severity.ERROR for f in findings):
                wrong_on.add(run.kind)
            findings = outside_the_task(findings, sizes, run.kind, task, task_kind)
        if baseline:  # what a KernelBench-style harness sees: values, and a crash; no runner events
            findings = [f for f in findings if f.code in BASELINE_CODES]
        record.oracle = oracle_kind if oracle is not None and oracle.error is None else None
        if record.status == "ok" and (src_result.oob or tgt_result.oob):
            record.status = "out of bounds"
        if indexed and (set_aside := outside_the_domain(findings, src_result.oob, indexed, sizes, run.kind)):
            findings = set_aside
            record.status = "outside the domain"
            outside.append(f"{', '.join(f'{k}={v}' for k, v in sizes.items())} ({run.kind})")
        report.runs.append(record)
        _add_run_findings(report, findings, seen)
    if outside and len(outside) == len(runs):
        report.findings.append(Finding(
            "LC901", "no run's inputs were inside the source's domain: on every one the source indexes a buffer "
                     "out of bounds with an index it loads, so the runs compared nothing",
            evidence=str(Evidence.UNSUPPORTED), witness={"runs": outside},
            hint="give the index inputs' values in the spec (`range = [0, \"ROWS\"]`)"))
    elif outside:
        report.notes.append(f"{len(outside)} of {len(runs)} runs had inputs outside the source's domain (it indexed "
                            f"out of bounds with loaded indices) and judged nothing: {'; '.join(outside)}")
    if target.language == "module":
        _state_alignment(report, results["target"], target.path)
    if task and task_kind != "normal" and "normal" in wrong_on and task_kind not in wrong_on:
        report.findings.append(Finding(
            "LC709", f"the solution is right on the task's own inputs ({inputs.KINDS[task_kind].description}) and "
                     "wrong on signed normal ones at the same sizes: it relies on the distribution the task draws "
                     "(a ReLU that is the identity on non-negative inputs, a closed form of their expectation)",
            side="target", location=SourceLocation(target.path, 1), evidence=str(Evidence.OBSERVED),
            witness={"sizes": dict(task[0]), "task_inputs": task_kind, "wrong_on": "normal"},
            hint="compute the operation for every input it is defined on; a task whose inputs make it trivial is "
                 "LC611's (lowercheck audit)"))
    if again is not None:
        findings = []
        for name, side in (("source", source), ("target", target)):
            first, second = results[name][again], results[name][-1]
            findings += dynamic.determinism_findings(name, first, second, runs[again].sizes)
        if task:
            findings = outside_the_task(findings, runs[again].sizes, runs[again].kind, task, task_kind)
        _add_run_findings(report, findings, seen)




def _state_alignment(report: Report, results: list[RunResult], path: str) -> None:
    """What the module runner did to make the solution's weights the reference's
    (`runners/kernelbench.align_state`), from the first run that says: a note, and LC307 for the
    parameters no rule aligns. Read without trusting it (the child ran user code): lists of names."""
    from lowercheck.runners.module import STATE

    for result in results:
        state = result.facts.get(STATE) if isinstance(result.facts, dict) else None
        if not isinstance(state, dict):
            continue
        names = {key: [str(n) for n in value][:50] for key, value in state.items()
                 if key in ("seeded", "copied", "unaligned", "unused") and isinstance(value, list)}
        shown = lambda key: ", ".join(f"`{n}`" for n in names.get(key, []))  # noqa: E731
        if names.get("seeded") and not names.get("copied"):
            report.notes.append(f"the solution's parameters and buffers ({shown('seeded')}) are the reference's "
                                "after the same seed (KernelBench's rule)")
        if names.get("copied"):
            report.notes.append(f"the solution's {shown('copied')} are copied from the reference's of the same name "
                                "and shape (the same seed did not make them equal; CudaForge's rule)")
        if names.get("unaligned"):
            unused = f"; the reference's {shown('unused')} have no counterpart in the solution" if names.get("unused") else ""
            report.findings.append(Finding(
                "LC307", f"the solution's {shown('unaligned')} match no parameter or buffer of the reference by name and "
                f"shape, so they keep the solution's own values{unused}: the runs compare modules with other weights",
                side="target", location=SourceLocation(path, 1), evidence=str(Evidence.OBSERVED),
                witness={"unaligned": names["unaligned"], "unused": names.get("unused", [])},
                hint="hold the weights as the problem's Model does (the same submodules and attribute names)"))
        return


def index_ranges(side: SideInfo, indexed: Mapping[str, list[str]], notes: list[str]) -> None:
    """Integer inputs a side loads indices from (`ids` of `table[ids[i]]`) are drawn in [0, m) in the
    typical runs (`TYPICAL_DRAWS`), m the smallest extent of the buffer they index, when it has a
    known shape and the spec gives no `range`: valid whichever dimension they index (an embedding's
    rows, a label's column). The other runs keep their draws (negative, large and extreme values: a
    guard such as `ignore_index` or a histogram's range check is exercised); where the source then
    indexes out of bounds, the run judges nothing (`judge.outside_the_domain`)."""
    params = {p.pname: p for p in side.params()}
    for buffer, index_inputs in indexed.items():
        shape = [s.data for s in params[buffer].shape.data] if buffer in params else []
        if not shape:
            continue
        bound = shape[0] if len(shape) == 1 else f"Min({', '.join(shape)})"
        for name in index_inputs:
            if name in side.ranges or name in side.index_ranges or name not in params \
                    or not dtype_name(params[name]).startswith(("int", "uint")):
                continue
            side.index_ranges[name] = (0, bound)
            notes.append(f"`{name}` holds indices into `{buffer}` [{', '.join(shape)}]: the {', '.join(TYPICAL_DRAWS)} "
                         f"runs draw its values in [0, {bound}), the others as any integer input (give `range` "
                         "in the spec for the values its callers pass)")


def _rejected(findings: list[Finding]) -> bool:
    """Does a run's comparison reject values (what a wider K-aware bound could change)?"""
    return any(f.code == "LC301" for f in findings)


def _absolute(args: dict[str, Any]) -> dict[str, Any]:
    """Arguments with every float input drawn as its absolute values (outputs keep their poison)."""
    return {name: replace(value, absolute=True) if isinstance(value, draws.Draw) and value.fill is None else value
            for name, value in args.items()}


_LEVELS = (Severity.ERROR, Severity.INCONCLUSIVE, Severity.WARNING, Severity.INFO)


def _add_run_findings(report: Report, findings: list[Finding], seen: set[tuple]) -> None:
    for f in findings:
        if f.code == "LC201" and any(g.code == "LC201" and g.side == f.side and g.buffer == f.buffer
                                     and _LEVELS.index(g.level) <= _LEVELS.index(f.level) for g in report.findings):
            continue  # already shown (statically, or at a smaller size), at least as severe
        key = (f.code, f.side, f.buffer, f.level)  # a warning never hides an error of the same code
        if key not in seen:
            seen.add(key)
            report.findings.append(replace(f, evidence=f.evidence or str(Evidence.OBSERVED)))


def _policies(sides: dict[str, SideInfo], outputs: list[tuple[str, str]], runs: list[Run],
              results: list[RunResult], baseline: bool, task_harness: bool = False) -> list[list[dynamic.OutputPair]]:
    """Per run, each output's tolerance: from the dtype, both sides' math functions, the reduction
    length K and the source's accumulation type (read from the IR at the run's sizes), and the
    largest input magnitude (the argument of a transcendental; the source's run says it). With
    `task_harness` (a solution module against its problem), also the allclose KernelBench's checker
    uses for the dtype (`TASK_HARNESS`), which decides the verdict where the policy is stricter."""
    source, target = sides["source"], sides["target"]
    src_params = {p.pname: p for p in source.params()}
    inputs_of = [p.pname for p in source.params() if p.kind.data == "buffer" and p.role.data in ("in", "inout")]
    target_inputs = [t for t, role in target.roles.items() if role in ("in", "inout")]
    math = {name: numerics.math_functions(sides[name].at(runs[0].sizes).module) for name in ("source", "target")}
    tiles = tuple(infer.tile_sizes([source.accesses, target.accesses]))
    per_sizes: dict[tuple, tuple] = {}
    out: list[list[dynamic.OutputPair]] = []
    for index, run in enumerate(runs):
        key = tuple(sorted(run.sizes.items()))
        if key not in per_sizes and source.entry_op.scheduled:
            per_sizes[key] = _reduction_facts(source.at(run.sizes), [s for s, _ in outputs], inputs_of, run.sizes)
        elif key not in per_sizes:  # a PyTorch reference: K from its operator graph and from the kernel's
            lengths, _ = _reduction_facts(target.at(run.sizes), [t for _, t in outputs], target_inputs, run.sizes)
            graph = operators.reduction_lengths(source.entry_op, run.sizes)
            per_sizes[key] = ({s: k for s, t in outputs if (k := max(lengths.get(t, 1), graph.get(s, 1))) > 1}, {})
        lengths, accumulations = per_sizes[key]
        magnitude = _input_magnitude(results[index])
        pairs = []
        for s, t in outputs:
            if s not in src_params:
                continue
            dtype = dtype_name(src_params[s])
            shape = concrete_shape(src_params[s], run.sizes)
            if baseline:
                pairs.append(dynamic.OutputPair(s, t, fixed=Tolerance(1e-2, 1e-2, "KernelBench allclose: rtol=atol=1e-2"),
                                                shape=shape, tiles=tiles))
                continue
            policy = Policy(dtype, math["source"], math["target"], source.language, target.language,
                            reduction_length=lengths.get(s), accumulation_dtype=accumulations.get(s),
                            argument_max=magnitude)
            pairs.append(dynamic.OutputPair(s, t, policy=policy, shape=shape, tiles=tiles,
                                            task=_task_tolerance(dtype) if task_harness else None,
                                            shaped=task_harness))
        out.append(pairs)
    return out


# The harness a solution module is judged by: KernelBench's checker (`audit/presets.py`).
TASK_HARNESS = "kernelbench"


def _task_tolerance(dtype: str) -> Tolerance | None:
    from lowercheck.audit.presets import PRESETS

    correctness = PRESETS[TASK_HARNESS].correctness
    if not dtype.startswith(("float", "bfloat")):
        return None
    atol, rtol = correctness.tolerance(dtype)
    return Tolerance(rtol, atol, f"{PRESETS[TASK_HARNESS].name}'s allclose for {dtype}: atol={atol:g}, rtol={rtol:g}")


def _reduction_facts(side: SideInfo, outs: list[str], inputs_of: list[str],
                     sizes: Mapping[str, int]) -> tuple[dict[str, int], dict[str, str]]:
    """K and the accumulation type of each output, from the side's access relations at `sizes`."""
    try:
        rel = build(side.accesses, sizes, list(sizes), side.extents())
    except Exception:  # noqa: BLE001 - the policy then falls back to the per-dtype floor; said in its rule
        return {}, {}
    lengths, accumulations = {}, {}
    for out in outs:
        k = numerics.reduction_length(rel, out, inputs_of)
        if k is not None and k > 1:
            lengths[out] = k
        acc = numerics.accumulation_dtype(rel, out)
        if acc is not None:
            accumulations[out] = acc
    return lengths, accumulations


def _input_magnitude(result: RunResult) -> float | None:
    """The largest finite |input| of a run (its child measured it: `draws.facts`): the argument
    bound of its transcendental functions."""
    found = [entry["max_abs"] for entry in dynamic.input_facts(result).values() if "max_abs" in entry]
    return max(found) if found else None


def _probes(pairs: list[dynamic.OutputPair], source: RunResult, oracle: RunResult | None, side: SideInfo,
            sizes: Mapping[str, int]) -> list[Finding]:
    """LC501: would this tolerance accept a trivial output (zeros, a copy of the first input, the
    output's mean) in place of the source's? The probe run hands its inputs back (`KEEP_INPUTS`)."""
    findings = []
    originals = [np.asarray(source.outputs[p.pname]) for p in side.params()
                 if p.kind.data == "buffer" and p.role.data == "in" and p.pname in source.outputs]
    for pair in pairs:
        if pair.policy is None or pair.source not in source.outputs:
            continue
        ref = np.asarray(source.outputs[pair.source])
        if ref.size <= 1 or poison.mask(ref.ravel()).any():
            continue
        truth = np.asarray(oracle.outputs[pair.source]) if oracle is not None and oracle.error is None \
            and pair.source in oracle.outputs else None
        passed = probes.trivial_outputs(ref.ravel(), [o.ravel() for o in originals],
                                        lambda cand, pair=pair, ref=ref, truth=truth: judge(
                                            ref.ravel(), cand, pair.policy,
                                            truth.ravel() if truth is not None and truth.size == ref.size else None))
        real = [p for p in passed if not p.identical]
        if real:
            findings.append(Finding(
                "LC501", f"the tolerance for `{pair.target}` would accept {real[0].text} in place of the source's "
                f"output for {', '.join(f'{k}={v}' for k, v in sizes.items())}"
                + (f" (also: {', '.join(p.name for p in real[1:])})" if len(real) > 1 else ""),
                buffer=pair.target, witness={"sizes": dict(sizes), "probes": [p.to_json() for p in real]},
                hint="the check cannot tell a real kernel from a trivial one here: use larger sizes, other "
                     "inputs, or a tighter tolerance"))
    return findings


# The share of a run's memory limit that its buffers may take (inputs, their copies, the
# outputs, the float64 oracle's and the runner's own working set take the rest).
BUFFER_SHARE = 0.25


def _within_budget(runs: list[Run], sides: dict[str, SideInfo], options: DiffOptions, notes: list[str]) -> list[Run]:
    """The runs whose buffers fit the memory budget; each size left out is said in a note (the
    static checks still cover it). The run's child makes its inputs under its memory limit
    (`runners.draws`): a run whose buffers cannot fit there would only end out of memory, which
    says nothing of the kernels."""
    budget = int(options.memory_mb * 2**20 * BUFFER_SHARE)
    kept, left_out = [], {}
    for run in runs:
        need = sum(_buffer_bytes(side, run.sizes) for side in sides.values())
        if need <= budget:
            kept.append(run)
        else:
            left_out.setdefault(plan.sizes_text(run.sizes), need)
    for sizes, need in left_out.items():
        notes.append(f"not run at {sizes}: its buffers need {_bytes_text(need)}, over the run budget of "
                     f"{_bytes_text(budget)} ({BUFFER_SHARE:g} of a run's {options.memory_mb} MiB memory limit); the "
                     "static checks cover this size")
    if left_out and not kept:
        notes.append("no run fits the memory budget: the verdict rests on the static checks")
    return kept


def _buffer_bytes(side: SideInfo, sizes: Mapping[str, int]) -> int:
    total = 0
    for param in side.params():
        if param.kind.data != "buffer" or not is_argument(side, param) and param.role.data != "out":
            continue
        try:
            count = int(np.prod(concrete_shape(param, sizes), dtype=object))
        except UserError:
            continue
        width = getattr(param.element_type, "bitwidth", 32) or 32
        total += count * max(1, width // 8)
    return total


def _bytes_text(n: int) -> str:
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} B"


# ---------------------------------------------------------------------------------------------
# Migration checks (a Pallas side on its target platforms: lowercheck/compare/migration.py)
