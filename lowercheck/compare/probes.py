"""Task probes: would the tolerance accept an output that does no work?

A reviewer scoping a task asks whether its check can tell a real kernel from a trivial one. Each
probe builds a trivial candidate for an output (zeros, a copy of the first input when it has as many
elements, the output's mean everywhere) and asks the judge whether it passes as the target's
output. The probes that pass become LC501 findings: softmax outputs in bf16 are below atol, so
zeros pass; with non-negative inputs ReLU is the identity, so a copy passes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

# A judge takes a candidate target output and says whether the tolerance accepts it: a bool, or an
# object with `passed` (and `specials_match`, if it has one) attributes: tolerance.Judgement.
Judge = Callable[[np.ndarray], Any]


@dataclass(frozen=True)
class Probe:
    """name: zeros | copy | mean. identical: the candidate equals the source output bit for bit
    (the inputs themselves make the output trivial, e.g. ReLU of non-negative values)."""

    name: str
    text: str
    identical: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "text": self.text, "identical": self.identical}


def candidates(source: np.ndarray, inputs: Sequence[np.ndarray]) -> list[tuple[Probe, np.ndarray]]:
    """The trivial outputs to try, in the output's shape and dtype."""
    found = [(Probe("zeros", "an output of zeros"), np.zeros(source.shape, dtype=source.dtype))]
    arrays = [np.asarray(x) for x in inputs if isinstance(x, np.ndarray)]
    if arrays and arrays[0].size == source.size:
        first = np.ascontiguousarray(arrays[0]).reshape(source.shape)
        with np.errstate(invalid="ignore", over="ignore"):
            found.append((Probe("copy", "a copy of the first input"), first.astype(source.dtype)))
    values = np.asarray(source, dtype=np.float64)
    finite = values[np.isfinite(values)]
    if finite.size:
        mean = float(finite.mean())
        with np.errstate(invalid="ignore", over="ignore"):
            filled = np.full(source.shape, mean).astype(source.dtype)
        found.append((Probe("mean", f"the output's mean ({mean:.4g}) everywhere"), filled))
    return found


def trivial_outputs(source: np.ndarray, inputs: Sequence[np.ndarray], judge: Judge) -> list[Probe]:
    """The probes whose candidate the judge accepts (none for an empty output)."""
    source = np.asarray(source)
    if source.size == 0:
        return []
    passed = []
    for probe, candidate in candidates(source, inputs):
        verdict = judge(candidate)
        if bool(getattr(verdict, "passed", verdict)) and bool(getattr(verdict, "specials_match", True)):
            identical = candidate.tobytes() == np.ascontiguousarray(source).tobytes()
            passed.append(Probe(probe.name, probe.text, identical))
    return passed
