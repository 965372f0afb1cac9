"""`lowercheck bench SOURCE TARGET`: the static comparison always; a timing only where a CUDA device
runs both sides natively, in this process, alternating (`harness.measure`).

Emulator and interpreter times are never presented as kernel performance: without a CUDA device the
command says so and shows the static cost model. A baseline timed elsewhere (`--baseline-json`) is
refused unless its recorded device, driver, clocks and software are this machine's (`environment.py`).
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lowercheck.errors import UserError
from lowercheck.findings import Finding, Severity
from lowercheck.perf.detectors import check_caching, check_result
from lowercheck.perf.device import Device
from lowercheck.perf.environment import Environment, check_baseline, load_baseline
from lowercheck.perf.harness import BenchOptions, BenchResult, measure
from lowercheck.perf.native import NativePair, NativeUnavailable, native_pair
from lowercheck.perf.occupancy import Occupancy
from lowercheck.perf.targets import target_for_device

NO_DEVICE = ("no timing taken: this machine has no CUDA device (torch.cuda.is_available() is False). lowercheck's "
             "CPU runs (the SIMT emulator, the Triton and Pallas interpreters) say nothing about kernel speed, so "
             "none is shown; the static comparison above is what can be said here.")


@dataclass
class Timing:
    """What a native benchmark found: the measurement, its findings, and how it was taken."""

    environment: Environment
    sizes: dict[str, int]
    result: BenchResult | None
    findings: list[Finding]
    notes: list[str]
    occupancy: dict[str, list[Occupancy]] = field(default_factory=dict)  # Triton kernels as compiled here

    def to_json(self) -> dict[str, Any]:
        return {"environment": self.environment.to_json(), "sizes": self.sizes,
                "result": self.result.to_json() if self.result else None,
                "findings": [f.to_json() for f in self.findings], "notes": self.notes,
                "occupancy": {side: [o.to_json() for o in found] for side, found in self.occupancy.items()}}


def time_pair(device: Device, pair: NativePair, options: BenchOptions, sizes: dict[str, int]) -> Timing:
    """LC403 (the target's outputs must follow its inputs), then the paired measurement and its
    LC401/LC402 findings against the device's ceilings (when the table knows the device)."""
    notes = list(pair.notes)
    findings = check_caching(pair.target, pair.make_inputs, reference=pair.source)
    device.synchronize()
    result = measure(device, pair.source, pair.target, pair.make_inputs, options)
    ceilings = target_for_device(device.name)
    if ceilings is None:
        notes.append(f"no datasheet ceilings for {device.name}: the bandwidth check (LC402) was skipped")
    findings += check_result(result, ceilings, bytes_moved=pair.bytes_moved)
    compiled = pair.compiled_occupancy(ceilings.sm) if ceilings is not None and ceilings.sm is not None else {}
    return Timing(device.environment(), dict(sizes), result, findings, notes + list(result.notes), compiled)


def timing_sizes(spec_sweep: list[dict[str, int]], nominal: dict[str, int]) -> tuple[dict[str, int], str | None]:
    """The sizes to time at: the largest binding the user gave, else the cost model's nominal sizes
    (with a warning: a tiny kernel's time is mostly launch overhead)."""
    if spec_sweep:
        return max(spec_sweep, key=lambda b: sum(b.values())), None
    return dict(nominal), (f"no sizes given: timed at the cost model's nominal sizes "
                           f"({', '.join(f'{k}={v}' for k, v in nominal.items())}), where launch overhead can "
                           "dominate; give --size for a realistic problem")


def run(source: str, target: str, spec: Any, gpu: str, json_path: str | None, baseline_json: str | None,
        budget_s: float, console: Any) -> int:
    """The `bench` command. Exit 0, or 1 when the timing has an error finding (LC402, LC403); a
    refused baseline is exit 2 (UserError)."""
    from lowercheck.diff import DiffOptions, diff
    from lowercheck.perf.device import open_cuda_device
    from lowercheck.report.terminal import render_finding

    recorded = load_baseline(baseline_json) if baseline_json else None
    device = open_cuda_device()
    if recorded is not None:  # refuse before spending minutes on a timing
        check_baseline(baseline_json, recorded[0], device.environment() if device else None)

    report = diff(DiffOptions(source, target, spec, run=False, static=True, gpu=gpu))
    console.print(f"static verdict of the pair: {report.verdict} (`lowercheck diff` for the findings)")
    for line in report.cost.lines() if report.cost is not None else ["no cost model: the static checks had no "
                                                                     "concrete relations"]:
        console.print(line)
    document = report.to_json()
    exit_code = 0
    if device is None:
        console.print(NO_DEVICE)
        document["bench"] = {"environment": None, "result": None, "reason": NO_DEVICE}
    else:
        sizes, warning = timing_sizes(spec.sweep() if spec.sizes else [], report.traffic_sizes)
        try:
            timing = _native_timing(device, report, sizes, budget_s)
        except NativeUnavailable as why:
            console.print(f"no timing taken: {why}")
            document["bench"] = {"environment": device.environment().to_json(), "result": None, "reason": str(why)}
        else:
            if warning:
                timing.notes.insert(0, warning)
            for note in timing.notes:
                console.print(f"  note: {note}")
            for side, found in timing.occupancy.items():
                for launch in found:
                    console.print(f"  {side} occupancy as compiled here: {launch.text()}")
            for finding in timing.findings:
                console.print(render_finding(finding))
            if recorded is not None:
                console.print(f"baseline {baseline_json}: timed in this environment; recorded ratio "
                              f"{recorded[1].get('ratio')}, now {timing.result.ratio if timing.result else None}")
            document["bench"] = timing.to_json()
            if any(f.level == Severity.ERROR for f in timing.findings):
                exit_code = 1
    if json_path:
        Path(json_path).write_text(json.dumps(document, indent=2, default=str) + "\n")
    return exit_code


def _native_timing(device: Any, report: Any, sizes: dict[str, int], budget_s: float) -> Timing:
    import torch

    if not sizes:
        raise NativeUnavailable("no sizes to time at (the static checks gave none): give --size")
    arch = "sm_" + device.compute_capability.replace(".", "")
    with tempfile.TemporaryDirectory(prefix="lowercheck-native-") as folder:
        pair = native_pair(report, sizes, seed=0, arch=arch, folder=folder,
                           to_device=lambda a: torch.from_numpy(a).to(f"cuda:{device.index}"))
        return time_pair(device, pair, BenchOptions(budget_s=budget_s), sizes)


def check_budget(budget_s: float) -> float:
    if not budget_s > 0:
        raise UserError(f"--budget must be positive, got {budget_s}")
    return budget_s


__all__ = ["NO_DEVICE", "Timing", "check_budget", "run", "time_pair", "timing_sizes"]
