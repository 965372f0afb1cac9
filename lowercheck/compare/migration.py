"""Migration checks: would a Pallas side lower, and fit, on the target it is headed for?

The facts come from the Pallas worker (`lowercheck.frontends.pallas.migrate`): every BlockSpec at
every swept size, whether `jax.export` lowered the entry for each platform (and the lowering's own
error when not), and for a GPU what Triton's compiler and ptxas report. This module judges them:

| platform | rule | code |
| --- | --- | --- |
| TPU | the last two block dims equal the array's or are divisible by 8 and 128 (rank 1: see `tpu_block_problem`) | LC103 |
| TPU | 2 x (sum of the input and output blocks' bytes) + scratch <= the VMEM budget | LC102 |
| GPU (Pallas on Triton) | every block dim a power of two | LC103 |
| GPU | shared memory per block, registers per block | LC102 |
| both | any other refusal of the lowering | LC103 |

A platform named with `--platform` gives errors; the default check (the `--gpu` target, when no
platform is named) gives the same findings as warnings: the pair's verdict does not change for a
target nobody asked about.

Each rule is checked by us, so the finding names the BlockSpec, and by the real lowering, whose
message goes into the witness; a lowering failure our rules do not explain is reported on its own.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from lowercheck.compare.static import CheckVerdict
from lowercheck.errors import SourceLocation, UserError
from lowercheck.findings import Evidence, Finding, Severity
from lowercheck.perf import targets
from lowercheck.perf.targets import KIB, MIB, Target

# The TPU tiling of a 32-bit array: (sublanes, lanes) of one vector register. Mosaic's rule for block
# shapes (jax/_src/pallas/mosaic/lowering.py, `_check_block_mappings`) is stated in these numbers.
TPU_SUBLANES, TPU_LANES = 8, 128
# Pallas double-buffers every input and output block on a TPU (one block computes while the next
# is copied in): the pipeline's footprint is twice the blocks.
TPU_BUFFERS = 2


@dataclass(frozen=True)
class Platform:
    """A migration target: a `perf.targets` entry and how it is lowered."""

    name: str
    kind: str  # "tpu" | "gpu"
    target: Target
    explicit: bool  # named with --platform (else the default check of --gpu)

    def for_worker(self) -> dict[str, Any]:
        """What the Pallas worker needs to lower for this platform."""
        if self.kind == "tpu":
            return {"name": self.name, "kind": "tpu", "device_kind": self.target.tpu_device_kind}
        return {"name": self.name, "kind": "gpu", "capability": capability(self.target)}


def platforms(names: Sequence[str], default_gpu: str) -> list[Platform]:
    """The platforms to check: the named ones, else the `--gpu` target."""
    chosen = list(dict.fromkeys(names)) or [default_gpu]
    out = []
    for name in chosen:
        target = targets.get_target(name)
        kind = "tpu" if target.vmem_bytes is not None else "gpu"
        if kind == "tpu" and not target.tpu_device_kind:
            raise UserError(f"--platform {name}: no TPU device kind is known for it",
                            hint="add `tpu_device_kind` to its entry in lowercheck/perf/targets.py")
        out.append(Platform(name, kind, target, explicit=bool(names)))
    return out


def capability(target: Target) -> int:
    """The CUDA compute capability as Triton writes it (90 for 9.0); 90 when the table has none."""
    sm = getattr(target, "sm", None)
    text = getattr(sm, "compute_capability", None) or "9.0"
    major, minor = text.split(".")
    return int(major) * 10 + int(minor)


@dataclass
class MigrationResult:
    findings: list[Finding] = field(default_factory=list)
    checks: list[CheckVerdict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def judge(side: str, facts: Mapping[str, Any], chosen: Sequence[Platform]) -> MigrationResult:
    """Findings, one check verdict per rule and platform, and notes for one Pallas side."""
    result = MigrationResult()
    for platform in chosen:
        before = len(result.findings)
        if platform.kind == "tpu":
            _tpu(side, facts, platform, result)
        else:
            _gpu(side, facts, platform, result)
        if not platform.explicit:  # a platform nobody named: tell, but the pair's verdict stands
            result.findings[before:] = [replace(f, severity=Severity.WARNING) for f in result.findings[before:]]
    return result


# ---------------------------------------------------------------------------------------------
# Block shapes


def tpu_block_problem(block: Sequence[int], array: Sequence[int], itemsize: int) -> str | None:
    """Why Mosaic refuses this block shape, or None. Rank >= 2: each of the last two dims equals the
    array's or is a multiple of 8 (second-to-last) / 128 (last). Rank 1: the whole array, a multiple
    of 8 x 128, or a power of two of at least 128 x (32 bits / element bits)."""
    if not block:
        return "a block of rank 0 (a scalar) is not lowered"
    if len(block) >= 2:
        bad = []
        if not (block[-2] == array[-2] or block[-2] % TPU_SUBLANES == 0):
            bad.append(f"dim {len(block) - 2} is {block[-2]}: not {array[-2]} (the array's) nor a multiple of "
                       f"{TPU_SUBLANES}")
        if not (block[-1] == array[-1] or block[-1] % TPU_LANES == 0):
            bad.append(f"dim {len(block) - 1} is {block[-1]}: not {array[-1]} (the array's) nor a multiple of "
                       f"{TPU_LANES}")
        return "; ".join(bad) or None
    size, packing = block[0], max(1, 4 // max(1, itemsize))
    if size == array[0] or size % (TPU_SUBLANES * TPU_LANES) == 0 or (_pow2(size) and size >= TPU_LANES * packing):
        return None
    return (f"a rank-1 block of {size}: not {array[0]} (the array's), nor a multiple of {TPU_SUBLANES * TPU_LANES}, "
            f"nor a power of two of at least {TPU_LANES * packing}")


def gpu_block_problem(block: Sequence[int]) -> str | None:
    """Pallas on Triton lowers only arrays whose dims are powers of two."""
    bad = [f"dim {i} is {d}" for i, d in enumerate(block) if not _pow2(d)]
    return f"{', '.join(bad)}: not a power of two" if bad else None


def _pow2(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


def _in_vmem(block: Mapping[str, Any]) -> bool:
    space = str(block.get("memory_space", "default")).lower()
    return "default" in space or "vmem" in space


def _location(data: Mapping[str, Any] | None) -> SourceLocation | None:
    return SourceLocation(data["file"], data["line"], data.get("column", 0)) if data else None


def _shape(shape: Sequence[int]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _sizes(sizes: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sizes.items())


def _block_rule(side: str, facts: Mapping[str, Any], platform: Platform, result: MigrationResult,
                problem, rule: str, hint: str) -> set[str]:
    """LC103 per BlockSpec that breaks `problem`'s rule at some swept size; the sizes whose
    lowering failed and that these findings explain."""
    seen: set[tuple] = set()
    explained: set[str] = set()
    for record in facts["sizes"]:
        lowered = record["lowered"].get(platform.name, {})
        for call in record["calls"]:
            for block in call["blocks"]:
                if platform.kind == "tpu" and not _in_vmem(block):
                    continue
                why = problem(block)
                if why is None:
                    continue
                explained.add(_key(record["sizes"]))
                key = (block["buffer"], str(block.get("location")))
                if key in seen:
                    continue
                seen.add(key)
                witness: dict[str, Any] = {"sizes": record["sizes"], "platform": platform.name,
                                           "block": _shape(block["block"]), "array": _shape(block["array"]),
                                           "dtype": block["dtype"], "rule": rule}
                said = _lowering_about(lowered.get("error"), block["origin"])
                if said:
                    witness["lowering"] = said
                result.findings.append(Finding(
                    "LC103", f"the BlockSpec of `{block['buffer']}` ({block['origin']}) has block "
                    f"{_shape(block['block'])} over an array of {_shape(block['array'])}: {platform.name} cannot lower "
                    f"it ({why})", side=side, buffer=block["buffer"], location=_location(block["location"]),
                    witness=witness, hint=hint, evidence=str(Evidence.REFUTED)))
    return explained


def _lowering_about(error: str | None, origin: str) -> str | None:
    """The lowering's message when it is about this BlockSpec (Mosaic names the first one it
    refuses, `Block spec for args[0] ...`), shortened before the index_map's jaxpr."""
    if not error:
        return None
    text = error.splitlines()[0]
    named = re.search(r"Block spec for (\S+) ", text)
    if named and named.group(1) != origin:
        return None
    return text.split(" and index_map")[0][:400]


def _key(sizes: Mapping[str, int]) -> str:
    return _sizes(sizes)


def _lowering_failures(side: str, facts: Mapping[str, Any], platform: Platform, result: MigrationResult,
                       explained: set[str], how: str) -> list[str]:
    """LC103 for a lowering failure no block rule explains (an op the target has no lowering for)."""
    failed = []
    reported = False
    for record in facts["sizes"]:
        lowered = record["lowered"].get(platform.name, {})
        if lowered.get("ok", True):
            continue
        failed.append(_key(record["sizes"]))
        if _key(record["sizes"]) in explained or reported:
            continue
        reported = True
        call = record["calls"][0] if record["calls"] else {}
        message = lowered["error"].splitlines()[0][:300]
        result.findings.append(Finding(
            "LC103", f"`{call.get('kernel', 'the kernel')}` does not lower for {platform.name} ({how}): {message}",
            side=side, location=_location(lowered.get("location") or call.get("location")),
            witness={"sizes": record["sizes"], "platform": platform.name, "lowering": lowered["error"][:1000]},
            hint=f"rewrite what the {how} lowering refuses (the message names it), or check another platform",
            evidence=str(Evidence.REFUTED)))
    return failed


def _lowering_check(result: MigrationResult, facts: Mapping[str, Any], platform: Platform, how: str,
                    rule_title: str, failed: list[str], count_before: int) -> None:
    found = len(result.findings) - count_before
    total = len(facts["sizes"])
    if found:
        status = str(Evidence.REFUTED)
        detail = f"{found} finding(s); the lowering failed at {len(failed)} of {total} size(s)"
        result.notes.append(f"migration: does not lower for {platform.name} ({how}) at {len(failed) or 'some'} of "
                            f"{total} swept size(s)")
    else:
        status, detail = str(Evidence.SWEPT), f"lowered at all {total} swept size(s)"
        result.notes.append(f"migration: lowers for {platform.name} ({how}) at all {total} swept size(s)")
    result.checks.append(CheckVerdict("LC103", f"migration: {rule_title} for {platform.name} ({how})", status, detail))


# ---------------------------------------------------------------------------------------------
# TPU


def _tpu(side: str, facts: Mapping[str, Any], platform: Platform, result: MigrationResult) -> None:
    how = "jax.export, Mosaic"
    before = len(result.findings)
    explained = _block_rule(
        side, facts, platform, result,
        lambda b: tpu_block_problem(b["block"], b["array"], b["itemsize"]),
        f"the last two block dims equal the array's or are divisible by {TPU_SUBLANES} and {TPU_LANES}",
        f"make the last block dim a multiple of {TPU_LANES} and the one before a multiple of {TPU_SUBLANES} "
        "(e.g. (8, 128)), or the whole array dimension; mask the padding the larger block brings in")
    failed = _lowering_failures(side, facts, platform, result, explained, how)
    _lowering_check(result, facts, platform, how, "block shapes and ops lower", failed, before)
    _vmem(side, facts, platform, result)


def _vmem(side: str, facts: Mapping[str, Any], platform: Platform, result: MigrationResult) -> None:
    """LC102 when the double-buffered blocks and the scratch exceed the VMEM budget: the kernel's
    `vmem_limit_bytes` if it sets one, else the chip's default scoped limit."""
    target = platform.target
    physical = target.vmem_bytes or 0
    worst: tuple[int, int, Mapping[str, Any], Mapping[str, Any]] | None = None  # (bytes, budget, record, call)
    reported: set[str] = set()
    before = len(result.findings)
    for record in facts["sizes"]:
        for call in record["calls"]:
            blocks = [b for b in call["blocks"] if _in_vmem(b)]
            footprint = TPU_BUFFERS * sum(math.prod(b["block"]) * b["itemsize"] for b in blocks) + \
                sum(s["bytes"] for s in call["scratch"])
            budget = min(call["vmem_limit_bytes"] or target.vmem_scoped_bytes or physical, physical or 1 << 62)
            if worst is None or footprint > worst[0]:
                worst = (footprint, budget, record, call)
            if footprint <= budget or not blocks or call["kernel"] in reported:
                continue
            reported.add(call["kernel"])
            largest = max(blocks, key=lambda b: math.prod(b["block"]) * b["itemsize"])
            limit = "its vmem_limit_bytes" if call["vmem_limit_bytes"] else \
                f"{platform.name}'s default scoped VMEM limit"
            grow = f"or raise the limit with pltpu.CompilerParams(vmem_limit_bytes=...) up to {_bytes(physical)} " \
                   "(the physical VMEM)" if footprint <= physical else f"(it exceeds the physical {_bytes(physical)} " \
                                                                       "of VMEM, so no limit helps)"
            result.findings.append(Finding(
                "LC102", f"`{call['kernel']}` needs {_bytes(footprint)} of VMEM ({TPU_BUFFERS} x the blocks of "
                f"{', '.join('`' + b['buffer'] + '`' for b in blocks)}"
                + (" + scratch" if call["scratch"] else "") + f"), more than {limit} of {_bytes(budget)}",
                side=side, buffer=largest["buffer"], location=_location(largest["location"]),
                witness={"sizes": record["sizes"], "platform": platform.name,
                         "blocks": ", ".join(f"{b['buffer']} {_shape(b['block'])} {b['dtype']} = "
                                             f"{_bytes(math.prod(b['block']) * b['itemsize'])}" for b in blocks),
                         "vmem_bytes": footprint, "budget_bytes": budget, "physical_bytes": physical},
                hint=f"use smaller blocks (this BlockSpec's is the largest) {grow}",
                evidence=str(Evidence.REFUTED)))
    title = f"migration: double-buffered blocks fit {platform.name}'s VMEM"
    if len(result.findings) > before:
        result.checks.append(CheckVerdict("LC102", title, str(Evidence.REFUTED),
                                          f"{len(result.findings) - before} finding(s)"))
    elif worst is not None:
        detail = f"at most {_bytes(worst[0])} of {_bytes(worst[1])} ({_sizes(worst[2]['sizes'])})"
        result.checks.append(CheckVerdict("LC102", title, str(Evidence.SWEPT), detail))
        result.notes.append(f"migration: VMEM on {platform.name}: {detail}, {TPU_BUFFERS} x blocks + scratch")


# ---------------------------------------------------------------------------------------------
# GPU (Pallas on Triton)


def _gpu(side: str, facts: Mapping[str, Any], platform: Platform, result: MigrationResult) -> None:
    how = "jax.export, Pallas on Triton"
    before = len(result.findings)
    explained = _block_rule(
        side, facts, platform, result, lambda b: gpu_block_problem(b["block"]),
        "every block dim is a power of two",
        "round the block up to the next power of two and mask the extra elements (a load with "
        "`mask=`/`other=`, or `jnp.where` on an iota before a reduction)")
    failed = _lowering_failures(side, facts, platform, result, explained, how)
    _lowering_check(result, facts, platform, how, "block shapes and ops lower", failed, before)
    _gpu_resources(side, facts, platform, result)


def _gpu_resources(side: str, facts: Mapping[str, Any], platform: Platform, result: MigrationResult) -> None:
    """LC102 for shared memory or registers past the target's per-block limits (Triton's compile and
    ptxas, at the largest swept size)."""
    compiled = facts.get("compiled", {}).get(platform.name)
    title = f"migration: shared memory and registers within {platform.name}'s limits (Triton compile, ptxas)"
    if not compiled or "skipped" in compiled:
        why = (compiled or {}).get("skipped", "not compiled")
        result.checks.append(CheckVerdict("LC102", title, str(Evidence.UNSUPPORTED), why))
        result.notes.append(f"migration: shared memory and registers on {platform.name} not checked: {why}")
        return
    target = platform.target
    sm = getattr(target, "sm", None)
    smem_limit = getattr(sm, "max_smem_per_block", None) or target.smem_per_sm
    registers_limit = getattr(sm, "registers_per_sm", None) or target.registers_per_sm
    where = facts["sizes"][-1]["calls"][0].get("location") if facts["sizes"] and facts["sizes"][-1]["calls"] else None
    sizes = compiled.get("sizes", {})
    before = len(result.findings)
    said = []
    for kernel in compiled["kernels"]:
        if "skipped" in kernel:
            said.append(f"{kernel['name']}: {kernel['skipped']}")
            continue
        threads = kernel["num_warps"] * 32
        shared = kernel.get("shared_bytes", 0)
        line = f"{kernel['name']}: {_bytes(shared)} shared, {kernel['num_warps']} warps"
        if smem_limit and shared > smem_limit:
            result.findings.append(Finding(
                "LC102", f"`{kernel['name']}` needs {_bytes(shared)} of shared memory per block on {platform.name}, "
                f"more than its {_bytes(smem_limit)}", side=side, location=_location(where),
                witness={"sizes": sizes, "platform": platform.name, "shared_bytes": shared, "limit_bytes": smem_limit,
                         "num_warps": kernel["num_warps"], "num_stages": kernel["num_stages"]},
                hint="use smaller blocks, or fewer pipeline stages (`num_stages` in the Triton compiler params)",
                evidence=str(Evidence.MEASURED)))
        if "registers" in kernel:
            line += f", {kernel['registers']} registers/thread, {kernel.get('spill_bytes', 0)} B spilled"
            if registers_limit and kernel["registers"] * threads > registers_limit:
                result.findings.append(Finding(
                    "LC102", f"`{kernel['name']}` needs {kernel['registers']} registers x {threads} threads = "
                    f"{kernel['registers'] * threads} per block on {platform.name}, more than its {registers_limit}",
                    side=side, location=_location(where),
                    witness={"sizes": sizes, "platform": platform.name, "registers": kernel["registers"],
                             "threads": threads, "limit": registers_limit},
                    hint="use smaller blocks or fewer warps (`num_warps`)", evidence=str(Evidence.MEASURED)))
        else:
            line += f", registers not checked ({kernel.get('registers_skipped', 'no ptxas')})"
        said.append(line)
    result.notes.append(f"migration: on {platform.name} at {_sizes(sizes)} (Triton for sm_{capability(target)}): "
                        + "; ".join(said))
    found = len(result.findings) - before
    result.checks.append(CheckVerdict("LC102", title, str(Evidence.REFUTED if found else Evidence.MEASURED),
                                      f"{found} finding(s)" if found else f"at {_sizes(sizes)}"))


def _bytes(value: int) -> str:
    if value >= MIB:
        return f"{value / MIB:.4g} MiB"
    if value >= KIB:
        return f"{value / KIB:.4g} KiB"
    return f"{value} B"
