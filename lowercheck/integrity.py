"""The integrity stage of `diff`: does a solution win by artefacts instead of a better kernel?

For a solution module against its problem (`frontends/module`), after the differential runs, the
solution is run once more, at the task's sizes, by the integrity probe
(`runners/integrity_probe.py` in the module runner's child): called the ways harnesses call it, its
behaviour comes back as facts, and each fact that a cheat needs and an honest solution does not show
is a finding of its own code, with its evidence (the call at which the output changed, the global
that changed, the kernels whose no-op left the output the same). Behaviour, not patterns: what the
solution does is observed under lowercheck's control, as it runs.

| code | what is observed | severity |
| --- | --- | --- |
| LC701 | no kernel of its own runs: torch (cuBLAS, cuDNN) computes the output | warning; error with `--custom-kernel required` |
| LC702 | its kernels run, but with every launch a no-op the output is bit for bit the same | error |
| LC703 | the same inputs give other outputs from some call on (it counts its calls), through a harness's function on the stack, or with an environment variable its code reads set | error |
| LC704 | an input changed in place (same storage and shape) and the output did not follow it | error |
| LC705 | a returned tensor changed after the call returned | error |
| LC706 | the output is a tensor subclass, which can defer its work into the checker | error |
| LC707 | its import or its calls changed the process: torch's precision or determinism flags, the default dtype, a timer, a comparison function, the reference's forward | error |
| LC708 | threads left running after it returned; work on a side stream | warning |
| LC709 | right on the task's own input distribution (`torch.rand`), wrong on signed inputs (the differential runs) | error |
| LC710 | its torch operators multiply in another precision than the reference's | warning |
| LC711 | a cache policy that outlives a harness's L2 flush (`evict_last`, a persisting access window) | warning |

A false alarm on an honest solution costs more than a miss: every error here rests on a behaviour
the probe saw, never on the source's text alone (LC711, from the source, is a warning).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lowercheck.errors import SourceLocation
from lowercheck.findings import Evidence, Finding, Severity

if TYPE_CHECKING:
    from lowercheck.case import Case
    from lowercheck.diff import DiffOptions, SideInfo

# ATen operators that multiply matrices or convolve: where a precision shortcut pays.
MATMULS = frozenset({"mm", "bmm", "addmm", "matmul", "linear", "baddbmm", "addbmm", "_scaled_mm", "conv1d",
                     "conv2d", "conv3d", "convolution", "einsum", "dot", "mv", "addmv", "_convolution"})
_PRECISION = {"float64": 53, "float32": 24, "tf32": 11, "float16": 11, "bfloat16": 8, "float8_e4m3fn": 4,
              "float8_e5m2": 3}


def run(case: Case) -> Case:
    """The stage: probe the target (a solution module) at the task's sizes and add the integrity
    findings to the case's report."""
    from lowercheck.arguments import plan_arguments, run_request
    from lowercheck.runners.module import INTEGRITY
    from lowercheck.runners.sandbox import run_isolated

    report, sides, options = case.report, case.sides, case.options
    target = sides["target"]
    static = cache_policies(target.path)
    # Where the runs already found the solution wrong the verdict cannot get worse: one call says what
    # ran (LC701, LC702's kernels, LC706, LC707, LC710) and the repeated calls are spared (the wrong
    # solutions are the slowest in the interpreter).
    wrong = sorted({f.code for f in report.findings if f.level == Severity.ERROR})
    if wrong:
        report.notes.append(f"integrity: the solution is already wrong at the task's sizes ({', '.join(wrong)}): "
                            "one call probed, not its behaviour over repeated calls")
    sizes = dict(case.sweep[0])  # the task's sizes (`plan.solution_sweep`): a solution owes nothing elsewhere
    args = plan_arguments(sides, case.correspondence, sizes, options.seed, "normal")["target"]
    alternate = plan_arguments(sides, case.correspondence, sizes, options.seed + 1, "normal")["target"]
    request = run_request(target.at(sizes), args, options, sizes)
    request.options.update({"integrity": "first-call" if wrong else "all", "alternate": alternate})
    result = run_isolated(request, options.timeout_s, options.memory_mb)
    if result.error is not None:
        report.notes.append(f"integrity: the probe of {target.path} did not finish ({result.error_kind}: "
                            f"{result.error.strip().splitlines()[0][:200]}); its behaviour under repeated calls is "
                            "not checked")
        report.findings += static
        return case
    facts = _facts(result.facts.get(INTEGRITY))
    report.findings += judge(facts, sides, options, sizes) + static
    report.notes.append(provenance(facts))
    return case


def _facts(raw: Any) -> dict[str, Any]:
    """The probe's facts, read without trusting them (the child ran user code): each of the type it
    must have, or left out."""
    if not isinstance(raw, dict):
        return {}
    kinds = {"launches": list, "torch_ops": list, "lazy": list, "globals": list, "calls": int, "caller": str,
             "environment": str,
             "deferred": bool,
             "stale": bool, "ghost": bool, "threads": int, "streams": dict}
    facts = {k: v for k, v in raw.items() if k in kinds and type(v) is kinds[k]}
    for key in ("launches", "lazy", "globals"):
        if key in facts:
            facts[key] = [str(x)[:200] for x in facts[key] if isinstance(x, str)][:64]
    if "torch_ops" in facts:
        facts["torch_ops"] = [(str(op[0])[:60], [str(d)[:20] for d in op[1]][:8]) for op in facts["torch_ops"]
                              if isinstance(op, list) and len(op) == 2 and isinstance(op[1], list)][:64]
    if "streams" in facts:
        facts["streams"] = {str(k): int(v) for k, v in facts["streams"].items() if type(v) is int}
    return facts


def judge(facts: Mapping[str, Any], sides: dict[str, SideInfo], options: DiffOptions,
          sizes: Mapping[str, int]) -> list[Finding]:
    """The findings the probe's facts support (the module's docstring)."""
    target = sides["target"]
    where = SourceLocation(target.path, target.entry_op.location.line.data if hasattr(
        target.entry_op.location, "line") else 1)
    at = ", ".join(f"{k}={v}" for k, v in sizes.items())
    found: list[Finding] = []

    def add(code: str, message: str, hint: str, witness: dict, severity: Severity | None = None) -> None:
        found.append(Finding(code, message, side="target", location=where, witness={"sizes": dict(sizes), **witness},
                             hint=hint, severity=severity, evidence=str(Evidence.OBSERVED)))

    launches = facts.get("launches", [])
    computed = [name for name, _ in facts.get("torch_ops", [])]
    if "launches" in facts and not launches:
        ops = ", ".join(f"aten.{n}" for n in dict.fromkeys(computed)) or "no operator it ran itself"
        required = options.custom_kernel == "required"
        add("LC701", f"the solution runs no kernel of its own: its output comes from torch ({ops})",
            "write the kernel the task asks for; a wrapper around torch or cuBLAS is the reference's speed, "
            "whatever it is called", {"torch_ops": list(dict.fromkeys(computed))},
            Severity.ERROR if required else Severity.WARNING)
    if facts.get("ghost"):
        kernels = ", ".join(f"`{k}`" for k in dict.fromkeys(launches))
        add("LC702", f"the solution launches {kernels}, but with every launch a no-op its output is bit for bit the "
                     f"same at {at}: torch computes the output, the kernels do not"
                     + (f" (it runs {', '.join(f'aten.{n}' for n in dict.fromkeys(computed))})" if computed else ""),
            "the kernel must produce the output; a launch beside a torch computation is a ghost kernel",
            {"kernels": list(dict.fromkeys(launches)), "torch_ops": list(dict.fromkeys(computed))})
    if "calls" in facts:
        add("LC703", f"the solution's output changes at call {facts['calls']} on the same inputs (fresh copies, the "
                     f"seed reset): it behaves differently once it has been called {facts['calls'] - 1} time(s), as a "
                     "solution that tells a checker's calls from a benchmark's does",
            "compute the same function on every call", {"call": facts["calls"]})
    if "caller" in facts and "calls" not in facts:
        add("LC703", f"the solution's output changes when it is called through `{facts['caller'][:60]}` (a function "
                     "named as a harness's checker or timer, on its call stack): it tells a checker's calls from a "
                     "benchmark's", "compute the same function whoever calls it", {"caller": facts["caller"][:60]})
    if "environment" in facts and "calls" not in facts:
        add("LC703", f"the solution's output changes with the environment ({facts['environment'][:80]}), which its "
                     "own code reads: it tells a harness's runs from others", "compute the same function whatever "
                     "the environment says", {"environment": facts["environment"][:80]})
    if facts.get("stale"):
        add("LC704", "the solution returned the previous call's output after its input was changed in place (the "
                     "same storage and shape): it replays a result cached by pointer or shape",
            "compute from the input's current values on every call", {"replay": True})
    if facts.get("deferred"):
        add("LC705", "a tensor the solution returned changed after the call had returned (its work finished later, or "
                     "a later call wrote into it): a checker right after the call and a timer see different things",
            "finish the output before returning, in memory no later call reuses", {"deferred": True})
    if facts.get("lazy"):
        add("LC706", f"the solution returns {', '.join(facts['lazy'])}, a subclass of torch.Tensor: its operators "
                     "can run the work inside the checker's own comparison",
            "return plain torch.Tensor outputs", {"types": facts["lazy"]})
    if facts.get("globals"):
        add("LC707", f"the solution changes the process it runs in: {'; '.join(facts['globals'])}. The reference "
                     "and the harness's checks and timers then run under the solution's settings",
            "leave torch's flags, its functions and the timers as they are; set a precision mode inside the "
            "kernel's own code", {"changed": facts["globals"]})
    streams = facts.get("streams", {})
    if facts.get("threads") or streams.get("entered"):
        what = []
        if facts.get("threads"):
            what.append(f"{facts['threads']} thread(s) still running after it returned")
        if streams.get("entered"):
            what.append(f"work on a side stream ({streams['entered']} time(s) under `torch.cuda.stream`)")
        add("LC708", f"the solution leaves work where a harness's timer does not look: {'; '.join(what)}",
            "run on the current stream and finish before returning (or synchronise the streams it uses)",
            {"threads": facts.get("threads", 0), "streams": streams}, Severity.WARNING)
    _precision(facts, sides["source"], add)
    return found


def _precision(facts: Mapping[str, Any], source: SideInfo, add) -> None:
    """LC710 through `add`: the solution's own torch computations in another precision than the
    reference's: its matrix products against the reference's (from the reference's operator graph:
    its operands' element types), any other operator below the reference's best float precision."""
    reference = _matmul_dtypes(source)
    ops_run = facts.get("torch_ops", [])
    mine = {d for name, dtypes in ops_run if name in MATMULS for d in dtypes if d in _PRECISION}
    ops = sorted({name for name, dtypes in ops_run if name in MATMULS})
    if not reference or not mine or mine & reference:  # the products agree (or are not there): the rest
        reference = _computed_dtypes(source)
        best = max(reference, key=_PRECISION.__getitem__) if reference else None
        mine = {d for _, dtypes in ops_run for d in dtypes if d in _PRECISION}
        ops = sorted({name for name, dtypes in ops_run if best and any(
            d in _PRECISION and _PRECISION[d] < _PRECISION[best] for d in dtypes)})
        if not ops:
            return
        mine = {d for name, dtypes in ops_run if name in ops for d in dtypes if d in _PRECISION}
    ref_best = max(reference, key=_PRECISION.__getitem__)
    low = min(mine, key=_PRECISION.__getitem__)
    verb = "multiplies" if set(ops) & MATMULS else "computes in"
    how = f"in {low}, where the reference {verb} {ref_best}"
    if _PRECISION[low] >= _PRECISION[ref_best]:
        how += " (the task's precision is not the one run)"
    add("LC710", f"the solution's {', '.join(f'aten.{o}' for o in ops)} run {how}",
        "compute in the task's precision; a lower one is another answer that a loose tolerance hides",
        {"solution": sorted(mine), "reference": sorted(reference)}, Severity.WARNING)


def _matmul_dtypes(side: SideInfo) -> set[str]:
    """The element types of the operands of the reference's matrix products and convolutions."""
    from lowercheck.bind import dtype_name

    entry = side.entry_op
    types: dict[str, str] = {p.pname: dtype_name(p) for p in side.params()}
    found: set[str] = set()
    for op in entry.operators:
        name = op.target.data.split(".")[1] if op.target.data.count(".") >= 1 else op.target.data
        if name in MATMULS:
            found |= {types[a.data] for a in op.args.data if a.data in types and types[a.data] in _PRECISION}
        types[op.result.data] = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64",
                                 "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2"}.get(str(op.element_type), "")
    return found


def _computed_dtypes(side: SideInfo) -> set[str]:
    """The float element types the reference's operators compute in (their results')."""
    names = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64",
             "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2"}
    return {names[str(op.element_type)] for op in side.entry_op.operators if str(op.element_type) in names}


def provenance(facts: Mapping[str, Any]) -> str:
    """Which part of the work the solution's kernels did and which torch did, in words."""
    launches = list(dict.fromkeys(facts.get("launches", [])))
    ops = list(dict.fromkeys(name for name, _ in facts.get("torch_ops", [])))
    kernels = ", ".join(f"`{k}`" for k in launches) or "none"
    torch_part = ", ".join(f"aten.{o}" for o in ops) or "nothing but allocations, views and copies"
    return f"integrity: the solution's kernels launched: {kernels}; torch computed: {torch_part}"


# What keeps data in L2 across a harness's flush (a warning: no run shows it). In Python, a call's
# keyword: Triton's `tl.load(..., eviction_policy="evict_last")`; in the CUDA source `load_inline`
# compiles, clang's tokens: the persisting access-policy window's identifiers, and PTX's
# `L2::evict_last` in an inline-assembly string.
_PYTHON_POLICIES = {("eviction_policy", "evict_last")}
_CUDA_IDENTIFIERS = frozenset({"cudaAccessPolicyWindow", "accessPolicyWindow", "cudaAccessPropertyPersisting",
                               "cudaLimitPersistingL2CacheSize", "cudaStreamAttributeAccessPolicyWindow"})
_PTX_POLICY = "evict_last"


def cache_policies(path: str) -> list[Finding]:
    """LC711 where `path` asks for data to stay in L2, as Python's parser and clang's lexer see it
    (in code, never in a comment): at most 8."""
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        return []
    found: list[tuple[str, SourceLocation]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if isinstance(kw.value, ast.Constant) and (kw.arg, kw.value.value) in _PYTHON_POLICIES:
                    found.append((f'{kw.arg}="{kw.value.value}"',
                                  SourceLocation(path, kw.value.lineno, kw.value.col_offset + 1)))
    found += _cuda_policies(path)
    return [Finding("LC711", f"`{what}` keeps data in L2 across the calls: a benchmark that flushes L2 before each "
                             "call (do_bench zeroes 256 MiB) may still time this kernel warm", side="target",
                    location=where, severity=Severity.WARNING, evidence=str(Evidence.MEASURED),
                    witness={"policy": what},
                    hint="time with a flush that the policy cannot outlive (cudaCtxResetPersistingL2Cache), and "
                         "report warm and cold times apart") for what, where in found[:8]]


def _cuda_policies(path: str) -> list[tuple[str, SourceLocation]]:
    """The cache-policy tokens of the CUDA source a `.py` file passes to `load_inline`."""
    from lowercheck.frontends import module

    if "cuda" not in module.engines(path):
        return []
    import clang.cindex as ci

    from lowercheck.frontends.cuda import parse

    try:
        tu = parse.translation_unit(path)
    except Exception:  # noqa: BLE001 - a source that does not parse: the differential runs said so
        return []
    found = []
    for token in tu.cursor.get_tokens():
        name = token.spelling
        if token.kind == ci.TokenKind.IDENTIFIER and name in _CUDA_IDENTIFIERS:
            what = name
        elif token.kind == ci.TokenKind.LITERAL and _PTX_POLICY in name:
            what = f"L2::{_PTX_POLICY}" if f"L2::{_PTX_POLICY}" in name else _PTX_POLICY
        else:
            continue
        found.append((what, parse.token_location(token, path)))
    return found


__all__ = ["cache_policies", "judge", "provenance", "run"]
