"""Observe stage of `diff`: the dependence maps the static checks could not compare (not exact on a
side: a shuffle whose offset varies, a tile reshaped, a buffer that feeds itself), observed in runs
at one small size binding (`lowercheck.compare.provenance`).

Both sides run on the same inputs as the differential runs, then once per group of input elements
replaced. An output whose observed maps agree is "observed" (not "proved"); one where a single
input element changes an output element on one side only, and the sides' values then differ, is
LC204 with that witness. Everything else (a failed run, no floating-point input, no size small
enough) leaves the output "not compared", with a note saying why.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from lowercheck.arguments import concrete_shape, plan_arguments, run_request
from lowercheck.compare import provenance, static
from lowercheck.compare.accesses import location_of
from lowercheck.compare.dynamic import input_facts
from lowercheck.errors import UserError
from lowercheck.findings import Evidence, Finding
from lowercheck.lowering import COMPARED_LINE, OBSERVED_LINE
from lowercheck.runners.draws import Draw

if TYPE_CHECKING:
    from lowercheck.diff import DiffOptions, Report, SideInfo
    from lowercheck.runners.base import RunResult

# The bindings observed: the buffer elements of a side (a run's cost), and the runs
# (the sum of the inputs' extents).
SMALL_ELEMENTS = 4096
MAX_ELEMENTS = 1 << 20
MAX_RUNS = 512  # runs per side: one per slice of each input
MAX_WORK = 1 << 25  # elements times runs
BUDGET_S = 90.0  # the runs' time, estimated from one clean run of each side
MAX_CONFIRMATIONS = 64  # single-element runs per side, over all candidate differences
NOT_COMPARED = "not compared"
LEFT_TO_THE_RUNS = "left to the runs"  # partly proved: the runs bounds-check them, and this stage observes them
OBSERVED = "observed"
AGAIN = 7919  # the clean run again with other block and atomic orders (as the determinism probe)
NOT_OBSERVED = "dependences not compared statically were not observed"  # the notes' words (`observed_text` reads them)


@dataclass
class Perturbation:
    """One run of both sides: the clean inputs, or one input's group of elements replaced."""

    source_input: str | None = None
    target_inputs: tuple[str, ...] = ()
    shape: tuple[int, ...] = ()
    mask: np.ndarray | None = None
    seed: int = 0
    element: int | None = None  # a single-element run: the flat index replaced


@dataclass
class Input:
    source: str
    targets: tuple[str, ...]
    shape: tuple[int, ...]
    groups: list[provenance.Group] = field(default_factory=list)
    first_run: int = 0  # the index of its first group's run in the batch


def observation_sizes(sweep: Sequence[Mapping[str, int]], sides: Mapping[str, SideInfo]) -> dict[str, int] | None:
    """The binding the maps are observed at, of the swept ones within the budget (at most
    MAX_ELEMENTS buffer elements on either side, MAX_RUNS runs, MAX_WORK elements times runs),
    those with every size above 1 first (the most structure): the largest up to SMALL_ELEMENTS,
    else the cheapest."""
    def cost(sizes: Mapping[str, int]) -> tuple[int, int] | None:
        elements, runs = {}, 0
        for name, side in sides.items():
            for param in side.at(sizes).params():
                if param.kind.data != "buffer":
                    continue
                try:
                    shape = concrete_shape(param, sizes)
                except UserError:
                    return None
                elements[name] = elements.get(name, 0) + int(np.prod(shape, dtype=object))
                if name == "source" and param.role.data in ("in", "inout"):
                    runs += provenance.runs_needed([shape])
        return max(elements.values(), default=0), runs

    counted = [(b, c) for b in sweep if (c := cost(b)) is not None and c[0] <= MAX_ELEMENTS and c[1] <= MAX_RUNS
               and c[0] * c[1] <= MAX_WORK]
    if not counted:
        return None
    above_one = [(b, c) for b, c in counted if all(v > 1 for v in b.values())] or counted
    small = [(b, c) for b, c in above_one if c[0] <= SMALL_ELEMENTS]
    chosen = max(small, key=lambda item: item[1][0]) if small else min(above_one, key=lambda item: item[1][0] * item[1][1])
    return dict(chosen[0])


def observe(report: Report, sides: dict[str, SideInfo], correspondence: dict[str, str],
            outputs: list[tuple[str, str]], sweep: Sequence[Mapping[str, int]], options: DiffOptions) -> None:
    """Observe the maps of the outputs `report.dependences` left "not compared"; record the
    outcome there, in the LC204 check's verdict, the notes, the words and the findings."""
    pending = [(s, t) for s, t in outputs if report.dependences.get(t) in (NOT_COMPARED, LEFT_TO_THE_RUNS)]
    if not pending:
        return
    sizes = observation_sizes(sweep, sides)
    if sizes is None:
        report.notes.append(f"{NOT_OBSERVED}: no swept size fits "
                            f"the budget of the runs ({MAX_ELEMENTS} buffer elements a side, {MAX_RUNS} runs, "
                            f"{MAX_WORK:.3g} elements times runs)")
        return
    at = {name: side.at(sizes) for name, side in sides.items()}
    plan = plan_arguments(sides, correspondence, sizes, options.seed, "normal")
    inputs = _inputs(at, correspondence, plan, sizes)
    if not inputs:
        report.notes.append(f"{NOT_OBSERVED}: no floating-point input is passed to both sides")
        return
    runs = [Perturbation(seed=options.seed), Perturbation(seed=options.seed + AGAIN)]
    for item in inputs:
        item.groups = provenance.groups(item.shape)
        item.first_run = len(runs)
        runs += [Perturbation(item.source, item.targets, item.shape, group.mask(item.shape), options.seed)
                 for group in item.groups]
    results = _run(at, plan, runs[:2], options, sizes)
    failed = _failure(results)
    if failed:
        report.notes.append(f"{NOT_OBSERVED}: {failed}")
        return
    # The clean run again (warm) times one run of each side: the rest must fit the budget.
    timed = {id(side_results): side_results for side_results in results.values()}.values()  # an entry run once
    estimate = sum(side_results[1].wall_s for side_results in timed) * (len(runs) - 2)
    if estimate > BUDGET_S:
        report.notes.append(f"{NOT_OBSERVED}: {len(runs) - 2} runs a side "
                            f"at {', '.join(f'{k}={v}' for k, v in sizes.items())} would take about {estimate:.0f} s, "
                            f"over the budget of {BUDGET_S:.0f} s")
        return
    rest = _run(at, plan, runs[2:], options, sizes)
    failed = _failure(rest)
    if failed:
        report.notes.append(f"{NOT_OBSERVED}: {failed}")
        return
    results = {name: results[name] + rest[name] for name in results}
    where = ", ".join(f"{k}={v}" for k, v in sizes.items())
    findings: list[Finding] = []
    observed: list[str] = []
    words: dict[str, list[str]] = {"source": [], "target": []}
    confirm: list[tuple[tuple[str, str], Input, int, str, int]] = []  # (pair, input, output element, reader, run)
    confirmation_runs: list[Perturbation] = []
    noises: dict[tuple[str, str], tuple[provenance.Noise, provenance.Noise]] = {}
    shapes: dict[str, tuple[int, ...]] = {}  # each output's, by the source's name
    s_params = {p.pname: p for p in at["source"].params()}
    for s_out, t_out in pending:
        shape = concrete_shape(s_params[s_out], sizes) if s_out in s_params else None
        arrays = {name: [_output(r, out, shape) for r in results[name]]
                  for name, out in (("source", s_out), ("target", t_out))}
        if shape is None or any(a is None for name in arrays for a in arrays[name]):
            report.notes.append(f"{NOT_OBSERVED} for `{t_out}`: a run did not return it with its shape")
            continue
        noise = (provenance.Noise.of(arrays["source"][0], arrays["source"][1]),
                 provenance.Noise.of(arrays["target"][0], arrays["target"][1]))
        noises[(s_out, t_out)] = noise
        shapes[s_out] = shape
        for item in inputs:
            span = range(item.first_run, item.first_run + len(item.groups))
            sig = (provenance.signature(noise[0], [arrays["source"][i] for i in span]),
                   provenance.signature(noise[1], [arrays["target"][i] for i in span]))
            words["source"].append(provenance.words(sig[0], item.groups, shape, item.shape, s_out, item.source)
                                   + f" (observed at {where})")
            words["target"].append(provenance.words(sig[1], item.groups, shape, item.shape, t_out,
                                                    item.targets[0]) + f" (observed at {where})")
            for output, group, reader in provenance.candidates(*sig, limit=2):
                row = sig[0 if reader == "source" else 1][output]
                possible = item.groups[group].mask(item.shape) & provenance.hull(row, item.groups, item.shape)
                for element in provenance.pick(possible):
                    if len(confirmation_runs) >= MAX_CONFIRMATIONS:
                        break
                    single = np.zeros(item.shape, dtype=bool)
                    single.ravel()[element] = True
                    confirm.append(((s_out, t_out), item, output, reader, len(confirmation_runs)))
                    confirmation_runs.append(Perturbation(item.source, item.targets, item.shape, single, options.seed,
                                                          element=element))
        observed.append(t_out)
    witnesses: dict[str, Finding] = {}
    if confirmation_runs:
        more = _run(at, plan, confirmation_runs, options, sizes)
        failed = _failure(more)
        if failed:
            report.notes.append(f"candidate differences of the observed dependences were not confirmed: {failed}")
        else:
            for (s_out, t_out), item, output, reader, index in confirm:
                if t_out in witnesses:
                    continue
                shape = shapes[s_out]
                src_after = _output(more["source"][index], s_out, shape)
                tgt_after = _output(more["target"][index], t_out, shape)
                if src_after is None or tgt_after is None:
                    continue
                noise = noises[(s_out, t_out)]
                if provenance.confirmed(noise[0], noise[1], src_after, tgt_after, output, reader):
                    witnesses[t_out] = _finding(at, s_out, t_out, item, shape, output, reader,
                                                confirmation_runs[index], src_after, tgt_after, more["source"][index],
                                                sizes)
    # A static LC204 already says it, with its own witness: the runs add nothing.
    findings += [f for t_out, f in witnesses.items()
                 if not any(g.code == "LC204" and g.buffer == t_out for g in report.findings)]
    for t_out in observed:
        report.dependences[t_out] = OBSERVED
    for side, lines in words.items():
        report.dependence_words.setdefault(side, [])
        report.dependence_words[side] += lines
    runs_each = len(runs) + len(confirmation_runs)
    names = ", ".join(f"`{t}`" for t in observed)
    if observed:
        outcome = f"{len(witnesses)} differ (LC204)" if witnesses else "the same on both sides"
        report.notes.append(f"dependence maps of {names} that the static checks could not compare (not exact, or partly "
                            f"proved) were observed in runs at {where} "
                            f"({runs_each} runs per side, input elements replaced a slice at a time): {outcome}")
        _verdict(report, where, names, len(witnesses))
    report.findings += findings


def _inputs(at: Mapping[str, SideInfo], correspondence: Mapping[str, str], plan: Mapping[str, Any],
            sizes: Mapping[str, int]) -> list[Input]:
    """The floating-point inputs both sides receive (an accumulator one side returns is no input
    of it), with the target's names for each; not an input whose values the spec bounds (`range`:
    outside it the sides may differ)."""
    s_params = {p.pname: p for p in at["source"].params()}
    found: dict[str, list[str]] = {}
    for t_in, s_in in correspondence.items():
        if at["target"].roles.get(t_in) not in ("in", "inout") or s_in not in s_params:
            continue
        if s_in in at["source"].ranges or t_in in at["target"].ranges:
            continue
        drawn = plan["source"].get(s_in)
        if t_in in plan["target"] and isinstance(drawn, Draw) and provenance.is_float(drawn.dtype):
            found.setdefault(s_in, []).append(t_in)
    return [Input(s_in, tuple(t_ins), concrete_shape(s_params[s_in], sizes)) for s_in, t_ins in found.items()]


def _run(at: Mapping[str, SideInfo], plan: Mapping[str, Any], runs: list[Perturbation], options: DiffOptions,
         sizes: Mapping[str, int]) -> dict[str, list[RunResult]]:
    """Both sides' results of `runs`, one child per side, the sides in parallel."""
    from lowercheck.runners.sandbox import run_isolated_batch

    batches: dict[str, list] = {"source": [], "target": []}
    for run in runs:
        args = {"source": dict(plan["source"]), "target": dict(plan["target"])}
        if run.source_input is not None:  # the children replace the elements (`Draw.perturbed`)
            args["source"][run.source_input] = args["source"][run.source_input].perturbed(run.shape, run.mask, run.seed)
            for t_in in run.target_inputs:
                args["target"][t_in] = args["target"][t_in].perturbed(run.shape, run.mask, run.seed)
        for name in batches:
            request = run_request(at[name], args[name], options, sizes)
            batches[name].append(replace(request, seed=run.seed))
    source, target = at["source"], at["target"]
    if (source.path, source.entry, source.language) == (target.path, target.entry, target.language) \
            and all(_same_request(a, b) for a, b in zip(batches["source"], batches["target"])):
        results = run_isolated_batch(batches["source"], options.timeout_s, options.memory_mb)
        return {"source": results, "target": results}  # one entry against itself (`lower --observe`)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        futures = {name: pool.submit(run_isolated_batch, batch, options.timeout_s, options.memory_mb)
                   for name, batch in batches.items()}
        return {name: future.result() for name, future in futures.items()}


def _same_request(a: Any, b: Any) -> bool:
    """Two requests that run the same code on the same values."""
    if (a.ir, a.seed, a.options.get("grid"), list(a.args)) != (b.ir, b.seed, b.options.get("grid"), list(b.args)):
        return False
    return all(np.array_equal(a.args[k], b.args[k]) if isinstance(a.args[k], np.ndarray) else a.args[k] == b.args[k]
               for k in a.args)  # values, and recipes (`Draw`) by their fields


def _failure(results: Mapping[str, list[RunResult]]) -> str | None:
    for name, side_results in results.items():
        for result in side_results:
            if result.error is not None:
                last = result.error.strip().splitlines()[-1] if result.error.strip() else result.error
                return f"a run of the {name} failed ({result.error_kind}: {last[:200]})"
            if result.oob_total:
                return f"a run of the {name} accessed memory out of bounds (the runs report it)"
    return None


def _output(result: RunResult, name: str, shape: Sequence[int] | None) -> np.ndarray | None:
    if shape is None or name not in result.outputs:
        return None
    value = np.asarray(result.outputs[name])
    if value.size != int(np.prod(shape, dtype=object)):
        return None
    return value.reshape(tuple(shape))


def _first_write(side: SideInfo, buffer: str):
    from lowercheck.dialects.access import AccessOp

    if side.accesses is None:
        return None
    for op in side.accesses.walk():
        if isinstance(op, AccessOp) and op.buffer.data == buffer and op.kind.data != "read":
            return location_of(op)
    return None


def _finding(at: Mapping[str, SideInfo], s_out: str, t_out: str, item: Input, shape: Sequence[int], output: int,
             reader: str, run: Perturbation, src_after: np.ndarray, tgt_after: np.ndarray,
             source_run: RunResult, sizes: Mapping[str, int]) -> Finding:
    element = [int(c) for c in np.unravel_index(output, tuple(shape))]
    index = [int(c) for c in np.unravel_index(run.element, item.shape)]
    value = input_facts(source_run).get(item.source, {}).get("replaced", float("nan"))  # what the child put in
    values = {"source": float(np.asarray(src_after, dtype=np.float64).ravel()[output]),
              "target": float(np.asarray(tgt_after, dtype=np.float64).ravel()[output])}
    other = "target" if reader == "source" else "source"
    where = ", ".join(f"{k}={v}" for k, v in sizes.items())
    t_in = item.targets[0]
    return Finding(
        "LC204", f"element {static.element_text(t_out, element)} of the output changes with "
        f"{static.element_text(t_in, index)} in the {reader} but not in the {other} (observed at {where}: with that "
        f"one input element set to {value:.4g}, the source gives {values['source']:.6g} and the target "
        f"{values['target']:.6g})", side="target", buffer=t_out,
        location=_first_write(at["target"], t_out), other_location=_first_write(at["source"], s_out),
        witness={"sizes": dict(sizes), "element": element, "input": t_in, "input_index": index, "read_by": reader,
                 "replaced_by": value, "values": values, "observed": True},
        hint="compare the index expressions of the loads feeding this store", evidence=str(Evidence.OBSERVED))


def _verdict(report: Report, where: str, names: str, differ: int) -> None:
    """The LC204 check's verdict once observed: it said "not compared" or "partly proved"."""
    for index, check in enumerate(report.static_checks):
        if check.code != "LC204" or check.status not in (NOT_COMPARED, str(Evidence.PARTLY)):
            continue
        detail = f"{names} observed at {where}: " + (f"{differ} finding(s)" if differ else "the same on both sides")
        report.static_checks[index] = static.CheckVerdict(check.code, check.title, str(Evidence.OBSERVED), detail)


def observed_text(file_arg: str, spec: Any, gpu: str) -> str:
    """`lower --observe`: the dependence maps of an entry that are not exact statically, observed
    as `diff` observes them (a diff of the entry with itself without its differential runs, so the
    inputs and runs are those a real diff would use), as `//` lines after the relations. With a
    spec, at its smallest binding with every size above 1 only (the diff's static checks would
    otherwise run at every binding of the sweep)."""
    from lowercheck.diff import DiffOptions, diff
    from lowercheck.errors import LowercheckError

    lines = ["// dependences observed in runs (what `diff` compares where the maps above are not exact)"]
    if spec.sizes:  # the static checks of the diff run at every binding: only the one observed
        smallest = min(spec.sweep(), key=lambda b: (any(v <= 1 for v in b.values()), np.prod(list(b.values()),
                                                                                               dtype=object)))
        spec = spec.with_sizes({name: [value] for name, value in smallest.items()})
    try:
        report = diff(DiffOptions(file_arg, file_arg, spec=spec, differential=False, gpu=gpu))
    except LowercheckError as err:
        return "\n".join(lines + [f"//   not observed: {err.message}"]) + "\n"
    words = [w for w in report.dependence_words.get("source", []) if "(observed at " in w]
    lines += [OBSERVED_LINE + w for w in words]
    for output, status in report.dependences.items():
        if status == "compared":  # `lower` gave up on it within its own budget; the diff's checks did not
            lines.append(f"{COMPARED_LINE}{output} (the diff's static checks composed its maps)")
        if status in (NOT_COMPARED, LEFT_TO_THE_RUNS):
            why = next((n for n in report.notes if n.startswith(NOT_OBSERVED)), "no observation")
            lines.append(f"//   not observed: {output}: {why}")
    return "\n".join(lines) + "\n"
