"""Lane steps (`lowercheck.dialects.sources`): what the value at each lane of a warp is computed from
after shuffles, as the static dependence analysis reads it (`static._aligned_items`), against a
simulation of CUDA's shuffle semantics on sets of lanes (a lane out of the group keeps its own value)."""

from __future__ import annotations

import islpy as isl
import pytest

from lowercheck.compare.static import _aligned_items, parse_source
from lowercheck.dialects.sources import lane_step, merged

LANES, WIDTH = 64, 32
READ = isl.Map(f"{{ K0_r0[GRID0, LANE0] -> x[i0 = LANE0] : GRID0 = 0 and 0 <= LANE0 < {LANES} }}")
WRITE = isl.Map(f"{{ K0_w0[GRID0, LANE0] -> y[i0 = LANE0] : GRID0 = 0 and 0 <= LANE0 < {LANES} }}")


def lanes_read(source: str) -> list[set[int]]:
    """For each lane of the write, the lanes of the read its value is computed from."""
    base, steps = parse_source(source)
    assert base == "r0"
    items = _aligned_items(READ, WRITE, steps).intersect_domain(WRITE.domain())
    found: list[set[int]] = [set() for _ in range(LANES)]

    def add(point: isl.Point) -> None:
        a = point.get_coordinate_val(isl.dim_type.set, 1).to_python()
        b = point.get_coordinate_val(isl.dim_type.set, 3).to_python()
        found[a].add(b)

    items.wrap().foreach_point(add)
    return found


def shuffled(sets: list[set[int]], mode: str, offset: int) -> list[set[int]]:
    """What `__shfl_{mode}_sync(mask, v, offset)` gives each lane, v's dependences being `sets`."""
    out = []
    for lane in range(LANES):
        group, position = divmod(lane, WIDTH)
        if mode == "xor":
            src = lane ^ offset
        elif mode == "down":
            src = lane + offset if position + offset < WIDTH else lane
        elif mode == "up":
            src = lane - offset if position >= offset else lane
        else:
            src = group * WIDTH + offset
        out.append(sets[src])
    return out


def combined(sources: frozenset[str], mode: str, offset: int) -> frozenset[str]:
    """The sources of `v op shfl(v, offset)`, as extract-accesses builds them."""
    kind = {"xor": "x", "down": "d", "up": "u", "idx": "i"}[mode]
    return merged(sources | {s + lane_step("LANE0", kind, offset, WIDTH) for s in sources})


def union(parts: list[list[set[int]]]) -> list[set[int]]:
    return [set().union(*(p[lane] for p in parts)) for lane in range(LANES)]


@pytest.mark.parametrize("mode, offsets", [
    ("xor", [16, 8, 4, 2, 1]),   # a butterfly: every lane combines its whole warp
    ("xor", [1, 2, 4, 8, 16]),   # the same butterfly, offsets the other way round
    ("xor", [16, 8]),            # a partial butterfly: lanes agreeing on the low three bits
    ("down", [16, 8, 4, 2, 1]),  # a shuffle-down chain: lane l combines l .. the end of its warp
    ("down", [8, 4]),
    ("up", [1, 2, 4, 8, 16]),    # a shuffle-up scan: lane l combines the start of its warp .. l
])
def test_a_chain_of_combined_shuffles_is_one_source_with_the_lanes_it_combines(mode, offsets) -> None:
    sources: frozenset[str] = frozenset({"r0"})
    simulated = [{lane} for lane in range(LANES)]
    for offset in offsets:
        sources = combined(sources, mode, offset)
        simulated = union([simulated, shuffled(simulated, mode, offset)])
    assert len(sources) == 1, sources
    assert lanes_read(next(iter(sources))) == simulated


@pytest.mark.parametrize("mode, offset", [("xor", 4), ("down", 3), ("up", 5), ("idx", 7)])
def test_a_single_shuffle_reads_the_one_lane_cuda_reads(mode, offset) -> None:
    kind = {"xor": "x", "down": "d", "up": "u", "idx": "i"}[mode]
    source = "r0" + lane_step("LANE0", kind, offset, WIDTH)
    assert lanes_read(source) == shuffled([{lane} for lane in range(LANES)], mode, offset)


def test_a_broadcast_after_a_chain_gives_every_lane_what_lane_zero_combined() -> None:
    chain = frozenset({"r0"})
    for offset in (16, 8, 4, 2, 1):
        chain = combined(chain, "down", offset)
    (source,) = chain
    read = lanes_read(source + lane_step("LANE0", "i", 0, WIDTH))
    assert read == [set(range(WIDTH * (lane // WIDTH), WIDTH * (lane // WIDTH) + WIDTH)) for lane in range(LANES)]


def test_a_span_holds_its_own_lane_and_the_smaller_spans() -> None:
    span = "r0" + lane_step("LANE0", "U", 31, WIDTH)
    smaller = "r0" + lane_step("LANE0", "U", 3, WIDTH)
    assert merged(frozenset({"r0", smaller, span})) == {span}
    other_kind = "r0" + lane_step("LANE0", "X", 3, WIDTH)
    assert merged(frozenset({span, other_kind})) == {span, other_kind}


def test_an_offset_taken_twice_is_not_folded() -> None:
    once = "r0" + lane_step("LANE0", "D", 16, WIDTH)
    twice = once + lane_step("LANE0", "d", 16, WIDTH)
    assert merged(frozenset({once, twice})) == {once, twice}
    # Two XORs by 16 lead back to lanes the butterfly already holds (l, l ^ 16): absorbed.
    once = "r0" + lane_step("LANE0", "X", 16, WIDTH)
    assert merged(frozenset({once, once + lane_step("LANE0", "x", 16, WIDTH)})) == {once}


def test_partial_butterflies_beside_the_whole_one_are_absorbed_with_the_same_lanes() -> None:
    """A loop around a warp reduction leaves the whole butterfly beside chains of the rounds of other
    trips (r0~X1~x2~X12, ...): each reads lanes the whole one reads, so only it stays, and every lane
    reads what the union read. A chain through another kind of step, or past the mask, stays."""
    x = lambda kind, arg: lane_step("LANE0", kind, arg, WIDTH)  # noqa: E731
    whole = "r0" + x("X", 31)
    partial = {"r0" + x("X", 1) + x("x", 2) + x("X", 12), "r0" + x("X", 3) + x("x", 4), "r0" + x("x", 8) + x("X", 16),
               "r0" + x("X", 15) + x("x", 16)}
    assert merged(frozenset({whole, *partial})) == {whole}
    assert union([lanes_read(s) for s in [whole, *partial]]) == lanes_read(whole)
    half = "r0" + x("X", 15)
    down = "r0" + x("X", 1) + x("d", 2)
    past = "r0" + x("X", 3) + x("x", 16)
    assert merged(frozenset({half, down, past})) == {half, down, past}


def test_a_prefix_reads_the_lanes_up_to_the_writes_and_earlier_trips_stop_before_it() -> None:
    """`r0^LANE0` (tl.cumsum along the lane): lane l reads lanes 0..l; `r0<LANE0`, the step of a loop's
    earlier trips, is strict: lane l reads 0..l-1 (none at lane 0)."""
    assert lanes_read("r0^LANE0") == [set(range(lane + 1)) for lane in range(LANES)]
    assert lanes_read("r0<LANE0") == [set(range(lane)) for lane in range(LANES)]
    # after a shuffle: the prefix of the values that lane l + 1 holds (its own lane wins past the group)
    down = lanes_read("r0^LANE0" + lane_step("LANE0", "d", 1, WIDTH))
    assert down[0] == {0, 1} and down[WIDTH - 1] == set(range(WIDTH))
