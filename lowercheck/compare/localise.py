"""Where an output goes wrong: a mismatch mask summarised as a pattern a reviewer recognises.

A tail that starts at a multiple of a block size points at a missing tail mask; one row or column,
or the last one, at a boundary; every other element at a stride; a contiguous block of rows at one
program's tile. Patterns are tried from the most specific; when none fits, the first few indices
are listed. Each `Pattern` carries its words (`text`) and its data (`kind`, `data`) for the JSON.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

SHOW = 5  # indices listed when no pattern fits
DENSE = 0.5  # fraction of a tail or stride class that must mismatch to call it one


@dataclass(frozen=True)
class Pattern:
    """kind: none | all | element | row | column | rows | columns | block | tail | range | stride |
    scattered. data: the numbers behind the words (start, block, rows, stride, indices...)."""

    kind: str
    text: str
    count: int
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "count": self.count, "data": self.data}


def localise(mask: np.ndarray, shape: Sequence[int] | None = None, tiles: Sequence[int] = ()) -> Pattern:
    """Summarise the True elements of `mask` (any shape, or flat with `shape` given). `tiles`: block
    sizes the kernels use, preferred when naming the block a tail starts after."""
    shape = tuple(int(d) for d in (shape if shape is not None else np.shape(mask)))
    mask = np.asarray(mask, bool).reshape(shape)
    count = int(mask.sum())
    total = mask.size
    if count == 0:
        return Pattern("none", "no mismatches", 0)
    if count == total:
        return Pattern("all", f"every element ({total})", count)
    flat = _flat(np.flatnonzero(mask.ravel()), total, count, shape, tiles)
    if len(shape) >= 2 and sum(1 for d in shape if d > 1) >= 2:
        found = _axes(mask, shape, count, tiles)
        row_length = total // shape[0]
        # a flat tail that starts inside a row says more than "a block of rows"
        mid_row_tail = flat.kind == "tail" and flat.data["start"] % row_length != 0
        if found is not None and not (mid_row_tail and found.kind in ("rows", "block")):
            return found
    return flat


def _axes(mask: np.ndarray, shape: tuple[int, ...], count: int, tiles: Sequence[int]) -> Pattern | None:
    """Patterns over the first and last axes (rows and columns of a 2-D output)."""
    rows_axis, cols_axis = 0, len(shape) - 1
    other = tuple(a for a in range(len(shape)) if a != rows_axis)
    rows = np.flatnonzero(mask.any(axis=other))
    cols = np.flatnonzero(mask.any(axis=tuple(a for a in range(len(shape)) if a != cols_axis)))
    n_rows, n_cols = shape[rows_axis], shape[cols_axis]
    row_word, col_word = ("row", "column") if len(shape) == 2 else ("index along axis 0", "index along the last axis")
    if count == 1:
        index = tuple(int(i) for i in np.argwhere(mask)[0])
        return Pattern("element", f"one element at {index}" + _boundary(index, shape), 1, {"index": list(index)})
    if len(rows) == 1:
        r = int(rows[0])
        last = " (the last: a boundary)" if r == n_rows - 1 and n_rows > 1 else ""
        return Pattern("row", f"one {row_word}: {r}{last}, {count} element(s) in columns {_span(cols)}", count,
                       {"row": r, "last": bool(last), "columns": _range(cols)})
    if len(cols) == 1:
        c = int(cols[0])
        last = " (the last: a boundary)" if c == n_cols - 1 and n_cols > 1 else ""
        return Pattern("column", f"one {col_word}: {c}{last}, {count} element(s) in rows {_span(rows)}", count,
                       {"column": c, "last": bool(last), "rows": _range(rows)})
    rows_contiguous = _contiguous(rows)
    cols_contiguous = _contiguous(cols)
    all_rows, all_cols = len(rows) == n_rows, len(cols) == n_cols
    if rows_contiguous and not all_rows and (all_cols or not cols_contiguous):
        return _block_of("rows", rows, n_rows, count, tiles)
    if cols_contiguous and not all_cols and (all_rows or not rows_contiguous):
        return _block_of("columns", cols, n_cols, count, tiles)
    if rows_contiguous and cols_contiguous and not (all_rows and all_cols):
        r0, r1, c0, c1 = int(rows[0]), int(rows[-1]), int(cols[0]), int(cols[-1])
        notes = [n for n in (_tail_note("rows", r0, r1, n_rows, tiles),
                             _tail_note("columns", c0, c1, n_cols, tiles)) if n]
        return Pattern("block", f"a block: rows {r0}..{r1} x columns {c0}..{c1}, {count} element(s)"
                       + (f" ({'; '.join(notes)})" if notes else ""), count,
                       {"rows": [r0, r1], "columns": [c0, c1]})
    return None


def _block_of(word: str, index: np.ndarray, extent: int, count: int, tiles: Sequence[int]) -> Pattern:
    lo, hi = int(index[0]), int(index[-1])
    note = _tail_note(word, lo, hi, extent, tiles)
    text = f"a block of {word}: {lo}..{hi} of {extent}, {count} element(s)" + (f" ({note})" if note else "")
    data: dict[str, Any] = {word: [lo, hi]}
    if note:
        data["tail_block"] = _block(lo, tiles)
    return Pattern(word, text, count, data)


def _tail_note(word: str, lo: int, hi: int, extent: int, tiles: Sequence[int]) -> str:
    """'the tail after 2*64' when [lo, hi] ends the axis and starts at a multiple of a block."""
    if hi != extent - 1 or lo == 0:
        return ""
    block = _block(lo, tiles)
    if block is None:
        return f"the last {word}: a boundary"
    return f"the tail after {lo // block}*{block}"


def _flat(flat: np.ndarray, total: int, count: int, shape: tuple[int, ...], tiles: Sequence[int]) -> Pattern:
    lo, hi = int(flat[0]), int(flat[-1])
    span = total - lo
    if lo > 0 and count >= DENSE * span:
        block = _block(lo, tiles)
        if block is not None:
            return Pattern("tail", f"the tail: {count} of the {span} elements from flat index {lo} = "
                           f"{lo // block}*{block} on (elements before it match)", count,
                           {"start": lo, "block": block, "k": lo // block})
    if hi - lo + 1 == count:
        block = _block(lo, tiles) if lo else None
        note = f", starting at {lo // block}*{block}" if block is not None and count % block == 0 else ""
        return Pattern("range", f"flat indices {lo}..{hi} ({count} contiguous{note})", count,
                       {"start": lo, "stop": hi + 1})
    step = math.gcd(*(int(d) for d in np.diff(flat)))
    if step >= 2 and count >= 3:
        members = (hi - lo) // step + 1
        if count >= DENSE * members:
            what = "every other element" if step == 2 else f"every {step}th element"
            residue = lo % step
            return Pattern("stride", f"{what} (flat index = {residue} mod {step}), {count} element(s) "
                           f"from {lo} to {hi}", count,
                           {"stride": step, "residue": residue, "start": lo, "stop": hi + 1})
    shown = [_unravel(int(i), shape) for i in flat[:SHOW]]
    text = ", ".join(str(s) for s in shown) + (", ..." if count > SHOW else "")
    return Pattern("scattered", f"{count} element(s) at {text}", count, {"first": [list(s) for s in shown]})


def _block(start: int, tiles: Sequence[int]) -> int | None:
    """The block size `start` is a multiple of: the largest tile that divides it, else the largest
    power of two (at least 4) that does."""
    for tile in sorted(set(tiles), reverse=True):
        if tile > 1 and start % tile == 0:
            return tile
    if start <= 0:
        return None
    power = start & -start
    return power if power >= 4 else None


def _contiguous(index: np.ndarray) -> bool:
    return len(index) > 0 and int(index[-1]) - int(index[0]) + 1 == len(index)


def _span(index: np.ndarray) -> str:
    if _contiguous(index):
        return f"{int(index[0])}..{int(index[-1])}" if len(index) > 1 else f"{int(index[0])}"
    return ", ".join(str(int(i)) for i in index[:SHOW]) + (", ..." if len(index) > SHOW else "")


def _range(index: np.ndarray) -> list[int]:
    return [int(index[0]), int(index[-1])]


def _boundary(index: tuple[int, ...], shape: tuple[int, ...]) -> str:
    if all(i == d - 1 for i, d in zip(index, shape)):
        return " (the last element)"
    return ""


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()
