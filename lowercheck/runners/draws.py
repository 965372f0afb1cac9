"""Input buffers as recipes: lowercheck's own process never makes a run's inputs.

`lowercheck.arguments` plans each buffer argument of a run as a `Draw` (shape, dtype, input kind,
seed and key, the spec's value range, a poison or zero fill, a perturbation of some elements), and
the sandboxed child makes it (`make`) under the run's memory limit: a legal but huge size costs the
child its limit, never lowercheck its process (issue: inputs made in the parent got it killed by
the kernel's OOM killer). The same recipe makes the same values on both sides.

What the parent needs to know about the inputs comes back as plain facts (`facts`): whether the
run changed an input (LC306), the largest finite magnitude (a transcendental's argument bound),
whether an input held NaN or an infinity, and the value a perturbation put in (the observed
dependences' witness).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from lowercheck.compare.tolerance import is_float_array

# `RunRequest.options` key: keep the run's checked inputs among its outputs (the trivial-output probes
# compare against them); without it they are checked in the child and left out of the result.
KEEP_INPUTS = "keep_inputs"
FACTS = "inputs"  # `RunResult.facts` key of the input facts


@dataclass(frozen=True)
class Draw:
    """How the child makes one buffer argument (`compare.inputs.generate` from the run's seed, the
    input kind and the buffer's key, so `--seed` reproduces every input)."""

    shape: tuple[int, ...]
    dtype: str
    kind: str
    seed: int
    key: str  # the source's name of the buffer: both sides draw the same values
    bounds: tuple[int, int] | None = None  # an integer input's values folded into lo <= v < hi
    fill: str | None = None  # "zero" (an accumulator both sides add into) or "poison" (an output)
    flat: bool = False  # a CUDA side sees flat buffers, as C pointers are
    absolute: bool = False  # |values| (the float64 oracle's sum-|terms| run)
    check: bool = False  # an input of this side: checked unchanged after the run (LC306)
    # Elements replaced by values far outside the array's own (`provenance.replaced`): the
    # buffer's shape, the mask as `np.packbits` bytes, and the replacement's seed.
    perturb: tuple[tuple[int, ...], bytes, int] | None = None

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

    @property
    def nbytes(self) -> int:
        from lowercheck.compare.tolerance import np_dtype

        return self.size * np_dtype(self.dtype).itemsize

    def perturbed(self, shape: tuple[int, ...], mask: np.ndarray, seed: int) -> Draw:
        return replace(self, perturb=(tuple(shape), np.packbits(mask.ravel()).tobytes(), seed))

    def make(self) -> np.ndarray:
        from lowercheck.compare import inputs
        from lowercheck.runners import poison

        value = inputs.generate(self.kind, self.shape, self.dtype, self.seed, key=self.key)
        if self.bounds is not None:
            lo, hi = self.bounds
            value = np.full_like(value, lo) if hi <= lo else \
                (np.mod(value.astype(np.int64) - lo, hi - lo) + lo).astype(value.dtype)
        if self.fill == "zero":
            value[...] = 0
        elif self.fill == "poison":
            poison.fill(value)
        elif self.absolute and is_float_array(value):
            value = np.abs(value)
        if self.perturb is not None:
            from lowercheck.compare import provenance

            value = provenance.replaced(value, self.perturb[0], self._mask(), self.perturb[2])
        return value.ravel().copy() if self.flat else value

    def _mask(self) -> np.ndarray:
        shape = self.perturb[0]
        count = int(np.prod(shape, dtype=np.int64))
        bits = np.unpackbits(np.frombuffer(self.perturb[1], dtype=np.uint8), count=count)
        return bits.astype(bool).reshape(shape)


def made(args: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The arguments with every `Draw` made, and a copy of each checked input (to tell a change)."""
    out: dict[str, Any] = {}
    kept: dict[str, np.ndarray] = {}
    for name, value in args.items():
        if isinstance(value, Draw):
            array = value.make()
            if value.check or value.perturb is not None:
                kept[name] = array.copy()
            value = array
        out[name] = value
    return out, kept


def facts(args: Mapping[str, Any], kept: Mapping[str, np.ndarray], outputs: dict[str, np.ndarray],
          keep_inputs: bool) -> dict[str, dict[str, Any]]:
    """What the parent learns of each drawn input (`made`'s copies against the run's final values
    in `outputs`); the checked inputs leave `outputs` unless `keep_inputs`."""
    found: dict[str, dict[str, Any]] = {}
    for name, draw in args.items():
        if not isinstance(draw, Draw) or draw.fill is not None:
            continue
        entry: dict[str, Any] = {}
        original = kept.get(name)
        if original is not None and draw.check:
            entry.update(_magnitude(original))
            after = outputs.get(name)
            if after is not None:
                after = np.asarray(after)
                changed = ~same(original.ravel(), after.ravel()) if after.size == original.size \
                    else np.ones(original.size, dtype=bool)
                entry["changed"] = int(changed.sum())
                if entry["changed"]:
                    entry["first_changed"] = int(np.flatnonzero(changed)[0])
                if not keep_inputs:
                    del outputs[name]
        if draw.perturb is not None and original is not None:
            where = np.flatnonzero(draw._mask().ravel())
            if where.size:
                entry["replaced"] = float(np.asarray(original.ravel()[where[0]], dtype=np.float64))
        found[name] = entry
    return found


def _magnitude(values: np.ndarray) -> dict[str, Any]:
    """The largest finite |value| of a floating-point input, and whether it holds NaN or an infinity."""
    if not is_float_array(values):
        return {}
    wide = np.abs(values.astype(np.float64)).ravel()
    finite = np.isfinite(wide)
    return {"max_abs": float(wide[finite].max()) if finite.any() else None, "nonfinite": bool(not finite.all())}


def same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise equal by bits for floats (a NaN unchanged is unchanged, -0.0 is not 0.0), by
    value otherwise; `a`'s shape."""
    if is_float_array(a):
        return (_element_bytes(a) == _element_bytes(b.astype(a.dtype, copy=False))).all(-1)
    return a == b


def _element_bytes(a: np.ndarray) -> np.ndarray:
    """Each element's bytes along a new last axis (an empty or a 0-d array too)."""
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8).reshape(a.shape + (a.dtype.itemsize,))
