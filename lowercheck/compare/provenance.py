"""Dependences observed in runs: which input elements each output element changes with, where no
static map is exact (LC204 "observed at sizes ...", never "proved").

A side is a black box here (the SIMT emulator, Triton's interpreter, Pallas interpret mode and a
PyTorch reference all answer the same way): an output element depends on an input element when
replacing that input element, all else equal, changes it. One run per input element would cost
too much, so the elements are replaced a slice at a time: group (d, c) holds the elements whose
coordinate along dimension d is c (sum of the extents runs per input, not their product). An
output element's *signature* is the set of slices whose replacement changes it: per dimension,
the projection of the elements it depends on, exactly (a reduction that drops its row's last
column misses one slice); two sides that compute the same function have the same signatures, and
the product of the projections bounds the elements it depends on (its hull).

Each group's elements are replaced by values well outside the run's draw (`REPLACEMENT`), distinct
per element, so that no group is a pure shift or scale of a row (softmax and layer norm are
invariant to those). A change is decided against the side's own noise, measured by two clean runs
with different block and atomic orders: an output element that does not depend on the group is
bit-identical on a deterministic side; one that does moves far. What lies between is undecided and
is never compared.

A difference of signatures is only a candidate: the finding needs a witness, one input element
whose replacement alone changes the output element on one side and leaves it unchanged on the
other, and makes the two sides' values differ (`confirmed`). Without one nothing is reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lowercheck.compare.tolerance import dtype_name, is_float, unit_roundoff

CHANGED, UNCHANGED, UNDECIDED = 1, 0, -1
# Replacement values: max|x| of the input plus REPLACEMENT[0] + REPLACEMENT[1] * u, u in [0, 1)
# distinct per element: far outside a normal draw, finite in fp16 after exp (e^12 < 65504 * 3).
REPLACEMENT = (6.0, 4.0)
MAX_CANDIDATES = 16  # single-element runs tried for one candidate difference


@dataclass(frozen=True)
class Group:
    """The elements of an input whose coordinate along `dim` is `coordinate`: one slice."""

    dim: int
    coordinate: int

    def mask(self, shape: Sequence[int]) -> np.ndarray:
        coordinate = np.arange(shape[self.dim]).reshape([-1 if d == self.dim else 1 for d in range(len(shape))])
        return np.broadcast_to(coordinate == self.coordinate, tuple(shape))


def groups(shape: Sequence[int]) -> list[Group]:
    """One group per coordinate of each dimension (none for a dimension of one)."""
    return [Group(d, c) for d, extent in enumerate(shape) if extent > 1 for c in range(extent)]


def runs_needed(shapes: Sequence[Sequence[int]]) -> int:
    return sum(len(groups(shape)) for shape in shapes)


def replaced(array: np.ndarray, shape: Sequence[int], mask: np.ndarray, seed: int) -> np.ndarray:
    """A copy of `array` (flat or in `shape`) with the elements under `mask` replaced, distinct per
    element, by values far outside the array's own."""
    out = np.array(array, copy=True)
    view = out.reshape(tuple(shape))
    wide = view.astype(np.float64)
    finite = np.abs(wide[np.isfinite(wide)])
    top = float(finite.max()) if finite.size else 0.0
    rng = np.random.default_rng(seed)
    values = top + REPLACEMENT[0] + REPLACEMENT[1] * rng.random(int(mask.sum()))
    view[mask] = values.astype(view.dtype)
    return out


def _difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| elementwise in float64; NaN against NaN (or the same infinity) is 0, NaN against a
    number is infinite."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.abs(a - b)
    same = (np.isnan(a) & np.isnan(b)) | (a == b)
    d[same] = 0.0
    d[np.isnan(d)] = np.inf
    return d


@dataclass
class Noise:
    """What a side's output element is, and how far it moves without any change of input."""

    base: np.ndarray  # float64, the output in its logical shape
    noise: np.ndarray  # |base - the same run with other block and atomic orders|
    eps: float  # the output type's epsilon (0 for integers: any change is one)

    @classmethod
    def of(cls, base: np.ndarray, again: np.ndarray) -> Noise:
        name = dtype_name(np.asarray(base))
        eps = 2 * unit_roundoff(name) if is_float(name) else 0.0
        return cls(np.asarray(base, dtype=np.float64), _difference(base, again), eps)

    def low(self) -> np.ndarray:
        return 2 * self.noise

    def high(self) -> np.ndarray:
        if self.eps == 0.0:
            return np.maximum(16 * self.noise, 0.5)
        finite = np.abs(self.base[np.isfinite(self.base)])
        scale = float(finite.max()) if finite.size else 1.0
        magnitude = np.where(np.isfinite(self.base), np.abs(self.base), scale) + 1e-3 * max(scale, 1e-30)
        return 64 * self.eps * magnitude + 16 * self.noise

    def classify(self, after: np.ndarray) -> np.ndarray:
        """CHANGED, UNCHANGED or UNDECIDED per output element."""
        d = _difference(self.base, np.asarray(after, dtype=np.float64).reshape(self.base.shape))
        out = np.full(d.shape, UNDECIDED, dtype=np.int8)
        out[d <= self.low()] = UNCHANGED
        out[d > self.high()] = CHANGED
        return out


def signature(noise: Noise, perturbed: Sequence[np.ndarray]) -> np.ndarray:
    """[output elements, groups]: how each output element answered each group's perturbation."""
    return np.stack([noise.classify(after).ravel() for after in perturbed], axis=1) if perturbed else \
        np.zeros((noise.base.size, 0), dtype=np.int8)


def candidates(source: np.ndarray, target: np.ndarray) -> list[tuple[int, int, str]]:
    """(output element, group, the side it changed on) where one side changed and the other is
    unchanged; undecided answers are never compared."""
    found = []
    for side, mine, other in (("source", source, target), ("target", target, source)):
        outs, gs = np.nonzero((mine == CHANGED) & (other == UNCHANGED))
        found += [(int(o), int(g), side) for o, g in zip(outs, gs)]
    return sorted(found)


def projections(row: np.ndarray, group_list: Sequence[Group], shape: Sequence[int]) -> list[np.ndarray]:
    """Per dimension, the coordinates an output element changes with (its signature `row`); every
    coordinate of a dimension of one, and of one whose slices left it undecided."""
    found = [np.zeros(extent, dtype=bool) for extent in shape]
    undecided = [extent == 1 for extent in shape]
    for answer, group in zip(row, group_list):
        found[group.dim][group.coordinate] |= answer == CHANGED
        undecided[group.dim] |= answer == UNDECIDED
    return [np.ones(extent, dtype=bool) if undecided[d] else found[d] for d, extent in enumerate(shape)]


def hull(row: np.ndarray, group_list: Sequence[Group], shape: Sequence[int]) -> np.ndarray:
    """The input elements an output element can depend on: the product of its projections."""
    keep = np.ones(tuple(shape), dtype=bool)
    for d, along in enumerate(projections(row, group_list, shape)):
        keep &= along.reshape([-1 if k == d else 1 for k in range(len(shape))])
    return keep


def depends_on_nothing(row: np.ndarray) -> bool:
    return bool(row.size) and bool(np.all(row == UNCHANGED))


def pick(elements: np.ndarray, count: int = MAX_CANDIDATES) -> list[int]:
    """Up to `count` flat indices of the true elements of `elements`, spread evenly."""
    flat = np.flatnonzero(elements.ravel())
    if flat.size <= count:
        return [int(i) for i in flat]
    return [int(flat[round(k * (flat.size - 1) / (count - 1))]) for k in range(count)]


def confirmed(src: Noise, tgt: Noise, src_after: np.ndarray, tgt_after: np.ndarray, output: int,
              reader: str) -> bool:
    """A single-element replacement is a witness when it changes output element `output` on
    `reader`, leaves it unchanged on the other side, and the two sides' values there then differ
    by more than either side's threshold and more than they did before."""
    s_class = int(src.classify(src_after).ravel()[output])
    t_class = int(tgt.classify(tgt_after).ravel()[output])
    if (s_class, t_class) != ((CHANGED, UNCHANGED) if reader == "source" else (UNCHANGED, CHANGED)):
        return False
    before = float(_difference(src.base.ravel()[output:output + 1], tgt.base.ravel()[output:output + 1])[0])
    after = float(_difference(np.asarray(src_after, dtype=np.float64).ravel()[output:output + 1],
                              np.asarray(tgt_after, dtype=np.float64).ravel()[output:output + 1])[0])
    threshold = max(float(src.high().ravel()[output]), float(tgt.high().ravel()[output]))
    return after > threshold and after > 16 * before


def words(signatures: np.ndarray, group_list: Sequence[Group], out_shape: Sequence[int],
          in_shape: Sequence[int], output: str, input_name: str) -> str:
    """The observed dependence in words, per input dimension: `*` (every coordinate), `iK` (the
    output's K-th coordinate), `0 .. iK` (up to it), `a .. b` (the same coordinates for every
    output element), `?` (something else); "does not change with"
    when no output element changes with the input."""
    rows = [(row, coords) for row, coords in zip(signatures, np.ndindex(*out_shape) if out_shape else [()])
            if not depends_on_nothing(row)]
    if not rows:
        return f"{output} does not change with {input_name}"
    per_dim = []
    for dim, extent in enumerate(in_shape):
        forms = {"*": True, **{f"i{k}": True for k in range(len(out_shape))},
                 **{f"0 .. i{k}": True for k in range(len(out_shape))}}
        for row, coords in rows:
            along = projections(row, group_list, in_shape)[dim]
            forms["*"] &= bool(along.all())
            for k, c in enumerate(coords):
                forms[f"i{k}"] &= bool(along.sum() == 1 and c < extent and along[c])
                forms[f"0 .. i{k}"] &= bool(along.sum() == min(c + 1, extent) and along[:c + 1].all())
        spans = {_span(projections(row, group_list, in_shape)[dim]) for row, _ in rows}
        fixed = f"{spans.pop()}" if len(spans) == 1 and None not in spans else "?"
        per_dim.append("0" if extent == 1 else next((form for form, holds in forms.items() if holds), fixed))
    index = ", ".join(f"i{k}" for k in range(len(out_shape)))
    return f"{output}[{index}] changes with {input_name}[{', '.join(per_dim)}]"


def _span(along: np.ndarray) -> str | None:
    """`a .. b` (or `a`) when the coordinates are one contiguous run, else None."""
    found = np.flatnonzero(along)
    if found.size == 0 or found[-1] - found[0] + 1 != found.size:
        return None
    return f"{found[0]}" if found.size == 1 else f"{found[0]} .. {found[-1]}"


def perturbable(array: object) -> bool:
    """Whether an argument is a floating-point tensor (integer inputs are indices or labels: not
    perturbed)."""
    return isinstance(array, np.ndarray) and is_float(dtype_name(array))
