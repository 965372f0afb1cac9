"""Seeded input generators for the differential runs, and non-contiguous layouts of the same values.

Each input kind is a way to break a kernel: signed values (ReLU is not a copy on them), a bounded
range, large magnitudes (softmax without the max subtraction overflows), small integers (products
and sums exact in float, so a matmul check can be bit-exact), and special values (NaN, +-Inf, -0.0,
denormals) mixed into normal data, compared by position (LC302). The same (seed, kind, key, shape,
dtype) always gives the same bytes: the generator is seeded from all of them, never from Python's
randomised `hash`.

Layouts: `layout_view` places the values in a larger buffer and returns a transposed, row-padded or
element-strided view of it, so a kernel that assumes a contiguous input reads the wrong elements.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lowercheck.compare.tolerance import np_dtype


@dataclass(frozen=True)
class InputKind:
    """A kind of input: its name (used in reports and with --inputs) and what it probes."""

    name: str
    description: str


KINDS: dict[str, InputKind] = {k.name: k for k in (
    InputKind("normal", "signed standard normal"),
    InputKind("uniform", "uniform in [-1, 1]"),
    InputKind("large", "large magnitudes, uniform in [-1e4, 1e4] (overflow without max subtraction)"),
    InputKind("small_int", "small integers in [-3, 3] (exact products and sums: bit-exact matmul)"),
    InputKind("special", "normal data with NaN, +-Inf, -0.0 and denormals mixed in"),
    InputKind("special_no_subnormal", "normal data with NaN, +-Inf and -0.0 mixed in, no denormals (for a "
              "side that flushes them to zero: JAX on the CPU, as a TPU does)"),
    InputKind("rand01", "uniform in [0, 1) (torch.rand: what KernelBench-style harnesses feed)"),
)}
BASELINE_KINDS = ("rand01",)  # for `--baseline`, not part of lowercheck's own runs
FLUSHED_KINDS = {"special": "special_no_subnormal"}  # the kind a flush-to-zero side runs instead

LARGE = 1e4
SMALL_INT = 3
SPECIAL_FRACTION = 1 / 16  # of the elements replaced by special values (at least one of each)


def default_kinds(flushes_subnormals: bool = False) -> list[InputKind]:
    """The input kinds of a run, in order: the first is the one a single-kind run uses. With
    `flushes_subnormals` (a side that treats denormals as 0), special values without denormals: a
    denormal times infinity is NaN there and infinity elsewhere, a platform's rule, not a port's bug."""
    replaced = FLUSHED_KINDS if flushes_subnormals else {}
    return [KINDS[replaced.get(kind.name, kind.name)] for kind in KINDS.values()
            if kind.name not in BASELINE_KINDS and kind.name not in FLUSHED_KINDS.values()]


def rng_for(seed: int, kind: str, key: int | str = 0) -> np.random.Generator:
    """A generator seeded by the run's seed, the input kind and the input's key (name or position)."""
    key_int = key if isinstance(key, int) else zlib.crc32(key.encode())
    return np.random.default_rng([seed, zlib.crc32(kind.encode()), key_int])


def generate(kind: str, shape: Sequence[int], dtype: str, seed: int, key: int | str = 0) -> np.ndarray:
    """A fresh, C-contiguous array of `kind` values; `dtype` a name (float16, bfloat16, float32,
    float64, bool, int8..int64, uint8..uint64)."""
    if kind not in KINDS:
        raise ValueError(f"unknown input kind `{kind}` (known: {', '.join(KINDS)})")
    rng = rng_for(seed, kind, key)
    shape = tuple(int(d) for d in shape)
    target = np_dtype(dtype)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if target.kind in "iu":
        return _integers(kind, shape, target, rng)
    if kind == "normal":
        data = rng.standard_normal(shape)
    elif kind == "uniform":
        data = rng.uniform(-1.0, 1.0, shape)
    elif kind == "large":
        data = rng.uniform(-LARGE, LARGE, shape)
    elif kind == "rand01":
        data = rng.random(shape)
    elif kind == "small_int":
        data = rng.integers(-SMALL_INT, SMALL_INT + 1, shape).astype(np.float64)
    else:
        data = rng.standard_normal(shape)
    values = np.ascontiguousarray(data.astype(target))
    if kind in ("special", "special_no_subnormal"):
        _mix_specials(values, dtype, rng, subnormals=kind == "special")
    return values


def special_values(dtype: str, subnormals: bool = True) -> np.ndarray:
    """NaN, +Inf, -Inf, -0.0, the smallest denormal and a larger denormal of a float dtype."""
    target = np_dtype(dtype)
    if not subnormals:
        return np.array([np.nan, np.inf, -np.inf, -0.0], dtype=np.float64).astype(target)
    tiny = _finfo(dtype).smallest_subnormal
    values = np.array([np.nan, np.inf, -np.inf, -0.0], dtype=np.float64).astype(target)
    denormals = np.array([tiny, tiny, -tiny], dtype=target)
    denormals[1] = denormals[1] * 3  # 3 * smallest: still denormal, not a power of two
    return np.concatenate([values, denormals])


def _mix_specials(values: np.ndarray, dtype: str, rng: np.random.Generator, subnormals: bool = True) -> None:
    flat = values.reshape(-1)
    specials = special_values(dtype, subnormals)
    count = min(flat.size, max(len(specials), int(flat.size * SPECIAL_FRACTION)))
    if count == 0:
        return
    where = rng.choice(flat.size, size=count, replace=False)
    flat[where] = np.resize(specials, count)  # each special value at least once when room allows


def _integers(kind: str, shape: tuple[int, ...], target: np.dtype, rng: np.random.Generator) -> np.ndarray:
    info = np.iinfo(target)
    if kind == "large":
        lo, hi = max(info.min, -10_000), min(info.max, 10_000)
    elif kind == "rand01":  # non-negative, as torch.randint's usual [0, high)
        lo, hi = 0, min(info.max, 7)
    elif kind == "small_int":
        lo, hi = max(info.min, -SMALL_INT), min(info.max, SMALL_INT)
    else:  # normal, uniform, and the data around the special values
        lo, hi = max(info.min, -8), min(info.max, 8)
    values = rng.integers(lo, hi + 1, shape, dtype=np.int64).astype(target)
    if kind in ("special", "special_no_subnormal"):  # integer extremes: overflow and sign probes
        extremes = np.array([info.min, info.max, 0, min(info.max, 1)], dtype=target)
        if info.min < 0:
            extremes[3] = -1
        flat = values.reshape(-1)
        count = min(flat.size, max(len(extremes), int(flat.size * SPECIAL_FRACTION)))
        if count:
            flat[rng.choice(flat.size, size=count, replace=False)] = np.resize(extremes, count)
    return values


def _finfo(dtype: str):
    import ml_dtypes

    return ml_dtypes.finfo(np_dtype(dtype))


# ---------------------------------------------------------------------------------------------
# Layouts

LAYOUTS = ("contiguous", "transposed", "padded", "strided")


def layouts_for(shape: Sequence[int]) -> list[str]:
    """The non-contiguous layouts that differ from a contiguous array of this shape."""
    found = []
    if len(shape) >= 2 and sum(1 for d in shape if d > 1) >= 2:
        found.append("transposed")
    if len(shape) >= 2 and any(d > 1 for d in shape[:-1]):
        found.append("padded")
    if any(d > 1 for d in shape):
        found.append("strided")
    return found


def layout_view(values: np.ndarray, layout: str, fill: float | int | None = None) -> np.ndarray:
    """A view with the same shape and logical values as `values`, into a larger buffer:

    transposed: the buffer holds the reversed shape in C order and the view is its `.T` (column
      major strides);
    padded: each row (last axis) is followed by 3 unused elements (row stride > row length);
    strided: every other element of a buffer twice as long in the last axis.

    The unused elements hold `fill` (default NaN for floats, the dtype's minimum for integers), so a
    kernel that reads past the logical elements shows it. `contiguous` returns a C-contiguous copy.
    """
    shape = values.shape
    if layout == "contiguous":
        return np.ascontiguousarray(values).copy()
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout `{layout}` (known: {', '.join(LAYOUTS)})")
    if fill is None:
        kind = values.dtype.kind
        fill = np.iinfo(values.dtype).min if kind in "iu" else (True if kind == "b" else np.nan)
    if layout == "transposed":
        buffer = np.full(shape[::-1], fill, dtype=values.dtype)
        view = buffer.T
    elif layout == "padded":
        buffer = np.full(shape[:-1] + (shape[-1] + 3,), fill, dtype=values.dtype) if shape else np.full((), fill)
        view = buffer[..., : shape[-1]] if shape else buffer
    else:
        buffer = np.full(shape[:-1] + (2 * shape[-1],), fill, dtype=values.dtype) if shape else np.full((), fill)
        view = buffer[..., ::2] if shape else buffer
    view[...] = values
    return view
