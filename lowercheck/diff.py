"""`lowercheck diff`: the one place that wires front ends, passes, comparisons and runners.

source file -> front end -> IR -> extract-accesses -> static checks ┐
                                 └-> runners (child processes) -> differential checks ┴-> Report
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Mapping, Sequence
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from lowercheck import __version__, cuda_on_cpu, differential, integrity, ir, plan
from lowercheck.case import Case
from lowercheck.compare import dynamic, infer, numerics, operators, resources, static
from lowercheck.compare.accesses import build
from lowercheck.perf import cost, occupancy, targets
from lowercheck.dialects.kernel import EntryOp, ParamOp
from lowercheck.errors import SourceLocation, UserError
from lowercheck.judge import merge_shared, merge_unwritten
from lowercheck.observe import observe
from lowercheck.plan import capturable_sizes
from lowercheck.findings import Evidence, Finding, Judged, Severity
from lowercheck.frontends import frontend_for, language_of, module, split_entry, start_workers
from lowercheck.frontends.base import (
    Binding,
    NeedsConcreteSizes,
    ScalarArg,
    SizeArg,
    TensorArg,
    TupleArg,
    ValueArg,
)
from lowercheck.bind import (
    assume_untyped,
    bind_other,
    check_size_names,
    check_size_values,
    check_spec_names,
    correspond,
    dtype_name,
    entry_binding,
    fill_extents,
    set_shape,
    side_size_names,
    spec_roles,
    zeroed_accumulators,
)
from lowercheck.lowering import (
    extract_accesses,
    resolve_entry,
    source_notes,
    stage_findings,
    typed,
    typed_sizes,
)
from lowercheck.spec import Spec
from lowercheck.arguments import concrete_shape, is_argument



@dataclass(frozen=True)
class DiffOptions:
    source: str
    target: str
    spec: Spec = field(default_factory=Spec)
    seed: int = 0
    run: bool = True
    static: bool = True
    # The differential runs over the sweep; False keeps only the runs that observe the dependence
    # maps not exact statically (`lowercheck/observe.py`): `lower --observe`.
    differential: bool = True
    device: str = "auto"
    timeout_s: float = 120.0
    memory_mb: int = 8192
    baseline: str | None = None  # "kernelbench": judge as a KernelBench-style harness does, for comparison
    gpu: str = "h100-sxm"  # the target of the cost model's roofline (`lowercheck.perf.targets`)
    platforms: tuple[str, ...] = ()  # migration targets of a Pallas side (`--platform`); () checks `gpu`
    integrity: bool = True  # a solution module's integrity probe (`lowercheck/integrity.py`; --integrity off)
    custom_kernel: str = "optional"  # "required": a solution with no kernel of its own is an error (LC701)


@dataclass
class SideInfo:
    name: str
    path: str
    entry: str
    language: str
    module: ModuleOp  # the lowered kernel IR (for a per-size capture: at a representative size)
    accesses: ModuleOp | None = None  # after extract-accesses
    roles: dict[str, str] = field(default_factory=dict)  # as the comparison sees them
    # Set when the side can only be lowered for concrete sizes: lowers it for one size binding.
    lower_at: Callable[[Mapping[str, int]], ModuleOp] | None = None
    resources: dict[str, dict[str, int]] = field(default_factory=dict)  # per kernel, from ptxas
    fixed: dict[str, Any] = field(default_factory=dict)  # values passed as they are (the spec's `value`)
    ranges: dict[str, tuple[str | int, str | int]] = field(default_factory=dict)  # the spec's `range` per input
    # Index inputs' ranges inferred from what they index (`differential.index_ranges`): for the typical draws only.
    index_ranges: dict[str, tuple[str | int, str | int]] = field(default_factory=dict)
    # A tuple parameter -> its items: [array parameter, None] or [None, value] (the spec's `items`).
    tuples: dict[str, list[list[Any]]] = field(default_factory=dict)
    grid: tuple[str, ...] | None = None  # a kernel entry's grid (the spec's `[launch]`), over the sizes
    inferred: dict[str, list[str]] = field(default_factory=dict)  # extents inferred from the accesses
    problem: str | None = None  # a solution module's problem file (`frontends/module`): its Model, its init inputs
    task_sizes: dict[str, int] = field(default_factory=dict)  # a solution module's: the task's own sizes (get_inputs')
    _per_size: dict[tuple, SideInfo] = field(default_factory=dict)
    _printed: tuple[ModuleOp, tuple, str] | None = field(default=None, repr=False, compare=False)

    @property
    def per_size(self) -> bool:
        return self.lower_at is not None

    def at(self, sizes: Mapping[str, int]) -> SideInfo:
        """This side as lowered for `sizes` (itself when it was lowered symbolically)."""
        if self.lower_at is None:
            return self
        key = tuple(sorted(sizes.items()))
        if key not in self._per_size:
            module = self.lower_at(sizes)
            for name, shape in self.inferred.items():  # extents inferred once hold at every size
                set_shape(module, name, shape)
            view = replace(self, module=module, accesses=extract_accesses(module), lower_at=None,
                           _per_size={})
            view.roles = self.roles  # one role table for every size
            self._per_size[key] = view
        return self._per_size[key]

    def ir_text(self) -> str:
        """The module's text, for the runners: printed once for every run of the module (binding a
        spec's shapes, the one change made to a lowered module, prints it again)."""
        shapes = tuple(sorted((name, tuple(shape)) for name, shape in self.extents().items()))
        if self._printed is None or self._printed[0] is not self.module or self._printed[1] != shapes:
            self._printed = (self.module, shapes, ir.print_ir(self.module))
        return self._printed[2]

    @property
    def entry_op(self) -> EntryOp:
        return next(op for op in self.module.ops if isinstance(op, EntryOp))

    def extents(self) -> dict[str, list[str]]:
        """Each buffer parameter's extents, as expressions of the sizes."""
        return {p.pname: [s.data for s in p.shape.data] for p in self.params()
                if p.kind.data == "buffer" and p.shape.data}

    def params(self) -> list[ParamOp]:
        return self.entry_op.params

    def returns(self) -> bool:
        """Whether the entry returns tensors (`return0`, ...): a Python entry that allocates its result."""
        return self.language != "cuda" and any(p.pname.startswith("return") for p in self.params())

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path, "entry": self.entry, "language": self.language,
            "geometry": static.geometry_text(self.module),
            "operators": [op.target.data for op in self.entry_op.operators],  # a PyTorch reference's graph
            "resources": self.resources,
            "params": [{"name": p.pname, "kind": p.kind.data, "role": self.roles.get(p.pname, p.role.data),
                        "dtype": str(p.element_type), "shape": [s.data for s in p.shape.data],
                        **({"variable": p.variable.data} if p.variable is not None else {})}
                       for p in self.params()],
        }


@dataclass
class Report(Judged):
    source: SideInfo
    target: SideInfo
    findings: list[Finding] = field(default_factory=list)
    runs: list[dynamic.RunRecord] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    static_strength: str | None = None
    static_checks: list[static.CheckVerdict] = field(default_factory=list)
    # Per output of the target, how its dependence map was judged (static.DEPENDENCE_STATUSES).
    dependences: dict[str, str] = field(default_factory=dict)
    # Per side, the compared dependence maps in words (static.StaticResult.dependence_words).
    dependence_words: dict[str, list[str]] = field(default_factory=dict)
    traffic: dict[str, dict[str, Any]] = field(default_factory=dict)  # side -> buffer -> bytes
    traffic_sizes: dict[str, int] = field(default_factory=dict)
    cost: Any = None  # perf.cost.CostComparison, when the static checks ran

    def to_json(self) -> dict[str, Any]:
        return {"lowercheck": __version__, "source": self.source.to_json(), "target": self.target.to_json(),
                "verdict": self.verdict, "static": self.static_strength,
                "static_checks": [c.to_json() for c in self.static_checks],
                "dependences": self.dependences, "dependence_words": self.dependence_words,
                "traffic": {"sizes": self.traffic_sizes, **self.traffic},
                "cost": self.cost.to_json() if self.cost is not None else None, "notes": self.notes,
                "findings": [f.to_json() for f in self.findings], "runs": [r.to_json() for r in self.runs]}


# ---------------------------------------------------------------------------------------------


def diff(options: DiffOptions) -> Report:
    """The diff of two kernels, every stage that runs user code within `options.timeout_s` in all."""
    from lowercheck.runners import confine, deadline

    with deadline.bounded(options.timeout_s):
        report = _diff(options)
    if (shortfall := confine.note()) is not None:
        report.notes.append(shortfall)
    return report


def _diff(options: DiffOptions) -> Report:
    (src_path, src_entry), (tgt_path, tgt_entry) = split_entry(options.source), split_entry(options.target)
    cuda_on_cpu.set_target(options.gpu)  # what user code's device queries answer (SM count, ...)
    start_workers([src_path, tgt_path])
    languages = {"source": language_of(src_path), "target": language_of(tgt_path)}
    # ptxas runs beside everything else (it needs no GPU); its numbers are used at the end.
    pool = concurrent.futures.ThreadPoolExecutor(2)
    usage = {side: pool.submit(resources.ptxas_usage, path) for side, path in
             (("source", src_path), ("target", tgt_path)) if languages[side] == "cuda" and path.endswith(".cu")}
    paths = {"source": src_path, "target": tgt_path}
    entries = {"source": src_entry, "target": tgt_entry}
    notes: list[str] = []
    spec = options.spec
    # Typed sides lower first: their signatures tell the other side what to pass. Meanwhile the
    # other side's worker process imports torch and Triton.
    first, second = _lowering_order(paths, languages)
    candidates = {first: frontend_for(paths[first]).entries(paths[first])}
    if entries[first] is None and sum(c.chosen_unnamed for c in candidates[first]) > 1 and entries[second] is None:
        candidates[second] = frontend_for(paths[second]).entries(paths[second])
    entries[first] = resolve_entry(paths[first], entries[first], candidates[first], entries[second],
                                   candidates.get(second, ()))
    sides: dict[str, SideInfo] = {}
    binding = entry_binding(spec, next(c for c in candidates[first] if c.name == entries[first]))
    if not typed(languages[first], paths[first]):
        assume_untyped(paths[first], entries[first], candidates[first], binding, notes)
    # A first side that lowers only at concrete sizes is captured at a probe binding of the sizes
    # its binding names (then again at each swept size).
    named = list(spec.sizes) or list(dict.fromkeys(
        [d for a in binding.args.values() if isinstance(a, TensorArg) for d in a.shape if isinstance(d, str)]
        + [a.size for a in binding.args.values() if isinstance(a, SizeArg)]
        + typed_sizes(next(c for c in candidates[first] if c.name == entries[first]))))
    # Distinct sizes, none 1, so each extent the capture sees names one size.
    probe = spec.sweep()[-1] if spec.sizes else {name: differential.PROBE_PRIMES[i % len(differential.PROBE_PRIMES)]
                                                 for i, name in enumerate(named)} if named else None
    sides[first] = _lower(first, paths[first], entries[first], languages[first], binding, probe=probe, notes=notes,
                          spec=spec)
    if side_size_names(sides[first]):  # the sizes come from this side: a name it lacks is misspelt
        check_size_names(spec, {first: sides[first]})
    check_size_values(spec, {first: sides[first]})
    size_names = list(spec.sizes) or side_size_names(sides[first])
    if not size_names:
        raise UserError("no size parameter found on either side",
                        next(c.location for c in candidates[first] if c.name == entries[first]),
                        hint="give the sizes in a spec: [sizes] n = [...]")
    tiles = infer.tile_sizes([sides[first].module])
    sweep = spec.sweep() if spec.sizes else infer.default_sweep(size_names, tiles)
    _extract(sides[first])
    fill_extents(sides[first], size_names, sweep, notes)
    solution = module.solution_class(paths[second], entries[second]) if _is_problem(sides[first]) else None
    if solution is not None:  # a KernelBench solution module against its problem: run as a whole
        entries[second] = solution
        sides[second], match = _solution_side(second, paths[second], solution, sides[first], notes)
    else:
        if second not in candidates:
            candidates[second] = frontend_for(paths[second]).entries(paths[second])
        entries[second] = resolve_entry(paths[second], entries[second], candidates[second], entries[first],
                                        candidates[first])
        check_spec_names(spec, candidates, entries, paths)
        second_binding, match = bind_other(sides[first], candidates[second], entries[second], spec, size_names,
                                           paths[second])
        sides[second] = _lower(second, paths[second], entries[second], languages[second], second_binding,
                               probe=sweep[-1], notes=notes, spec=spec)
    _extract(sides[second])
    check_size_names(spec, sides)
    correspondence, outputs = correspond(sides[first], sides[second], match)
    # Orient: correspondence maps target names to source names.
    if first == "target":
        correspondence = {v: k for k, v in correspondence.items()}
        outputs = [(t, s) for s, t in outputs]
    report = Report(sides["source"], sides["target"], notes=notes)
    for name in ("source", "target"):  # processes the file's import or capture left running (LC903)
        report.findings += stage_findings(frontend_for(paths[name]), paths[name], name)
    notes += [f"the source's `{s}` and the target's `{t}` start at zero in the runs: one side accumulates into "
              "its buffer, the other returns the result (a caller zeroes an accumulator)"
              for s, t in zeroed_accumulators(sides["source"], sides["target"], correspondence, is_argument).items()]
    task: list[dict[str, int]] | None = None  # a solution module's: the sizes its verdict is decided at
    if not spec.sizes:
        tiles = infer.tile_sizes([sides["source"].accesses, sides["target"].accesses,
                                  sides["source"].module, sides["target"].module])
        sweep = infer.default_sweep(size_names, tiles)
        if solution is not None:
            sweep, task = plan.solution_sweep(sides[first].entry_op.example_sizes, size_names, sweep,
                                              lambda sizes: _run_cost(sides, sizes), notes)
        else:
            notes.append(f"sizes swept: {', '.join(_fmt_sizes(b) for b in sweep)} (from tile sizes {tiles})")
            sweep = _with_example_sizes(sweep, sides, size_names, notes)
    caps = plan.grid_caps([sides["source"].module, sides["target"].module], size_names)
    if spec.sizes:
        plan.caps_the_spec_misses(sweep, caps, notes)
    else:
        sweep = plan.past_the_caps(sweep, caps, size_names, notes)
    sweep, raised = capturable_sizes(sides, sweep)
    report.findings += merge_shared(raised, correspondence)
    if options.static:
        _static(report, sides, correspondence, size_names, sweep, options.gpu, domain=bool(spec.sizes))
        report.findings = merge_unwritten(report.findings, correspondence)  # both sides leave the same
    for name, future in usage.items():
        found, skipped = future.result()
        if skipped:
            report.notes.append(f"{sides[name].path}: {skipped}")
        sides[name].resources = {k: u.to_json() for k, u in found.items()}
        report.findings += [replace(f, evidence=f.evidence or str(Evidence.MEASURED))
                            for f in resources.check(name, sides[name].module, sweep, found)]
    pool.shutdown()
    if report.cost is not None:  # occupancy needs ptxas's registers, known only now
        report.cost = _occupancy(report.cost, sides)
    _migration(report, sides, options, sweep)
    if options.run:
        indexed = differential.index_inputs(report, sides)
        if options.differential:
            differential.run(report, sides, correspondence, outputs, sweep, options, indexed, task or None,
                             sides[first].entry_op.example_draws if solution is not None else "normal")
        if solution is not None and options.integrity and not options.baseline:
            integrity.run(Case(options, report, sides, correspondence, sweep))
        observe(report, sides, correspondence, outputs, sweep, options)
    report.findings.sort(key=_finding_order)
    return report


EXAMPLE_ELEMENTS = 1 << 16  # the largest buffer a run at a side's own example sizes may have


def _with_example_sizes(sweep: list[dict[str, int]], sides: dict[str, SideInfo], size_names: list[str],
                        notes: list[str]) -> list[dict[str, int]]:
    """The sweep plus the sizes a side's own example inputs have (a KernelBench `get_inputs()`),
    when every buffer there has at most EXAMPLE_ELEMENTS elements (the runs here are emulated)."""
    for info in sides.values():
        example = info.entry_op.example_sizes
        if not example or set(example) != set(size_names):
            continue
        sizes = {name: example[name] for name in size_names}
        if sizes in sweep:
            continue
        largest = max((int(np.prod(concrete_shape(p, sizes))) for p in info.params() if p.kind.data == "buffer"),
                      default=0)
        if largest <= EXAMPLE_ELEMENTS:
            notes.append(f"also the sizes of {info.path}'s example inputs: {_fmt_sizes(sizes)}")
            return [*sweep, sizes]
        notes.append(f"the sizes of {info.path}'s example inputs ({_fmt_sizes(sizes)}: {largest} elements in one "
                     f"buffer) are too large to run on the CPU here; the sweep covers the tile boundaries instead")
    return sweep


def _run_cost(sides: dict[str, SideInfo], sizes: Mapping[str, int]) -> tuple[int, float]:
    """What a run at `sizes` costs: the elements of the largest buffer of either side, and the FLOPs
    of a reference's operator graph (0 for kernels)."""
    largest = max((int(np.prod(concrete_shape(p, sizes), dtype=np.int64)) for info in sides.values()
                   for p in info.at(sizes).params() if p.kind.data == "buffer" and p.shape.data), default=0)
    flops = max((float(operators.reference_cost(info.at(sizes).entry_op, sizes)[0]) for info in sides.values()
                 if info.language == "torch"), default=0.0)
    return largest, flops


def _lowering_order(paths: dict[str, str], languages: dict[str, str]) -> tuple[str, str]:
    """Which side lowers first and names the sizes: a typed side before an untyped one; of two
    typed sides, a PyTorch reference before a KernelBench `load_inline` file (whose sizes are only
    its tensors' dimensions: the reference's export ties them together) and a CUDA file with size
    parameters before a reference; otherwise the source."""
    says_types = {side: typed(languages[side], path) for side, path in paths.items()}
    def rank(side: str) -> float:
        if not says_types[side]:
            return 2
        if languages[side] == "torch":
            return 1
        return 0 if paths[side].endswith((".cu", ".cuh")) else 1.5
    first, second = sorted(paths, key=rank)
    return first, second


def _static(report: Report, sides: dict[str, SideInfo], correspondence: dict[str, str],
            size_names: list[str], sweep: list[dict[str, int]], options_gpu: str = "h100-sxm",
            domain: bool = False) -> None:
    """The static checks: once for all sizes, or per swept size when a side was captured per size.
    `domain`: the sweep is the spec's, the only sizes an error may be claimed at."""
    def side(name: str, at: SideInfo) -> static.Side:
        return static.Side(name, at.accesses, at.extents(), at.roles)

    per_size = any(s.per_size for s in sides.values())
    bindings = [[b] for b in sweep] if per_size else [sweep]
    seen: set[tuple] = set()
    strength = None
    checks: dict[str, static.CheckVerdict] = {}
    words_score = -1
    for group in bindings:
        views = {name: info.at(group[0]) if per_size else info for name, info in sides.items()}
        result = static.analyse(side("source", views["source"]), side("target", views["target"]),
                                correspondence, size_names, group, swept=per_size, domain=domain)
        for f in result.findings:
            key = (f.code, f.side, f.buffer, f.location)
            if key not in seen:
                seen.add(key)
                report.findings.append(f)
        strength = result.strength if strength in (None, result.strength) else Evidence.UNSUPPORTED
        report.notes += [n for n in result.notes if n not in report.notes]
        for output, status in result.dependences.items():
            static.judged(report.dependences, output, status)
        # The words at the largest sizes with none of 1 (a size of 1 makes a coordinate a constant).
        score = static.words_score(group[0]) if group else 0
        if result.dependence_words and score >= words_score:
            report.dependence_words, words_score = result.dependence_words, score
        for check in result.checks:  # a refutation at any size wins, then "not compared"; else the first group's
            if check.code not in checks or check.status == Evidence.REFUTED or \
                    (check.status == "not compared" and checks[check.code].status != Evidence.REFUTED):
                checks[check.code] = check
        report.traffic = {side: {b: t.to_json() for b, t in table.items()} for side, table in result.traffic.items()}
        report.traffic_sizes = result.traffic_sizes
    report.static_strength = str(strength)
    report.static_checks = list(checks.values())
    report.cost = _cost(sides, report.traffic, report.traffic_sizes, options_gpu)


_PEAK_DTYPE = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp32"}


def _cost(sides: dict[str, SideInfo], traffic: dict[str, dict[str, Any]], sizes: dict[str, int],
          gpu: str) -> cost.CostComparison | None:
    """Each side's static cost (bytes from the traffic estimate, FLOPs from its dataflow) and its
    roofline floor on `gpu`, at the traffic estimate's sizes."""
    if not traffic or not sizes:
        return None
    device = targets.get_target(gpu)
    per_side = {}
    dtype = "fp32"
    for name, side in sides.items():
        at = side.at(sizes) if side.per_size else side
        outs = [p for p in at.params() if p.kind.data == "buffer" and p.role.data in ("out", "inout")]
        ins = [p.pname for p in at.params() if p.kind.data == "buffer" and p.role.data in ("in", "inout")]
        if outs:
            dtype = _PEAK_DTYPE.get(dtype_name(outs[0]), "fp32") if name == "source" else dtype
        if not at.entry_op.scheduled:  # a PyTorch reference: its operator graph's FLOPs, ideal bytes
            flops, ideal = operators.reference_cost(at.entry_op, sizes)
            per_side[name] = cost.side_cost(ideal, flops, device, dtype)
            continue
        try:
            rel = build(at.accesses, sizes, list(sizes), at.extents())
        except Exception:  # noqa: BLE001 - no FLOP estimate for this side; bytes still count
            rel = None
        flops = 0
        for out in outs:
            shape = tuple(int(e) for e in concrete_shape(out, sizes)) if out.shape.data else (0,)
            found = numerics.dataflow_flops(rel, out.pname, ins, shape) if rel is not None else None
            flops += found if found is not None else int(np.prod(shape))
        per_side[name] = cost.side_cost(traffic.get(name, {}), flops, device, dtype)
    return cost.CostComparison(device, gpu, dict(sizes), dtype, per_side)


def _occupancy(comparison: cost.CostComparison, sides: dict[str, SideInfo]) -> cost.CostComparison:
    """`comparison` with each launch's occupancy on its target (`perf/occupancy.py`), at its sizes."""
    if comparison.target.sm is None:
        why = f"not applicable: {comparison.target.name} has no CUDA SMs"
        return comparison.with_occupancy({}, {name: why for name in sides})
    found, notes = {}, {}
    for name, side in sides.items():
        at = side.at(comparison.sizes) if side.per_size else side
        found[name], note = occupancy.side_occupancy(at.module, comparison.sizes, side.resources, comparison.target.sm)
        if note:
            notes[name] = note
    return comparison.with_occupancy(found, notes)


def _finding_order(f: Finding) -> tuple:
    rank = {Severity.ERROR: 0, Severity.INCONCLUSIVE: 1, Severity.WARNING: 2, Severity.INFO: 3}
    return rank[f.level], f.code


def _fmt_sizes(sizes: Mapping[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in sizes.items())


def _lower(side: str, path: str, entry: str, language: str, binding: Binding,
           probe: Mapping[str, int] | None = None, notes: list[str] | None = None,
           spec: Spec | None = None) -> SideInfo:
    """Lower symbolically; if the front end can only lower for concrete sizes, lower at `probe` now
    and at each swept size when asked (`SideInfo.at`). The spec's roles replace the inferred ones."""
    frontend = frontend_for(path)
    said: list[str] = []
    try:
        module = spec_roles(frontend.lower(path, entry, binding), spec, said)
        lower_at = None
    except NeedsConcreteSizes as why:
        if probe is None:
            raise UserError(f"{path}: the entry `{entry}` can only be captured for concrete sizes ({why})",
                            SourceLocation(path, 1), hint="give the sizes in a spec: [sizes] n = [...]") from None

        def lower_at(sizes: Mapping[str, int]) -> ModuleOp:
            return spec_roles(frontend.lower(path, entry, replace(binding, sizes=dict(sizes))), spec, [])

        module = spec_roles(frontend.lower(path, entry, replace(binding, sizes=dict(probe))), spec, said)
        if notes is not None:
            notes.append(f"{path} is captured once per size: {why}")
    if notes is not None and said:
        notes.append(f"{path}: the spec's roles replace lowercheck's inference: {', '.join(said)}")
    if notes is not None:
        notes += source_notes(frontend, path)
        if language in ("torch", "triton") and cuda_on_cpu.mentions_cuda(path) and not _has_gpu():
            notes.append(f"{path} places tensors on a CUDA device; there is none here, so `.cuda()`, "
                         "device=\"cuda\" and `is_cuda` run on the CPU, and device queries (SM count, "
                         f"capability) answer as {cuda_on_cpu.target().name} (--gpu; lowercheck/cuda_on_cpu.py)")
    info = SideInfo(side, path, entry, language, module, lower_at=lower_at, grid=binding.grid)
    if notes is not None and info.entry_op.reads_data_at is not None and language == "torch":
        notes.append(f"{path}:{entry}: {info.entry_op.reads_data_at.data} (its get_inputs(): shapes, each "
                     "dimension named by its value; no operator graph): the runs compare it, eager")
    elif notes is not None and info.entry_op.reads_data_at is not None:
        notes.append(f"{path}:{entry} reads its tensors' values while it is captured "
                     f"({info.entry_op.reads_data_at.data}): it was captured on real tensors with lowercheck's "
                     "values (normal floats, integers 0, booleans True), so its launches, and what the static "
                     "checks see, are those values'")
    # The spec's values: passed as they are (ValueArg), or a scalar parameter's value in every run.
    scalars = {p.pname for p in info.params() if p.kind.data == "scalar"}
    info.fixed = {n: a.value for n, a in (spec.args.items() if spec else ()) if a.fixed
                  and (n in scalars or isinstance(binding.args.get(n), ValueArg))}
    info.roles = {p.pname: p.role.data for p in info.params() if p.kind.data == "buffer"}
    info.ranges = {n: a.range for n, a in (spec.args.items() if spec else ()) if a.range is not None and n in info.roles}
    for name, bounds in info.entry_op.example_ranges.items():  # `get_inputs()`'s: labels stay labels
        if name in info.roles and name not in info.ranges:
            info.ranges[name] = bounds
            if notes is not None:
                notes.append(f"`{name}` is drawn in [{bounds[0]}, {bounds[1]}), the range {path}'s get_inputs() draws it in")
    info.tuples = {n: [[item_name, None] if item_name is not None else [None, item.value]
                       for item, item_name in zip(a.items, a.item_names(n), strict=True)]
                   for n, a in binding.args.items() if isinstance(a, TupleArg)}
    return info


def _is_problem(side: SideInfo) -> bool:
    """A KernelBench problem: a PyTorch side whose entry is its module class and whose file says its
    inputs (`get_inputs()`)."""
    from lowercheck.frontends.torch.source import discover

    return side.language == "torch" and any(e.name == side.entry and e.is_module and e.has_inputs
                                            for e in discover(side.path))


def _solution_side(name: str, path: str, solution: str, problem: SideInfo,
                   notes: list[str]) -> tuple[SideInfo, dict[str, str]]:
    """The solution module `solution` of `path` as a side: the problem's interface under its
    forward's names (`frontends/module`), run whole by the module runner; and which problem
    parameter each of its parameters stands for (the k-th input for the k-th)."""
    def interface_at(sizes: Mapping[str, int]) -> ModuleOp:
        return module.interface(path, solution, problem.at(sizes).entry_op)

    lowered = module.interface(path, solution, problem.entry_op)
    info = SideInfo(name, path, solution, module.LANGUAGE, lowered,
                    lower_at=interface_at if problem.per_size else None, problem=problem.path,
                    task_sizes=dict(problem.entry_op.example_sizes))
    info.roles = {p.pname: p.role.data for p in info.params() if p.kind.data == "buffer"}
    inputs = [p.pname for p in problem.params() if not p.pname.startswith("return") and p.role.data != "temp"]
    mine = [p.pname for p in info.params() if not p.pname.startswith("return")]
    used = module.engines(path)
    notes.append(f"{path}:{solution} is run whole against {problem.path}:{problem.entry}, as KernelBench runs it: "
                 "both built from the problem's get_init_inputs() after the same seed, the solution's forward "
                 "called on the same inputs"
                 + (f", its kernels on lowercheck's engines ({', '.join(_ENGINE_NAMES[e] for e in used)})" if used
                    else ""))
    notes += source_notes(frontend_for(path), path) if "cuda" in used else []
    return info, dict(zip(mine, inputs, strict=True))


_ENGINE_NAMES = {"triton": "Triton kernels in Triton's interpreter", "cuda": "load_inline CUDA on the SIMT emulator"}


def _has_gpu() -> bool:
    import shutil

    return shutil.which("nvidia-smi") is not None and Path("/dev/nvidia0").exists()


def _extract(side: SideInfo) -> None:
    side.accesses = extract_accesses(side.module)


def _migration(report: Report, sides: dict[str, SideInfo], options: DiffOptions,
               sweep: Sequence[Mapping[str, int]]) -> None:
    """Would each Pallas side lower, and fit, on `--platform` (default: `--gpu`)? Its worker lowers
    it with jax.export at every swept size; the findings are LC103/LC102 at the BlockSpec."""
    from lowercheck.compare import migration

    if options.baseline or not (options.static or options.platforms):
        return
    chosen = migration.platforms(options.platforms, options.gpu)
    if options.platforms and not any(s.language == "pallas" for s in sides.values()):
        report.notes.append("migration: --platform checks Pallas sides only; neither side is one")
    for name, side in sides.items():
        frontend = frontend_for(side.path) if side.language == "pallas" else None
        if not hasattr(frontend, "migrate"):
            continue
        args = {}  # the binding the side was lowered with, read back from its parameters
        for p in side.params():
            if p.kind.data == "buffer" and is_argument(side, p):
                args[p.pname] = TensorArg(tuple(s.data for s in p.shape.data), dtype_name(p))
            elif p.role.data == "size":
                args[p.pname] = SizeArg(p.pname)
            elif p.kind.data == "scalar":
                args[p.pname] = ScalarArg(dtype_name(p), 1.5 if dtype_name(p).startswith("float") else 3)
        try:
            facts = frontend.migrate(side.path, side.entry, Binding(args=args),
                                     [dict(s) for s in sweep], [p.for_worker() for p in chosen])
        except UserError as err:  # the worker timed out or crashed: the other checks still stand
            report.notes.append(f"migration: {side.path} not checked for {', '.join(p.name for p in chosen)}: "
                                f"{err.message}")
            continue
        result = migration.judge(name, facts, chosen)
        report.findings += result.findings
        report.notes += result.notes
        report.static_checks += result.checks

