"""Input generators: reproducible bytes per seed, the values each kind promises, and layouts that
keep the logical values while breaking contiguity."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from lowercheck.compare.inputs import (KINDS, default_kinds, generate, layout_view, layouts_for,
                                       special_values)

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["int8", "int32", "int64", "uint8"]


@pytest.mark.parametrize("dtype", FLOATS + INTS + ["bool"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_same_seed_same_bytes(kind, dtype):
    a = generate(kind, (7, 33), dtype, seed=5, key="x")
    b = generate(kind, (7, 33), dtype, seed=5, key="x")
    assert a.tobytes() == b.tobytes() and a.dtype == b.dtype and a.shape == (7, 33)
    assert a.flags["C_CONTIGUOUS"]
    if dtype != "bool":
        assert generate(kind, (7, 33), dtype, seed=6, key="x").tobytes() != a.tobytes()
        assert generate(kind, (7, 33), dtype, seed=5, key="y").tobytes() != a.tobytes()


def test_kinds_have_names_and_descriptions():
    kinds = default_kinds()
    assert [k.name for k in kinds] == ["normal", "uniform", "large", "small_int", "special"]
    assert all(k.description for k in kinds)
    flushed = default_kinds(flushes_subnormals=True)
    assert [k.name for k in flushed] == ["normal", "uniform", "large", "small_int", "special_no_subnormal"]


def test_special_values_without_subnormals_for_a_flush_to_zero_side():
    values = generate("special_no_subnormal", (64, 64), "float32", 1).astype(np.float64).ravel()
    finite = values[np.isfinite(values) & (values != 0)]
    assert np.isnan(values).any() and np.isinf(values).any()
    assert (np.abs(finite) >= np.finfo(np.float32).tiny).all()  # no denormal left
    with pytest.raises(ValueError, match="unknown input kind"):
        generate("zeros", (4,), "float32", 0)


@pytest.mark.parametrize("dtype", FLOATS)
def test_value_ranges(dtype):
    normal = generate("normal", (4096,), dtype, 0).astype(np.float64)
    assert (normal < 0).mean() > 0.4 and (normal > 0).mean() > 0.4  # signed: ReLU is not a copy
    uniform = generate("uniform", (4096,), dtype, 0).astype(np.float64)
    assert uniform.min() >= -1 and uniform.max() <= 1 and uniform.min() < -0.9 and uniform.max() > 0.9
    large = generate("large", (4096,), dtype, 0).astype(np.float64)
    assert np.abs(large).max() <= 1e4 * 1.01 and np.abs(large).max() > 9e3 and (large < 0).any()
    small = generate("small_int", (4096,), dtype, 0).astype(np.float64)
    assert set(np.unique(small)) == set(range(-3, 4))


@pytest.mark.parametrize("dtype", FLOATS)
def test_special_probe_mixes_every_special_value_into_normal_data(dtype):
    values = generate("special", (64, 64), dtype, 1).astype(np.float64).ravel()
    finfo = ml_dtypes.finfo(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.finfo(dtype)
    assert np.isnan(values).any() and (values == np.inf).any() and (values == -np.inf).any()
    assert ((values == 0) & np.signbit(values)).any()
    denormal = (values != 0) & (np.abs(values) < float(finfo.smallest_normal))
    assert denormal.any() and (denormal & (values < 0)).any()
    assert np.isfinite(values).mean() > 0.9  # mostly normal data
    assert len(special_values(dtype)) == 7


def test_special_probe_on_tiny_arrays_keeps_the_first_specials():
    values = generate("special", (3,), "float32", 0)
    assert values.shape == (3,) and (~np.isfinite(values) | (values == 0) | (np.abs(values) < 1e-38)).all()


@pytest.mark.parametrize("dtype", INTS)
def test_integer_kinds(dtype):
    info = np.iinfo(dtype)
    special = generate("special", (256,), dtype, 0)
    assert info.min in special and info.max in special
    small = generate("small_int", (256,), dtype, 0)
    assert small.min() >= max(info.min, -3) and small.max() <= 3


def test_small_integers_make_a_matmul_bit_exact():
    a = generate("small_int", (16, 512), "float32", 2, key=0)
    b = generate("small_int", (512, 16), "float32", 2, key=1)
    sequential = np.zeros((16, 16), np.float32)
    for k in range(512):
        sequential += a[:, k, None] * b[None, k, :]
    blocked = sum((a[:, k:k + 64] @ b[k:k + 64]) for k in range(0, 512, 64))
    assert np.array_equal(sequential, blocked)
    assert not np.array_equal(sequential, np.zeros_like(sequential))


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int32"])
@pytest.mark.parametrize("layout", ["transposed", "padded", "strided"])
def test_layouts_keep_values_and_break_contiguity(layout, dtype):
    values = generate("normal", (5, 6), dtype, 3)
    view = layout_view(values, layout)
    assert view.shape == values.shape and view.dtype == values.dtype
    assert np.array_equal(view.astype(np.float64), values.astype(np.float64))
    assert not view.flags["C_CONTIGUOUS"] and np.shares_memory(view, view.base)
    if layout == "transposed":
        assert view.flags["F_CONTIGUOUS"] and view.base.shape == (6, 5)
        return
    unused = np.ones(view.base.shape, bool)
    if layout == "padded":
        unused[..., :6] = False
        assert view.base.shape == (5, 9)
    else:
        unused[..., ::2] = False
        assert view.base.shape == (5, 12)
    filler = view.base[unused].astype(np.float64)
    assert np.isnan(filler).all() if dtype != "int32" else (filler == np.iinfo(np.int32).min).all()


def test_layouts_for_shapes():
    assert layouts_for((1000,)) == ["strided"]
    assert layouts_for((4, 8)) == ["transposed", "padded", "strided"]
    assert layouts_for((1, 8)) == ["strided"]
    assert np.array_equal(layout_view(np.arange(6.0).reshape(2, 3), "contiguous"), np.arange(6.0).reshape(2, 3))
    with pytest.raises(ValueError):
        layout_view(np.zeros((2, 2)), "diagonal")
