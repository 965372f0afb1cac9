"""Static checks on hand-written access IR: each check fires on its bug and stays quiet on the port."""

from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

from lowercheck import ir
from lowercheck.bind import set_shape
from lowercheck.compare import accesses
from lowercheck.compare.static import Side, analyse
from lowercheck.diff import SideInfo
from lowercheck.findings import Evidence
from lowercheck.lowering import extract_accesses
from lowercheck.symbolic import NonAffine

SOURCE_IR = Path(__file__).parents[1] / "filecheck" / "passes" / "extract_accesses_cuda.mlir"
SWEEP = [{"n": 1}, {"n": 1000}, {"n": 4099}]
CORRESPONDENCE = {"x": "a", "y": "b", "return0": "c"}


def source() -> Side:
    module = extract_accesses(ir.parse(SOURCE_IR.read_text()))
    return Side("source", module, {"a": ["n"], "b": ["n"], "c": ["n"]}, {"a": "in", "b": "in", "c": "out"})


def target(grid: str = "floor((n + 1023)/1024)", guard: bool = True, store: str = "1024*GRID0 + LANE3",
           load: str = "1024*GRID0 + LANE3", lanes: int = 1024) -> Side:
    g = '["%s < n"]' % store if guard else "[]"
    gl = '["%s < n"]' % load if guard else "[]"
    text = f'''builtin.module {{
  kernel.entry @add attributes {{language = "triton", file = "vadd.py"}} {{
    kernel.param {{name = "x", kind = "buffer", role = "in", element_type = f32, shape = ["n"]}}
    kernel.param {{name = "y", kind = "buffer", role = "in", element_type = f32, shape = ["n"]}}
    kernel.param {{name = "return0", kind = "buffer", role = "out", element_type = f32, shape = ["n"]}}
    kernel.launch @k {{grid = ["{grid}", "1", "1"], block = [], args = ["x", "y", "return0", "n"]}}
  }}
  access.kernel @k attributes {{grid = ["{grid}", "1", "1"]}} {{
    access.access {{buffer = "x", kind = "read", space = "global", element_type = f32, indices = ["{load}"], domain = ["LANE3 < {lanes}"], guard = {gl}, fastest = "LANE3", id = "r0", sources = []}}
    access.access {{buffer = "y", kind = "read", space = "global", element_type = f32, indices = ["{load}"], domain = ["LANE3 < {lanes}"], guard = {gl}, fastest = "LANE3", id = "r1", sources = []}}
    access.access {{buffer = "return0", kind = "write", space = "global", element_type = f32, indices = ["{store}"], domain = ["LANE3 < {lanes}"], guard = {g}, fastest = "LANE3", id = "w0", sources = ["r0", "r1"]}}
  }}
}}'''
    return Side("target", ir.parse(text), {"x": ["n"], "y": ["n"], "return0": ["n"]},
                {"x": "in", "y": "in", "return0": "out"})


def errors(side: Side) -> dict[str, list]:
    result = analyse(source(), side, CORRESPONDENCE, ["n"], SWEEP)
    found: dict[str, list] = {}
    for f in result.findings:
        if f.level == "error":
            found.setdefault(f.code, []).append(f)
    return found


def test_correct_port_is_clean_for_all_sizes() -> None:
    result = analyse(source(), target(), CORRESPONDENCE, ["n"], SWEEP)
    assert result.strength is Evidence.PARAMETRIC
    assert [f.code for f in result.findings] == ["LC101"]


def test_floor_grid_leaves_the_tail_unwritten() -> None:
    found = errors(target(grid="floor(n/1024)"))
    assert list(found) == ["LC202"]
    witness = found["LC202"][0].witness
    assert witness["sizes"] == {"n": 1} and witness["index"] == 0


def test_missing_mask_reads_and_writes_out_of_bounds() -> None:
    found = errors(target(guard=False))
    assert sorted(found) == ["LC201"]
    assert {f.buffer for f in found["LC201"]} == {"x", "y", "return0"}
    w = found["LC201"][0].witness
    assert w["index"] >= w["extent"] == w["sizes"]["n"]


def test_overlapping_tiles_write_twice() -> None:
    # pid * (BLOCK // 2): neighbouring programs overlap by half a tile.
    found = errors(target(grid="floor((n + 511)/512)", store="512*GRID0 + LANE3", load="512*GRID0 + LANE3"))
    assert "LC203" in found
    assert "written by two work items" in found["LC203"][0].message


def test_shifted_load_changes_the_dependence() -> None:
    found = errors(target(load="1024*GRID0 + LANE3 + 1", store="1024*GRID0 + LANE3"))
    assert "LC204" in found


def test_remapped_bijection_is_equivalent() -> None:
    # Lanes walk the tile backwards: a different thread-to-element map, the same elements.
    idx = "1024*GRID0 + 1023 - LANE3"
    found = errors(target(store=idx, load=idx))
    assert found == {}


@pytest.mark.parametrize("grid", ["floor((n + 1023)/1024)"])
def test_non_affine_index_falls_back_to_the_sweep(grid: str) -> None:
    idx = "Mod(1024*GRID0 + LANE3, n)"  # Mod by a size: not quasi-affine, checked per swept size
    sweep = [{"n": 1}, {"n": 300}, {"n": 1000}]  # isl is slow on `mod 4099` pairs; small sizes show it
    result = analyse(source(), target(grid=grid, store=idx, load=idx), CORRESPONDENCE, ["n"], sweep)
    assert result.strength is Evidence.SWEPT
    assert any(f.code == "LC203" for f in result.findings)


def test_relations_are_built_once_per_binding_and_again_once_a_shape_is_bound() -> None:
    """`accesses.build` is shared by the checks, the traffic and the cost model: the same module,
    binding and shapes give the same relations; another binding, or a shape a spec binds into the
    module (`bind.set_shape`), builds them again; a parametric build that is not affine raises
    each time it is asked."""
    module = target().module
    first = accesses.build(module, {"n": 1000}, ["n"])
    assert accesses.build(module, {"n": 1000}, ["n"]) is first
    assert accesses.build(module, {"n": 999}, ["n"]) is not first
    parametric = accesses.build(module, None, ["n"])
    assert parametric is not first and parametric.sizes is None
    set_shape(module, "x", ["2", "n"])
    bound = accesses.build(module, {"n": 1000}, ["n"])
    assert bound is not first
    assert bound.of("x", "read")[0].relation.dim(isl.dim_type.out) == 2  # x[i0, i1] in its new shape
    product = target(store="GRID0*n", guard=False).module
    for _ in range(2):
        with pytest.raises(NonAffine):
            accesses.build(product, None, ["n"])


def test_a_sides_text_for_the_runners_is_printed_once_and_again_once_a_shape_is_bound() -> None:
    """Every run request of a CUDA side carries its module's text (`SideInfo.ir_text`): printed once
    per module, and printed again after `bind.set_shape` changed a parameter's shape."""
    side = SideInfo("source", "vadd.cu", "vadd", "cuda", ir.parse(SOURCE_IR.read_text()))
    first = side.ir_text()
    assert side.ir_text() is first and first == ir.print_ir(side.module)
    set_shape(side.module, "a", ["2", "n"])
    again = side.ir_text()
    assert again != first and again == ir.print_ir(side.module) and '"2", "n"' in again
