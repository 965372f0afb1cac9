"""The static cost model: what each side must move and compute, and the roofline floor on a target.

Per side, at the nominal sizes of the traffic estimate (`compare/traffic.py`): compulsory bytes
(distinct elements touched), requested bytes (every access instance), issued bytes (32-byte sectors
per warp request), the FLOPs the dataflow implies (`compare.numerics.dataflow_flops`: 2 x K per
output element fed by a dot of length K, 2 x K per row for a reduction a row of outputs shares, as
a norm's, and 1 per element besides: the same algorithm on both sides), the arithmetic intensity, and the
roofline floor `max(issued bytes / bandwidth, FLOPs / peak)` on a named target (`targets.py`). A
floor is a lower bound a kernel cannot beat, not a prediction; the ratio of the two sides' issued
bytes is the number a reviewer compares. Each launch's occupancy on the target's SMs
(`occupancy.py`) comes beside it, once the registers and shared memory are known.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lowercheck.perf.occupancy import Occupancy
from lowercheck.perf.targets import Target


@dataclass(frozen=True)
class SideCost:
    compulsory_bytes: int
    requested_bytes: int
    issued_bytes: int
    flops: int
    floor_s: float
    bound: str  # memory | compute

    @property
    def intensity(self) -> float:
        return self.flops / self.issued_bytes if self.issued_bytes else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"compulsory_bytes": self.compulsory_bytes, "requested_bytes": self.requested_bytes,
                "issued_bytes": self.issued_bytes, "flops": self.flops, "intensity": self.intensity,
                "floor_s": self.floor_s, "bound": self.bound}


@dataclass(frozen=True)
class CostComparison:
    target: Target
    target_key: str
    sizes: dict[str, int]
    dtype: str
    sides: dict[str, SideCost]
    # Per side, one entry per launch; a side missing here has no occupancy (and `occupancy_notes` why).
    occupancy: dict[str, tuple[Occupancy, ...]] = field(default_factory=dict)
    occupancy_notes: dict[str, str] = field(default_factory=dict)

    def with_occupancy(self, occupancy: Mapping[str, tuple[Occupancy, ...]],
                       notes: Mapping[str, str]) -> CostComparison:
        return dataclasses.replace(self, occupancy=dict(occupancy), occupancy_notes=dict(notes))

    @property
    def issued_ratio(self) -> float | None:
        s, t = self.sides.get("source"), self.sides.get("target")
        return t.issued_bytes / s.issued_bytes if s and t and s.issued_bytes else None

    def to_json(self) -> dict[str, Any]:
        return {"device": self.target_key, "device_name": self.target.name, "sizes": self.sizes, "dtype": self.dtype,
                "issued_ratio": self.issued_ratio, "summary": self.lines(),
                **{name: {**c.to_json(), "occupancy": [o.to_json() for o in self.occupancy.get(name, ())],
                          "occupancy_note": self.occupancy_notes.get(name)} for name, c in self.sides.items()}}

    def lines(self) -> list[str]:
        where = ", ".join(f"{k}={v}" for k, v in self.sizes.items())
        out = [f"cost model on {self.target.name} at {where} (a floor, not a prediction):"]
        for name, c in self.sides.items():
            out.append(f"  {name}: issues {_bytes(c.issued_bytes)} (requests {_bytes(c.requested_bytes)}, "
                       f"compulsory {_bytes(c.compulsory_bytes)}), {c.flops:,} FLOP, intensity {c.intensity:.2f} "
                       f"FLOP/B, floor {_time(c.floor_s)} ({c.bound}-bound)")
            for launch in self.occupancy.get(name, ()):
                out.append(f"    occupancy {launch.text()}")
            if name in self.occupancy_notes:
                out.append(f"    occupancy: {self.occupancy_notes[name]}")
        if self.issued_ratio is not None:
            out.append(f"  issued traffic target/source: {self.issued_ratio:.2f}x")
        return out


def side_cost(traffic: Mapping[str, Mapping[str, Any]], flops: int, target: Target, dtype: str) -> SideCost:
    """One side's cost from its traffic table (buffer -> BufferTraffic JSON) and FLOP count."""
    compulsory = sum(t["compulsory_bytes"] for t in traffic.values())
    requested = sum(t["requested_bytes"] for t in traffic.values())
    issued = sum(t["issued_bytes"] for t in traffic.values())
    memory_s = issued / target.hbm_bytes_per_s
    peak = target.peak_flops(dtype) or target.bf16_flops
    compute_s = flops / peak if peak else 0.0
    return SideCost(compulsory, requested, issued, flops, max(memory_s, compute_s),
                    "memory" if memory_s >= compute_s else "compute")


def _bytes(n: float) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{int(n)} B"


def _time(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


__all__ = ["CostComparison", "SideCost", "side_cost"]
