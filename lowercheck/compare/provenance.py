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
the product of the projections bounds the elements it depends on (its hull). A dimension longer
than SLICED is replaced by the bits of its coordinates instead (group (d, b, v): bit b is v; twice
its bits in runs), which bounds the projection by the coordinates whose bits agree, and by the
slices at its two ends, where tails and boundaries are, exactly.

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


SLICED = 32  # a dimension up to this extent is replaced one slice per coordinate
EDGES = 2  # a longer one by the bits of its coordinates, and one slice per coordinate at each end


@dataclass(frozen=True)
class Group:
    """The elements of an input whose coordinate along `dim` is `coordinate` (a slice), or, when
    `bit` is set, whose coordinate along `dim` has bit `bit` equal to `coordinate` (0 or 1)."""

    dim: int
    coordinate: int
    bit: int | None = None

    def mask(self, shape: Sequence[int]) -> np.ndarray:
        along = np.arange(shape[self.dim]).reshape([-1 if d == self.dim else 1 for d in range(len(shape))])
        chosen = along == self.coordinate if self.bit is None else ((along >> self.bit) & 1) == self.coordinate
        return np.broadcast_to(chosen, tuple(shape))


def groups(shape: Sequence[int]) -> list[Group]:
    """Per dimension longer than one: a slice per coordinate up to SLICED; beyond, two groups per
    bit of the coordinates and the EDGES first and last slices (where tails and boundaries are)."""
    found = []
    for d, extent in enumerate(shape):
        if extent <= 1:
            continue
        if extent <= SLICED:
            found += [Group(d, c) for c in range(extent)]
            continue
        found += [Group(d, v, b) for b in range(int(extent - 1).bit_length()) for v in (0, 1)]
        found += [Group(d, c) for c in (*range(EDGES), *range(extent - EDGES, extent))]
    return found


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


def candidates(source: np.ndarray, target: np.ndarray, limit: int = 8) -> list[tuple[int, int, str]]:
    """(output element, group, the side it changed on) where one side changed and the other is
    unchanged, the first output element per group, for at most `limit` groups; undecided answers
    are never compared."""
    found = []
    for side, mine, other in (("source", source, target), ("target", target, source)):
        differs = (mine == CHANGED) & (other == UNCHANGED)
        for group in np.flatnonzero(differs.any(axis=0)):
            found.append((int(np.argmax(differs[:, group])), int(group), side))
    return sorted(found, key=lambda item: (item[1], item[0]))[:limit]


def projections(rows: np.ndarray, group_list: Sequence[Group], shape: Sequence[int]) -> list[np.ndarray]:
    """Per dimension, the coordinates each output element changes with ([elements, extent], from
    its signature, a row of `rows`; one signature alone gives [extent]): exactly, where every
    coordinate has its slice; else those whose bits agree with each bit that only one value of
    changed it, corrected by the slices there are. Every coordinate of a dimension of one, and of
    a sliced one some slice of which left it undecided."""
    single = rows.ndim == 1
    rows = np.atleast_2d(rows)
    n = rows.shape[0]
    found = []
    for d, extent in enumerate(shape):
        slices = {g.coordinate: k for k, g in enumerate(group_list) if g.dim == d and g.bit is None}
        along = np.ones((n, extent), dtype=bool)
        if extent > 1 and len(slices) == extent:
            answers = rows[:, [slices[c] for c in range(extent)]]
            along = np.where((answers == UNDECIDED).any(axis=1, keepdims=True), True, answers == CHANGED)
            found.append(along[0] if single else along)
            continue
        coordinates = np.arange(extent)
        by_bit: dict[int, dict[int, int]] = {}
        for k, g in enumerate(group_list):
            if g.dim == d and g.bit is not None:
                by_bit.setdefault(g.bit, {})[g.coordinate] = k
        for bit, columns in by_bit.items():
            if set(columns) != {0, 1}:
                continue
            zero, one = rows[:, columns[0]], rows[:, columns[1]]
            for value, mine, other in ((0, zero, one), (1, one, zero)):
                restrict = (mine == CHANGED) & (other == UNCHANGED)
                along[restrict] &= ((coordinates >> bit) & 1) == value
        for c, k in slices.items():
            along[rows[:, k] == CHANGED, c] = True
            along[rows[:, k] == UNCHANGED, c] = False
        found.append(along[0] if single else along)
    return found


def hull(row: np.ndarray, group_list: Sequence[Group], shape: Sequence[int]) -> np.ndarray:
    """The input elements an output element can depend on: the product of its projections."""
    keep = np.ones(tuple(shape), dtype=bool)
    for d, along in enumerate(projections(row, group_list, shape)):
        keep &= along.reshape([-1 if k == d else 1 for k in range(len(shape))])
    return keep


def pick(elements: np.ndarray, count: int = MAX_CANDIDATES) -> list[int]:
    """Up to `count` flat indices of the true elements of `elements`, spread evenly."""
    flat = np.flatnonzero(elements.ravel())
    if flat.size <= count:
        return [int(i) for i in flat]
    return [int(flat[round(k * (flat.size - 1) / (count - 1))]) for k in range(count)]


def confirmed(src: Noise, tgt: Noise, src_after: np.ndarray, tgt_after: np.ndarray, output: int,
              reader: str) -> bool:
    """A single-element replacement is a witness when it changes output element `output` on
    `reader` (by more than its threshold), leaves it unchanged on the other side, and the two
    sides' values there then differ by more than either side's threshold (whatever they were
    before: a port that already differs keeps its witness)."""
    s_class = int(src.classify(src_after).ravel()[output])
    t_class = int(tgt.classify(tgt_after).ravel()[output])
    if (s_class, t_class) != ((CHANGED, UNCHANGED) if reader == "source" else (UNCHANGED, CHANGED)):
        return False
    after = float(_difference(np.asarray(src_after, dtype=np.float64).ravel()[output:output + 1],
                              np.asarray(tgt_after, dtype=np.float64).ravel()[output:output + 1])[0])
    threshold = max(float(src.high().ravel()[output]), float(tgt.high().ravel()[output]))
    return after > threshold


def words(signatures: np.ndarray, group_list: Sequence[Group], out_shape: Sequence[int],
          in_shape: Sequence[int], output: str, input_name: str) -> str:
    """The observed dependence in words, per input dimension: `*` (every coordinate), `iK` (the
    output's K-th coordinate), `0 .. iK` (up to it), `a .. b` (the same coordinates for every
    output element), `?` (something else); "does not change with" when no output element changes
    with the input."""
    some = ~np.all(signatures == UNCHANGED, axis=1) if signatures.shape[1] else np.zeros(len(signatures), bool)
    if not some.any():
        return f"{output} does not change with {input_name}"
    rows = signatures[some]
    coords = np.array(np.unravel_index(np.flatnonzero(some), tuple(out_shape))) if out_shape else np.zeros((0, rows.shape[0]), int)
    per_dim = []
    for dim, along in enumerate(projections(rows, group_list, in_shape)):
        extent = in_shape[dim]
        counts = along.sum(axis=1)
        forms = {"*": bool(along.all())}
        for k in range(len(out_shape)):
            c = coords[k]
            inside = c < extent
            at_c = np.zeros(len(c), dtype=bool)
            at_c[inside] = along[np.flatnonzero(inside), c[inside]]
            forms[f"i{k}"] = bool(np.all((counts == 1) & at_c))
            prefix = np.arange(extent)[None, :] <= c[:, None]
            forms[f"0 .. i{k}"] = bool(np.all(along == prefix))
        fixed = _common_span(along, counts)
        per_dim.append("0" if extent == 1 else next((form for form, holds in forms.items() if holds), fixed))
    index = ", ".join(f"i{k}" for k in range(len(out_shape)))
    return f"{output}[{index}] changes with {input_name}[{', '.join(per_dim)}]"


def _common_span(along: np.ndarray, counts: np.ndarray) -> str:
    """`a .. b` (or `a`) when every row of `along` holds the same one contiguous run of
    coordinates (`counts` of them), else `?`."""
    first = along.argmax(axis=1)
    last = along.shape[1] - 1 - along[:, ::-1].argmax(axis=1)
    if not (np.all(counts > 0) and np.all(last - first + 1 == counts)
            and np.all(first == first[0]) and np.all(last == last[0])):
        return "?"
    return f"{first[0]}" if first[0] == last[0] else f"{first[0]} .. {last[0]}"
