"""Validity: will the task compile and run on the hardware it names?

LC641 and LC645 read the reference's trace on meta tensors (sizes and dtypes, nothing allocated);
LC642 and LC644 compile the task's CUDA and Triton code for the target (`lowercheck.audit.compile`);
the task's own solution, when it has one, is diffed against the reference (`lowercheck diff`), and
the diff's errors (launch limits LC102, block shapes LC103, wrong results) are the task's too.
"""

from __future__ import annotations

from lowercheck.audit.checks import Context, NotChecked, check
from lowercheck.findings import Evidence, Finding, Severity
from lowercheck.perf.cost import _bytes

FP8 = ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu")


@check("LC641", "validity", "the task against the target's memory")
def memory(context: Context) -> list[Finding]:
    meta, target = context.probe.meta, context.target
    if not meta or meta.get("error"):
        raise NotChecked(f"the reference's sizes are unknown: {meta.get('error', 'it did not run')}")
    if target.memory_bytes is None:
        raise NotChecked(f"no memory size for {target.name}")
    footprint = meta["input_bytes"] + meta["param_bytes"] + meta["output_bytes"] + meta["largest_intermediate"]
    if footprint <= target.memory_bytes:
        return []
    return [Finding("LC641", f"one call needs at least {_bytes(footprint)} (inputs {_bytes(meta['input_bytes'])}, "
                             f"parameters {_bytes(meta['param_bytes'])}, outputs {_bytes(meta['output_bytes'])}, largest "
                             f"intermediate {_bytes(meta['largest_intermediate'])}): more than the {target.name}'s "
                             f"{_bytes(target.memory_bytes)}",
                    location=context.task.location("reference"), witness={"bytes": footprint, "memory": target.memory_bytes},
                    hint="smaller sizes, or a target with more memory", evidence=Evidence.MEASURED)]


def _compiled(context: Context) -> tuple[list[Finding], list[str]]:
    if "compile" not in context.extra:
        try:
            from lowercheck.audit import compile as compiling
        except ImportError as err:  # pragma: no cover - the module ships with lowercheck
            raise NotChecked(f"the compile checks are not available: {err}") from None
        sources = [("reference", context.task.reference)]
        if context.task.solution is not None:
            sources.append(("solution", context.task.solution))
        context.extra["compile"] = compiling.check(sources, context.task.target)
    return context.extra["compile"]  # type: ignore[return-value]


def _compile_findings(context: Context, code: str) -> list[Finding]:
    findings, notes = _compiled(context)
    mine = [f for f in findings if f.code == code]
    if not findings and notes and all("nothing to compile" in n or "not compiled by this check" in n for n in notes):
        raise NotChecked("; ".join(notes))  # PyTorch and Pallas files only: nothing was compiled
    return mine


@check("LC642", "validity", "the task's code compiled for the target")
def compiles(context: Context) -> list[Finding]:
    return _compile_findings(context, "LC642")


@check("LC644", "validity", "autotuning configs against the target")
def autotune_configs(context: Context) -> list[Finding]:
    return _compile_findings(context, "LC644")


@check("LC645", "validity", "dtypes the target lacks")
def missing_dtypes(context: Context) -> list[Finding]:
    meta, target = context.probe.meta, context.target
    if not meta or meta.get("error"):
        raise NotChecked(f"the reference's dtypes are unknown: {meta.get('error', 'it did not run')}")
    dtypes = set(meta.get("dtypes", ()))
    lacking = []
    if target.tpu_device_kind and "float64" in dtypes:
        lacking.append(("float64", "TPUs have no float64 arithmetic (JAX computes it in float32 or refuses)"))
    capability = float(target.sm.compute_capability) if target.sm else None
    fp8 = sorted(dtypes & set(FP8))
    if fp8 and (target.tpu_device_kind or (capability is not None and capability < 8.9)):
        lacking.append((fp8[0], "fp8 arithmetic needs compute capability 8.9 (Ada) or later"))
    if "bfloat16" in dtypes and capability is not None and capability < 8.0:
        lacking.append(("bfloat16", "bf16 arithmetic needs compute capability 8.0 or later"))
    return [Finding("LC645", f"the reference computes in {dtype}, which the {target.name} lacks: {why}",
                    location=context.task.location("target"), witness={"dtype": dtype, "target": context.task.target},
                    hint="choose a target with the dtype, or a dtype the target has", evidence=Evidence.OBSERVED)
            for dtype, why in lacking]


@check("diff", "validity", "the task's solution against its reference")
def solution_diff(context: Context) -> list[Finding]:
    """`lowercheck diff reference solution`: its findings that are errors or inconclusive."""
    task = context.task
    if task.solution is None:
        raise NotChecked("the task has no solution to diff")
    if task.solution.suffix not in (".py", ".cu", ".cuh"):
        raise NotChecked(f"{task.solution.name}: lowercheck diffs CUDA, Triton and Pallas files")
    from lowercheck.diff import DiffOptions, diff
    from lowercheck.errors import LowercheckError
    from lowercheck.spec import Spec

    try:
        tpu = context.target.tpu_device_kind is not None  # a migration to a TPU: the Pallas side lowered there
        report = diff(DiffOptions(str(task.reference), str(task.solution), Spec(), gpu=_gpu(task.target),
                                  platforms=(task.target,) if tpu else ()))
    except LowercheckError as err:
        if err.exit_code == 1:  # the solution's code stopped its worker: a finding about it
            return [Finding("LC902", f"the task's solution: {err.message}", side="target", location=err.location)]
        raise NotChecked(f"the diff could not run: {err.message}") from None
    context.extra["diff"] = report
    kept = [f for f in report.findings if f.level in (Severity.ERROR, Severity.INCONCLUSIVE)]
    if report.exit_code == 3 and not kept:
        raise NotChecked("the diff was inconclusive: " + "; ".join(report.notes[:2]))
    return kept


def _gpu(target: str) -> str:
    return target if target != "tpu-v5e" else "h100-sxm"
