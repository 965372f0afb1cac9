"""extract-accesses: a reduction's sources (`r3/LANE7`, "read r3 for every LANE7") stay one per read
however many reductions a loop makes (liger's Sinkhorn kernels alternate row and column sums: the
source paths doubled with each trip, until the pass ran out of memory)."""

from __future__ import annotations

from lowercheck.compare.static import parse_source
from lowercheck.passes.extract_accesses import reduced


def test_reductions_since_the_last_rename_are_sorted_and_unique() -> None:
    assert reduced("r3", "LANE7") == "r3/LANE7"
    assert reduced("r3/LANE7", "LANE4") == "r3/LANE4/LANE7"
    assert reduced("r3/LANE11", "LANE8") == "r3/LANE8/LANE11"  # by number, not as text
    assert reduced(reduced("r3/LANE4/LANE7", "LANE7"), "LANE4") == "r3/LANE4/LANE7"
    # a rename in between: the lane may be a new one there, so it is reduced again after it
    assert reduced("r3/LANE7@LANE3=LANE7", "LANE7") == "r3/LANE7@LANE3=LANE7/LANE7"
    assert parse_source(reduced("r3/LANE7@LANE3=LANE7", "LANE7"))[1] == [
        ("reduce", "LANE7"), ("rename", {"LANE3": "LANE7"}), ("reduce", "LANE7")]


def test_alternating_reductions_do_not_grow_the_sources() -> None:
    source = "r0"
    for trip in range(40):
        source = reduced(source, "LANE4" if trip % 2 else "LANE5")
    assert source == "r0/LANE4/LANE5"
