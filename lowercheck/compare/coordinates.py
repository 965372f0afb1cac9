"""Logical coordinates of an access: a flat element index split into one coordinate per dimension.

A kernel addresses `x` of shape [rows, cols] (row-major) as `x[r * cols + c]`. Checked as a flat
index, a tile whose column `c` runs past `cols` is in bounds everywhere but the last row: it reads
the next row's first elements (the bug triton-viz misses). Split into coordinates, the same access
is `x[r, c]`, and `c < cols` is a per-dimension bound isl can check for every size; the split index
is also affine where the flat one is not (`cols * r` is a product of unknowns, `r` is not).

`candidates(index, shape)` proposes the splits, best first:

- **split**: the terms of the index that are multiples of a dimension's stride (as polynomials in
  the sizes: `r*cols` is a multiple of `cols`) form that dimension's coordinate; the rest is the
  last coordinate. Only where the strides are symbolic: with constant strides, `256*GRID0 + LANE0`
  over [n, 64] would split into (4*GRID0, LANE0), which a flat walk over the buffer is not.
- **split, borrowed**: the same with one stride borrowed from the outer coordinate, for indices
  written `(r + 1) * cols - 1 - c` (a reversed row): (r + 1, -1 - c) becomes (r, cols - 1 - c).
- **split, merged**: a run of dimensions the index addresses as one. A buffer of [B, T, C] indexed
  `idx * C + c` with `idx < B*T` splits into (0, idx, c): no term has the stride T*C, and idx runs
  past T. The dimensions whose coordinate is 0 are merged with the next one (B and T into one
  dimension of B*T elements), and its coordinate is split again by floor division and remainder:
  (floor(idx/T), Mod(idx, T), c). The outermost dimension of the run keeps the floor (an idx past
  B*T is out of bounds there); a dimension whose stride the index does use is never merged, so a
  column past C is still a wrap.
- **flat**: floor division and remainder of the flat index by the strides. Always right for an
  in-bounds index, but a division by a size is not affine (the check then runs per swept size), and
  it cannot see a wrap: the caller uses it only when no split exists.

Each candidate recombines to the flat index: sum(coordinate_j * stride_j) == index (proved with z3
in tests/compare/test_coordinates.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sympy

from lowercheck import symbolic


@dataclass(frozen=True)
class Coordinates:
    exprs: tuple[sympy.Basic, ...]  # one per dimension of the buffer, outermost first
    how: str  # split | borrowed | merged | flat


def strides(shape: Sequence[sympy.Basic]) -> list[sympy.Basic]:
    """Row-major strides of `shape`, in elements."""
    out = []
    for j in range(len(shape)):
        out.append(sympy.Mul(*shape[j + 1:]) if j + 1 < len(shape) else sympy.Integer(1))
    return out


def candidates(index: sympy.Basic, shape: Sequence[sympy.Basic]) -> list[Coordinates]:
    """The coordinate splits of a flat `index` into a buffer of `shape`, best first (see above)."""
    if len(shape) <= 1:
        return [Coordinates((index,), "flat")]
    found = []
    split = _split(index, shape)
    if split is not None:
        found.append(Coordinates(split, "split"))
        borrowed = _borrow(split, shape)
        if borrowed is not None:
            found.append(Coordinates(borrowed, "borrowed"))
        merged = _merge(split, shape)
        if merged is not None:
            found.append(Coordinates(merged, "merged"))
    found.append(Coordinates(_flat(index, shape), "flat"))
    return found


def _is_symbolic(stride: sympy.Basic) -> bool:
    return bool(stride.free_symbols) and all(symbolic.tag_of(s) is symbolic.Tag.PARAM
                                             for s in stride.free_symbols)


def _multiple_of(term: sympy.Basic, stride: sympy.Basic) -> sympy.Basic | None:
    """term / stride when that is a polynomial in the sizes (no size left in a denominator)."""
    quotient = sympy.cancel(term / stride)
    _, denominator = sympy.fraction(quotient)
    if denominator != 1:
        return None
    return quotient


def _split(index: sympy.Basic, shape: Sequence[sympy.Basic]) -> tuple[sympy.Basic, ...] | None:
    steps = strides(shape)
    if not all(_is_symbolic(s) for s in steps[:-1]):
        return None
    rest = list(sympy.Add.make_args(sympy.expand(index)))
    coords = []
    for stride in steps[:-1]:
        mine, others = [], []
        for term in rest:
            quotient = _multiple_of(term, stride)
            (mine if quotient is not None else others).append(quotient if quotient is not None else term)
        coords.append(sympy.Add(*mine))
        rest = others
    coords.append(sympy.Add(*rest))
    if all(c == 0 for c in coords[:-1]):
        return None  # a flat walk over the buffer: no dimension's stride appears in it
    return tuple(coords)


def _borrow(coords: tuple[sympy.Basic, ...], shape: Sequence[sympy.Basic]) -> tuple[sympy.Basic, ...] | None:
    """Move one stride from the outer coordinate into the inner one where the inner coordinate's
    constant term is negative (`-1 - c` with `r + 1` outside)."""
    out = list(coords)
    changed = False
    for j in range(len(out) - 1, 0, -1):
        constant, _ = sympy.expand(out[j]).as_coeff_Add()
        if constant < 0:
            out[j] = sympy.expand(out[j] + shape[j])
            out[j - 1] = sympy.expand(out[j - 1] - 1)
            changed = True
    return tuple(out) if changed else None


def _merge(coords: tuple[sympy.Basic, ...], shape: Sequence[sympy.Basic]) -> tuple[sympy.Basic, ...] | None:
    """Each run of dimensions j..k whose coordinates are 0 but the last (k) as one dimension of
    shape[j] * ... * shape[k] elements addressed by coordinate k, split again into the run's
    dimensions by floor division and remainder (mixed radix: exact for every integer)."""
    out = list(coords)
    changed = False
    j = 0
    while j < len(coords) - 1:
        k = j
        while k < len(coords) and coords[k] == 0:
            k += 1
        if k == j or k == len(coords):
            j = k + 1 if k == j else k
            continue
        merged = coords[k]
        for d in range(j, k + 1):
            inner = sympy.Mul(*shape[d + 1:k + 1]) if d < k else sympy.Integer(1)
            quotient = merged if inner == 1 else sympy.floor(merged / inner)
            out[d] = quotient if d == j else sympy.Mod(quotient, shape[d])
        changed = True
        j = k + 1
    return tuple(out) if changed else None


def _flat(index: sympy.Basic, shape: Sequence[sympy.Basic]) -> tuple[sympy.Basic, ...]:
    steps = strides(shape)
    coords = []
    for j, (extent, stride) in enumerate(zip(shape, steps, strict=True)):
        quotient = index if stride == 1 else sympy.floor(index / stride)
        coords.append(quotient if j == 0 else sympy.Mod(quotient, extent))
    return tuple(coords)


def flatten(coords: Sequence[sympy.Basic], shape: Sequence[sympy.Basic]) -> sympy.Basic:
    """The flat row-major index of `coords`."""
    return sympy.expand(sum((c * s for c, s in zip(coords, strides(shape), strict=True)), sympy.Integer(0)))


__all__ = ["Coordinates", "candidates", "flatten", "strides"]
