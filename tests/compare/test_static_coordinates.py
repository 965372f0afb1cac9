"""Static checks in logical coordinates, and the type checks: hand-written access IR of a 2-D copy
`out[r][c] = x[r][c]` (source: CUDA, one thread per element) against ports with one bug each."""

from __future__ import annotations

import pytest

from lowercheck import ir
from lowercheck.compare import explain
from lowercheck.compare.accesses import build
from lowercheck.compare.static import CHECKS, Side, analyse
from lowercheck.findings import Evidence

SWEEP = [{"rows": 1, "cols": 1}, {"rows": 33, "cols": 17}, {"rows": 40, "cols": 70}]
SHAPES = {"x": ["rows", "cols"], "out": ["rows", "cols"]}
ROLES = {"x": "in", "out": "out"}


def module(language: str, accesses: str, grid: str, block: str = "[]") -> str:
    return f'''builtin.module {{
  kernel.entry @copy attributes {{language = "{language}", file = "copy"}} {{
    kernel.param {{name = "x", kind = "buffer", role = "in", element_type = f32, shape = ["rows", "cols"]}}
    kernel.param {{name = "out", kind = "buffer", role = "out", element_type = f32, shape = ["rows", "cols"]}}
    kernel.launch @k {{grid = {grid}, block = {block}, args = ["x", "out", "rows", "cols"]}}
  }}
  access.kernel @k attributes {{grid = {grid}}} {{
{accesses}
  }}
}}'''


def access(buffer: str, kind: str, index: str, guard: str, lanes: str, fastest: str, id_: str,
           sources: str = "[]", extra: str = "") -> str:
    return (f'    access.access {{buffer = "{buffer}", kind = "{kind}", space = "global", element_type = f32, '
            f'indices = ["{index}"], domain = {lanes}, guard = ["{guard}"], fastest = "{fastest}", '
            f'id = "{id_}", sources = {sources}{extra}}}')


CUDA_GRID = '["floor((cols + 15)/16)", "floor((rows + 15)/16)", "1"]'
CUDA_ROW, CUDA_COL = "16*GRID1 + LANE1", "16*GRID0 + LANE0"
CUDA_GUARD = f"({CUDA_ROW} < rows) & ({CUDA_COL} < cols)"


def source(accumulation: str = "") -> Side:
    index = f"cols*({CUDA_ROW}) + {CUDA_COL}"
    body = "\n".join([
        access("x", "read", index, CUDA_GUARD, '["LANE0 < 16", "LANE1 < 16"]', "LANE0", "r0"),
        access("out", "write", index, CUDA_GUARD, '["LANE0 < 16", "LANE1 < 16"]', "LANE0", "w0", '["r0"]',
               accumulation)])
    text = module("cuda", body, CUDA_GRID, '["16", "16", "1"]')
    return Side("source", ir.parse(text), SHAPES, ROLES)


T_GRID = '["floor((cols + 31)/32)", "floor((rows + 31)/32)", "1"]'
T_ROW, T_COL = "32*GRID1 + LANE4", "32*GRID0 + LANE5"
T_LANES = '["LANE4 < 32", "LANE5 < 32"]'


def target(load_guard: str = f"({T_ROW} < rows) & ({T_COL} < cols)", load_extra: str = "",
           store_extra: str = "") -> Side:
    index = f"cols*({T_ROW}) + {T_COL}"
    full = f"({T_ROW} < rows) & ({T_COL} < cols)"
    body = "\n".join([
        access("x", "read", index, load_guard, T_LANES, "LANE5", "r0", extra=load_extra),
        access("out", "write", index, full, T_LANES, "LANE5", "w0", '["r0"]', store_extra)])
    return Side("target", ir.parse(module("triton", body, T_GRID)), SHAPES, ROLES)


def run(tgt: Side, src: Side | None = None, sweep=SWEEP):
    return analyse(src or source(), tgt, {"x": "x", "out": "out"}, ["rows", "cols"], sweep)


def codes(result) -> list[str]:
    return sorted(f.code for f in result.findings if f.level in ("error", "warning"))


def test_two_dimensional_port_is_proved_for_all_sizes() -> None:
    result = run(target())
    assert result.strength is Evidence.PARAMETRIC  # cols*row is not affine; the coordinates are
    assert codes(result) == []
    verdicts = {c.code: c.status for c in result.checks}
    assert list(verdicts) == list(CHECKS)  # every check says how it is known, even when it passed
    assert verdicts["LC201"] == verdicts["LC204"] == Evidence.PARAMETRIC
    assert verdicts["LC209"] == Evidence.SWEPT


def test_column_wrap_is_out_of_bounds_in_dimension_one() -> None:
    """The load is masked on rows only: the tile's columns past `cols` read the next row (in bounds
    of the flat buffer except in the last row), which a flat check calls fine for every other row."""
    result = run(target(load_guard=f"{T_ROW} < rows"))
    assert codes(result) == ["LC201"]
    finding = result.findings[0]
    assert finding.witness["dimension"] == 1 and finding.evidence == Evidence.REFUTED
    assert "dimension 1 of [rows, cols]" in finding.message
    # At two rows the stray column of row 0 lands in row 1, inside the flat buffer: a wrap.
    wide = analyse(source(), target(load_guard=f"{T_ROW} < rows"), {"x": "x", "out": "out"},
                   ["rows", "cols"], [{"rows": 2, "cols": 17}], swept=True)
    wrap = next(f for f in wide.findings if f.code == "LC201")
    assert wrap.witness["index"] == [0, 17] and wrap.witness["flat_index"] == 17 and wrap.witness["wraps"]
    assert "wraps into another row" in wrap.message


def test_int32_index_overflow_at_large_sizes() -> None:
    overflow = ', int32 = ["cols*(32*GRID1 + LANE4)"]'
    clean = run(target(load_extra=overflow))
    assert "LC209" not in codes(clean)  # the default sweep's sizes fit
    big = run(target(load_extra=overflow), sweep=[{"rows": 70000, "cols": 40000}])
    found = [f for f in big.findings if f.code == "LC209"]
    assert len(found) == 1 and found[0].witness["value"] == 69999 * 40000
    assert found[0].witness["work_item"]["GRID1"] == 69999 // 32


@pytest.mark.parametrize("source_types, target_types, flagged", [
    ('["f32"]', '["f16", "f32"]', True),
    ('["f32"]', '["tf32"]', True),
    ('["f16"]', '["f32"]', False),  # wider on the target: fine
    ('["f32"]', '["f32"]', False),
])
def test_accumulation_types(source_types: str, target_types: str, flagged: bool) -> None:
    result = run(target(store_extra=f", accumulation = {target_types}"),
                 source(f", accumulation = {source_types}"))
    assert ("LC305" in codes(result)) is flagged


def test_relations_in_words() -> None:
    rel = build(target().module, None, ["rows", "cols"], SHAPES)
    write = next(a for a in rel.accesses if a.kind == "write")
    words = explain.describe(write, triton=True)
    assert words.startswith("program p0, p1 writes out[32*p1 .. 31 + 32*p1 ..., 32*p0 .. 31 + 32*p0 ...]")
