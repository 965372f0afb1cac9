"""Observed dependences (`lowercheck.compare.provenance`) on numpy functions standing for a side's
runs: slices replaced, changes decided against the side's noise, signatures compared, witnesses
confirmed, and the maps in words."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from lowercheck.compare import provenance
from lowercheck.compare.provenance import CHANGED, UNCHANGED, UNDECIDED, Group, Noise


def _signature(function, x: np.ndarray) -> tuple[np.ndarray, list[Group], Noise]:
    group_list = provenance.groups(x.shape)
    base = function(x)
    noise = Noise.of(base, function(x))
    perturbed = [function(provenance.replaced(x, x.shape, g.mask(x.shape), 0)) for g in group_list]
    return provenance.signature(noise, perturbed), group_list, noise


def _x(rows: int = 5, cols: int = 7, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((rows, cols)).astype(np.float32)


def test_groups_are_the_slices_of_each_dimension():
    found = provenance.groups((3, 1, 2))
    assert found == [Group(0, 0), Group(0, 1), Group(0, 2), Group(2, 0), Group(2, 1)]
    assert provenance.runs_needed([(3, 1, 2), (4,)]) == 9
    mask = Group(1, 2).mask((2, 4))
    assert mask.tolist() == [[False, False, True, False], [False, False, True, False]]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_replaced_values_are_far_outside_distinct_and_keep_the_layout(dtype):
    x = _x().astype(dtype)
    flat = x.ravel().copy()
    mask = Group(1, 3).mask(x.shape)
    out = provenance.replaced(flat, x.shape, mask, seed=4)
    assert out.shape == flat.shape and out.dtype == flat.dtype  # a flat CUDA buffer stays flat
    grid = out.reshape(x.shape).astype(np.float64)
    top = float(np.abs(x.astype(np.float64)).max())
    assert np.all(grid[mask] > top + provenance.REPLACEMENT[0] - 0.1)
    assert len(set(grid[mask].tolist())) == mask.sum()  # no pure shift of a row
    np.testing.assert_array_equal(grid[~mask], x.astype(np.float64)[~mask])
    np.testing.assert_array_equal(out, provenance.replaced(flat, x.shape, mask, seed=4))  # both sides alike


def test_changes_are_decided_against_the_side_noise():
    base = np.array([1.0, 2.0, 3.0, 0.0], dtype=np.float32)
    quiet = Noise.of(base, base.copy())
    after = np.array([1.0, 2.5, 3.0 + 3e-7, np.nan], dtype=np.float32)
    assert quiet.classify(after).tolist() == [UNCHANGED, CHANGED, UNDECIDED, CHANGED]
    noisy = Noise.of(base, base + np.float32(1e-3))  # another block order moves it by 1e-3
    assert noisy.classify(base + np.float32(1e-3)).tolist()[:3] == [UNCHANGED] * 3
    counts = Noise.of(np.array([4, 0], dtype=np.int32), np.array([4, 0], dtype=np.int32))
    assert counts.classify(np.array([5, 0], dtype=np.int32)).tolist() == [CHANGED, UNCHANGED]


def test_a_row_reduction_depends_on_its_row_and_words_say_so():
    sig, group_list, _ = _signature(lambda x: x.max(axis=1), _x())
    assert provenance.words(sig, group_list, (5,), (5, 7), "out", "x") == "out[i0] changes with x[i0, *]"
    hull = provenance.hull(sig[2], group_list, (5, 7))
    assert hull.sum() == 7 and hull[2].all()


def test_elementwise_scan_and_broadcast_in_words():
    x = _x()
    sig, groups_, _ = _signature(lambda v: np.maximum(v, 0) * 2, x)
    assert provenance.words(sig, groups_, (5, 7), (5, 7), "y", "x") == "y[i0, i1] changes with x[i0, i1]"
    sig, groups_, _ = _signature(lambda v: np.cumsum(v, axis=1), x)
    assert provenance.words(sig, groups_, (5, 7), (5, 7), "y", "x") == "y[i0, i1] changes with x[i0, 0 .. i1]"
    sig, groups_, _ = _signature(lambda v: v[:, :4].sum(axis=1), x)
    assert provenance.words(sig, groups_, (5,), (5, 7), "y", "x") == "y[i0] changes with x[i0, 0 .. 3]"
    sig, groups_, _ = _signature(lambda v: np.zeros(5, dtype=np.float32), x)
    assert provenance.words(sig, groups_, (5,), (5, 7), "y", "x") == "y does not change with x"


def test_a_span_in_words_is_one_run_shared_by_every_output_element():
    """`a .. b` only when each output element reads the same contiguous coordinates; rows reading
    different runs, or a run with a gap, are `?`."""
    x = _x()
    sig, groups_, _ = _signature(lambda v: v[:, 2:3].sum(axis=1), x)
    assert provenance.words(sig, groups_, (5,), (5, 7), "y", "x") == "y[i0] changes with x[i0, 2]"
    shifted = lambda v: np.stack([v[i, i % 3:i % 3 + 2].sum() for i in range(5)])  # noqa: E731
    sig, groups_, _ = _signature(shifted, x)
    assert provenance.words(sig, groups_, (5,), (5, 7), "y", "x") == "y[i0] changes with x[i0, ?]"
    sig, groups_, _ = _signature(lambda v: v[:, 1] + v[:, 4], x)
    assert provenance.words(sig, groups_, (5,), (5, 7), "y", "x") == "y[i0] changes with x[i0, ?]"


def test_equal_functions_written_differently_have_no_candidate():
    """Softmax with and without the max subtracted, and layer norm (invariant to a shift of its
    row): the replaced slices are no shift, and both sides answer alike."""
    x = _x(4, 9)

    def stable(v):
        e = np.exp(v - v.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def naive(v):
        e = np.exp(v.astype(np.float64))
        return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)

    def norm(v):
        return (v - v.mean(axis=1, keepdims=True)) / np.sqrt(v.var(axis=1, keepdims=True) + 1e-5)

    def norm_two_pass(v):
        mean = v.sum(axis=1, keepdims=True, dtype=np.float64) / v.shape[1]
        centred = v - mean
        return (centred / np.sqrt((centred ** 2).mean(axis=1, keepdims=True) + 1e-5)).astype(np.float32)

    for first, second in ((stable, naive), (norm, norm_two_pass)):
        a, groups_, _ = _signature(first, x)
        b, _, _ = _signature(second, x)
        assert provenance.candidates(a, b) == []
        assert provenance.words(a, groups_, (4, 9), (4, 9), "y", "x") == "y[i0, i1] changes with x[i0, *]"


def test_a_dropped_column_is_a_confirmed_witness():
    x = _x(3, 6)
    source = lambda v: v.sum(axis=1)  # noqa: E731
    target = lambda v: v[:, :5].sum(axis=1)  # noqa: E731  the last column dropped
    sig_s, groups_, noise_s = _signature(source, x)
    sig_t, _, noise_t = _signature(target, x)
    found = provenance.candidates(sig_s, sig_t)
    assert found and all(groups_[g] == Group(1, 5) and side == "source" for _, g, side in found)
    output, group, reader = found[0]
    possible = groups_[group].mask(x.shape) & provenance.hull(sig_s[output], groups_, x.shape)
    [element] = provenance.pick(possible)
    assert np.unravel_index(element, x.shape) == (output, 5)
    single = np.zeros(x.shape, dtype=bool)
    single.ravel()[element] = True
    after = provenance.replaced(x, x.shape, single, 0)
    assert provenance.confirmed(noise_s, noise_t, source(after), target(after), output, reader)
    # Another element of the row changes both sides: no witness.
    other = np.zeros(x.shape, dtype=bool)
    other[output, 0] = True
    after = provenance.replaced(x, x.shape, other, 0)
    assert not provenance.confirmed(noise_s, noise_t, source(after), target(after), output, reader)


def test_a_port_that_already_differs_keeps_its_witness():
    """The target sums x[r, 1 .. c + 1] where the source sums x[r, 0 .. c]: their values differ before
    any replacement; x[r, 0] still changes the source's out[r, 0] alone."""
    x = _x(3, 6)
    source = lambda v: np.cumsum(v, axis=1)  # noqa: E731
    target = lambda v: np.cumsum(np.concatenate([v[:, 1:], np.zeros((3, 1), v.dtype)], axis=1), axis=1)  # noqa: E731
    sig_s, groups_, noise_s = _signature(source, x)
    sig_t, _, noise_t = _signature(target, x)
    output, group, reader = provenance.candidates(sig_s, sig_t)[0]
    assert (output, groups_[group], reader) == (0, Group(1, 0), "source")
    single = np.zeros(x.shape, dtype=bool)
    single[0, 0] = True
    after = provenance.replaced(x, x.shape, single, 0)
    assert provenance.confirmed(noise_s, noise_t, source(after), target(after), output, reader)


def test_pick_spreads_over_many_candidates():
    many = np.ones((4, 40), dtype=bool)
    picked = provenance.pick(many, 5)
    assert picked[0] == 0 and picked[-1] == 159 and len(picked) == 5


def test_a_long_dimension_is_replaced_by_its_bits_and_its_edges():
    cols = provenance.SLICED + 36  # 100 columns: 7 bits, two groups each, and 2 + 2 edge slices
    found = provenance.groups((3, cols))
    assert len(found) == 3 + 2 * 7 + 2 * provenance.EDGES
    assert Group(1, 1, 6) in found and Group(1, cols - 1) in found and Group(1, 50) not in found
    x = _x(3, cols)
    sig, groups_, _ = _signature(lambda v: v.sum(axis=1), x)
    assert provenance.words(sig, groups_, (3,), (3, cols), "y", "x") == "y[i0] changes with x[i0, *]"
    sig, groups_, _ = _signature(lambda v: np.tanh(v), x)
    assert provenance.words(sig, groups_, (3, cols), (3, cols), "y", "x") == "y[i0, i1] changes with x[i0, i1]"
    # The last column dropped is seen at the edge slice, with a one-element witness.
    sig_s, groups_, _ = _signature(lambda v: v.sum(axis=1), x)
    sig_t, _, _ = _signature(lambda v: v[:, :-1].sum(axis=1), x)
    found = provenance.candidates(sig_s, sig_t)
    assert found and {groups_[g] for _, g, _ in found} == {Group(1, cols - 1)}
    possible = Group(1, cols - 1).mask(x.shape) & provenance.hull(sig_s[found[0][0]], groups_, x.shape)
    assert provenance.pick(possible) == [found[0][0] * cols + cols - 1]
    # An interior column dropped is inside every group it belongs to: not seen (a miss, never an alarm).
    sig_t, _, _ = _signature(lambda v: np.delete(v, 50, axis=1).sum(axis=1), x)
    assert provenance.candidates(sig_s, sig_t) == []
