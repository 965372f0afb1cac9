"""Merged dimensions: a buffer specified as [B, T, C] and indexed flat by `idx * C + c` with
`idx < B*T` (llm.c's style: one thread per (b, t) row) is in bounds and fully written. The split
into coordinates merges B and T (`coordinates.py`, "merged"); a real overrun is still found, in the
dimension it leaves: past B*T rows in dimension 0, past C columns in dimension 2 (a wrap)."""

from __future__ import annotations

from lowercheck import ir
from lowercheck.compare.accesses import build
from lowercheck.compare.static import Side, analyse

SIZES = ["B", "C", "T"]
SWEEP = [{"B": 1, "T": 1, "C": 1}, {"B": 3, "T": 5, "C": 7}, {"B": 2, "T": 3, "C": 32}]
SHAPES = {"inp": ["B", "T", "C"], "out": ["B", "T", "C"]}
ROLES = {"inp": "in", "out": "out"}


def module(language: str, grid: str, block: str, index: str, domain: str, guard: str, lanes: str = "") -> str:
    def one(buffer: str, kind: str, id_: str, sources: str) -> str:
        return (f'    access.access {{buffer = "{buffer}", kind = "{kind}", space = "global", element_type = f32, '
                f'indices = ["{index}"], domain = {domain}, guard = ["{guard}"], fastest = "LANE0", '
                f'id = "{id_}", sources = {sources}{lanes}}}')
    return f'''builtin.module {{
  kernel.entry @scale attributes {{language = "{language}", file = "scale"}} {{
    kernel.param {{name = "inp", kind = "buffer", role = "in", element_type = f32, shape = ["B", "T", "C"]}}
    kernel.param {{name = "out", kind = "buffer", role = "out", element_type = f32, shape = ["B", "T", "C"]}}
    kernel.launch @k {{grid = {grid}, block = {block}, args = ["inp", "out", "B", "T", "C"]}}
  }}
  access.kernel @k attributes {{grid = {grid}}} {{
{one("inp", "read", "r0", "[]")}
{one("out", "write", "w0", '["r0"]')}
  }}
}}'''


IDX = "128*GRID0 + LANE0"


def cuda(guard: str = f"{IDX} < B*T", trips: str = "C") -> Side:
    """for (c = 0; c < C; c++) out[idx * C + c] = 2 * inp[idx * C + c], idx < B*T."""
    text = module("cuda", '["floor((B*T + 127)/128)", "1", "1"]', '["128", "1", "1"]',
                  f"C*({IDX}) + SEQ0", f'["LANE0 < 128", "SEQ0 < {trips}"]', guard)
    return Side("source", ir.parse(text), SHAPES, ROLES)


def triton() -> Side:
    """One program per (b, t) row: inp + row * C + cols, cols < C (a tile of 32 columns)."""
    text = module("triton", '["B*T", "1", "1"]', "[]", "C*GRID0 + LANE3", '["LANE3 < 32"]', "LANE3 < C",
                  ', lanes = ["LANE3"]')
    return Side("target", ir.parse(text), SHAPES, ROLES)


def errors(source: Side, sweep=SWEEP) -> list:
    result = analyse(source, triton(), {"inp": "inp", "out": "out"}, SIZES, sweep)
    return [f for f in result.findings if f.level == "error"]


def test_rows_of_a_merged_batch_and_time_are_in_bounds_and_cover_the_output() -> None:
    assert errors(cuda()) == []
    rel = build(cuda().module, SWEEP[1], SIZES, SHAPES)
    write = next(a for a in rel.accesses if a.kind == "write")
    assert write.split == "merged"  # (floor(idx/T), idx mod T, c), not (0, idx, c)


def test_a_row_past_b_times_t_is_out_of_bounds_in_dimension_zero() -> None:
    found = errors(cuda(guard=f"{IDX} < B*T + 1"))
    assert {f.code for f in found} == {"LC201"}
    assert {f.witness["dimension"] for f in found} == {0}
    assert found[0].witness["index"][1:] == [0, 0]  # row B*T is (B, 0): one past the last batch


def test_a_column_past_c_is_out_of_bounds_in_dimension_two() -> None:
    """c <= C: the last column's neighbour is the next row's first element; merging B and T does
    not hide it, because the index uses C's stride."""
    found = errors(cuda(trips="C + 1"))
    assert {f.code for f in found} == {"LC201"}
    assert {f.witness["dimension"] for f in found} == {2}
    wide = errors(cuda(trips="C + 1"), [{"B": 3, "T": 5, "C": 7}])
    assert all(f.witness["index"] == [0, 0, 7] and f.witness["wraps"] for f in wide)
    assert "wraps into another row" in wide[0].message
