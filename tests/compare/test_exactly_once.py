"""The exactly-once check (LC203) on hand-written access IR: an element written twice is a finding
only when two work items write it (two CUDA threads, two programs), or one program writes it from
two threads (two lanes of one store, or two positions of its tiles). One thread's rewrites are in
program order: an output used as scratch and overwritten, or a loop storing into out[i] each trip."""

from __future__ import annotations

import json

import pytest

from lowercheck import ir
from lowercheck.compare.static import Side, analyse
from lowercheck.findings import Evidence

SWEEP = [{"n": 1}, {"n": 1000}, {"n": 4099}]
SHAPES = {"x": ["n"], "out": ["n"]}
ROLES = {"x": "in", "out": "out"}


def side(name: str, language: str, grid: str, block: str, accesses: list[str]) -> Side:
    text = f'''builtin.module {{
  kernel.entry @k attributes {{language = "{language}", file = "k"}} {{
    kernel.param {{name = "x", kind = "buffer", role = "in", element_type = f32, shape = ["n"]}}
    kernel.param {{name = "out", kind = "buffer", role = "out", element_type = f32, shape = ["n"]}}
    kernel.launch @k {{grid = ["{grid}", "1", "1"], block = {block}, args = ["x", "out", "n"]}}
  }}
  access.kernel @k attributes {{grid = ["{grid}", "1", "1"]}} {{
{chr(10).join(accesses)}
  }}
}}'''
    return Side(name, ir.parse(text), SHAPES, ROLES)


def access(buffer: str, kind: str, index: str, domain: list[str], guard: str, id_: str,
           sources: str = "[]", lanes: list[str] | None = None) -> str:
    extra = f", lanes = {json.dumps(lanes)}" if lanes is not None else ""
    doms = ", ".join(json.dumps(d) for d in domain)
    return (f'    access.access {{buffer = "{buffer}", kind = "{kind}", space = "global", element_type = f32, '
            f'indices = ["{index}"], domain = [{doms}], guard = ["{guard}"], fastest = "LANE0", '
            f'id = "{id_}", sources = {sources}{extra}}}')


# CUDA: one thread per element, 256 per block.
I = "256*GRID0 + LANE0"
CUDA_GRID, CUDA_BLOCK = "floor((n + 255)/256)", '["256", "1", "1"]'
THREAD = ["LANE0 < 256"]


def cuda(*writes: str) -> Side:
    read = access("x", "read", I, THREAD, f"{I} < n", "r0")
    return side("source", "cuda", CUDA_GRID, CUDA_BLOCK, [read, *writes])


# Triton: one program per 1024-element tile.
P = "1024*GRID0 + LANE3"
T_GRID = "floor((n + 1023)/1024)"
TILE = ["LANE3 < 1024"]


def triton(*writes: str, read: str = "") -> Side:
    load = read or access("x", "read", P, TILE, f"{P} < n", "r0", lanes=["LANE3"])
    return side("target", "triton", T_GRID, "[]", [load, *writes])


def lc203(source: Side, target: Side) -> list:
    result = analyse(source, target, {"x": "x", "out": "out"}, ["n"], SWEEP)
    return [f for f in result.findings if f.code == "LC203"]


def straight_cuda() -> Side:
    return cuda(access("out", "write", I, THREAD, f"{I} < n", "w0", '["r0"]'))


def straight_triton() -> Side:
    return triton(access("out", "write", P, TILE, f"{P} < n", "w0", '["r0"]', lanes=["LANE3"]))


def test_one_thread_overwriting_its_element_is_not_a_double_write() -> None:
    """out[i] = x[i] as scratch, then out[i] = 2 x[i] + 1: two stores of one thread, in order."""
    src = cuda(access("out", "write", I, THREAD, f"{I} < n", "w0", '["r0"]'),
               access("out", "write", I, THREAD, f"{I} < n", "w1", '["r0"]'))
    assert lc203(src, straight_triton()) == []


def test_a_loop_storing_each_trip_into_one_element_is_not_a_double_write() -> None:
    """for (c = 0; c < 8; c++) { acc += ...; out[i] = acc; }: trips of one thread are ordered."""
    src = cuda(access("out", "write", I, [*THREAD, "SEQ0 < 8"], f"{I} < n", "w0", '["r0"]'))
    assert lc203(src, straight_triton()) == []


def test_two_threads_writing_one_element_still_write_twice() -> None:
    """out[i / 2 * 2] then out[i]: thread 1 writes element 0, which thread 0 also writes."""
    src = cuda(access("out", "write", f"2*floor(({I})/2)", THREAD, f"{I} < n", "w0", '["r0"]'),
               access("out", "write", I, THREAD, f"{I} < n", "w1", '["r0"]'))
    found = lc203(src, straight_triton())
    assert len(found) == 1 and found[0].side == "source"
    assert "written by two work items" in found[0].message
    assert found[0].witness["work_items"] == 2 and found[0].evidence == Evidence.REFUTED


def test_a_program_overwriting_its_tile_in_order_is_not_a_double_write() -> None:
    """Two stores of the same tile, and a loop storing the same tile each trip: each element is
    written at one position of the tile, by one thread of the program, in program order."""
    twice = triton(access("out", "write", P, TILE, f"{P} < n", "w0", '["r0"]', lanes=["LANE3"]),
                   access("out", "write", P, TILE, f"{P} < n", "w1", '["r0"]', lanes=["LANE3"]))
    looped = triton(access("out", "write", P, [*TILE, "SEQ0 < 8"], f"{P} < n", "w0", '["r0"]',
                           lanes=["LANE3"]))
    assert lc203(straight_cuda(), twice) == []
    assert lc203(straight_cuda(), looped) == []


def test_two_lanes_of_one_store_write_twice() -> None:
    """A store whose tile maps two lanes to one address: one store writes its tile at once, so
    the two writes have no order (the Triton caveat: lanes are not program order)."""
    halved = "1024*GRID0 + floor(LANE3/2)"
    tgt = triton(access("out", "write", halved, TILE, f"{halved} < n", "w0", '["r0"]', lanes=["LANE3"]))
    found = lc203(straight_cuda(), tgt)
    assert len(found) == 1 and found[0].witness["work_items"] == 1
    assert "two lanes of one store" in found[0].message
    assert found[0].witness["first"] == "program (0, 0, 0), lane3=0"
    assert found[0].witness["second"] == "program (0, 0, 0), lane3=1"


def test_two_stores_at_different_positions_of_one_program_write_twice() -> None:
    """Store 1 writes element e + 1 at position e, store 2 writes it at position e + 1: different
    threads of the program, with no order between them for global memory."""
    shifted = f"{P} + 1"
    tgt = triton(access("out", "write", shifted, TILE, f"{shifted} < n", "w0", '["r0"]', lanes=["LANE3"]),
                 access("out", "write", P, TILE, f"{P} < n", "w1", '["r0"]', lanes=["LANE3"]))
    found = lc203(straight_cuda(), tgt)
    assert len(found) == 1 and found[0].witness["work_items"] == 1
    assert "different positions of its tiles" in found[0].message


@pytest.mark.parametrize("second_lanes, index, clean", [
    (["LANE7", "LANE6"], "32*LANE7 + LANE6", True),  # the same positions under other lane names
    (["LANE6", "LANE7"], "32*LANE7 + LANE6", False),  # the transposed positions: other threads
])
def test_tiles_are_compared_position_by_position(second_lanes: list[str], index: str, clean: bool) -> None:
    """A 32 x 32 tile stored twice: the second store's lanes are other variables; `lanes` says
    which is which dimension, so the same element at the same (row, column) is the same thread."""
    first = access("out", "write", "32*LANE4 + LANE5", ["LANE4 < 32", "LANE5 < 32"], "32*LANE4 + LANE5 < n",
                   "w0", '["r0"]', lanes=["LANE4", "LANE5"])
    second = access("out", "write", index, ["LANE6 < 32", "LANE7 < 32"], f"{index} < n", "w1", '["r0"]',
                    lanes=second_lanes)
    read = access("x", "read", "32*LANE4 + LANE5", ["LANE4 < 32", "LANE5 < 32"], "32*LANE4 + LANE5 < n",
                  "r0", lanes=["LANE4", "LANE5"])
    tgt = side("target", "triton", "1", "[]", [read, first, second])
    assert (lc203(straight_cuda(), tgt) == []) is clean


def test_two_programs_writing_one_element_still_write_twice() -> None:
    """Tiles at pid * 512 of 1024 elements: neighbouring programs overlap."""
    overlap = "512*GRID0 + LANE3"
    tgt = triton(access("out", "write", overlap, TILE, f"{overlap} < n", "w0", '["r0"]', lanes=["LANE3"]))
    found = lc203(straight_cuda(), tgt)
    assert len(found) == 1 and "written by two work items" in found[0].message
    assert found[0].witness["first"].startswith("program (0, 0, 0)")
    assert found[0].witness["second"].startswith("program (1, 0, 0)")


def revisiting(ordered: bool) -> Side:
    """A Pallas program per tile along GRID0, four steps along GRID1 that all store the same tile
    (an output block revisited at each k step); `ordered`: GRID1 is an ordered axis."""
    order = ", ordered = [1 : i32]" if ordered else ""
    grid = '["floor((n + 1023)/1024)", "4", "1"]'
    write = access("out", "write", P, TILE, f"{P} < n", "w0", '["r0"]', lanes=["LANE3"])
    read = access("x", "read", P, TILE, f"{P} < n", "r0", lanes=["LANE3"])
    text = f'''builtin.module {{
  kernel.entry @k attributes {{language = "pallas", file = "k"}} {{
    kernel.param {{name = "x", kind = "buffer", role = "in", element_type = f32, shape = ["n"]}}
    kernel.param {{name = "out", kind = "buffer", role = "out", element_type = f32, shape = ["n"]}}
    kernel.launch @k {{grid = {grid}, block = [], args = ["x", "out", "n"]{order}}}
  }}
  access.kernel @k attributes {{grid = {grid}{order}}} {{
{read}
{write}
  }}
}}'''
    return Side("target", ir.parse(text), SHAPES, ROLES)


def test_steps_along_an_ordered_grid_axis_rewrite_in_program_order() -> None:
    """A TPU kernel's "arbitrary" axis runs step after step on one core: the block it stores at
    every step is rewritten in order (jax's TPU matmul got a false LC203). Along a parallel axis
    the same stores are two programs writing one element."""
    assert lc203(straight_cuda(), revisiting(ordered=True)) == []
    [found] = lc203(straight_cuda(), revisiting(ordered=False))
    assert found.witness["work_items"] == 2
