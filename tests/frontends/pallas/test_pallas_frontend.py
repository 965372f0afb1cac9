"""The Pallas front end: entries read from the source, the module it lowers (BlockSpec windows
composed with the ref indexing, padding guards, lanes shared through data flow), round trips through
`lowercheck.ir.parse`, and the errors users see. The FileCheck views of the same IR are
tests/filecheck/frontends/pallas_*.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")

from lowercheck import ir  # noqa: E402
from lowercheck.dialects.access import AccessOp, UnmodelledOp  # noqa: E402
from lowercheck.dialects.kernel import EntryOp  # noqa: E402
from lowercheck.errors import Unsupported, UserError  # noqa: E402
from lowercheck.frontends import frontend_for, language_of  # noqa: E402
from lowercheck.frontends import pallas as frontend  # noqa: E402
from lowercheck.frontends.base import Binding, NeedsConcreteSizes, TensorArg  # noqa: E402
from lowercheck.lowering import extract_accesses  # noqa: E402

INPUTS = Path(__file__).parent / "inputs"
VEC = TensorArg(("n",), "float32")
MAT = TensorArg(("rows", "cols"), "float32")


def lower(name: str, binding: Binding):
    return frontend.lower(str(INPUTS / name), None, binding)


def accesses(module) -> dict[str, AccessOp]:
    found = [op for op in extract_accesses(module).walk() if isinstance(op, AccessOp)]
    return {f"{op.kind.data} {op.buffer.data}": op for op in found}


def strings(attr) -> list[str]:
    return [s.data for s in attr.data]


def test_language_and_entries() -> None:
    path = str(INPUTS / "vadd_pallas.py")
    assert language_of(path) == "pallas"
    [entry] = frontend.entries(path)
    assert (entry.name, [p.name for p in entry.params], entry.launches) == ("vadd", ["x", "y"], ("vadd_kernel",))
    assert entry.location.line == 14


def test_symbolic_binding_asks_for_concrete_sizes() -> None:
    with pytest.raises(NeedsConcreteSizes):
        lower("vadd_pallas.py", Binding(args={"x": VEC, "y": VEC}))


@pytest.mark.parametrize("name, binding", [
    ("vadd_pallas.py", Binding(args={"x": VEC, "y": VEC}, sizes={"n": 1000})),
    ("softmax_pallas.py", Binding(args={"x": MAT}, sizes={"rows": 20, "cols": 100})),
    ("matmul_pallas.py", Binding(args={"a": TensorArg(("m", "k"), "float32"), "b": TensorArg(("k", "n"), "float32")},
                                 sizes={"m": 40, "k": 33, "n": 24})),
    ("when_masked.py", Binding(args={"x": MAT}, sizes={"rows": 5, "cols": 100})),
])
def test_round_trip(name: str, binding: Binding) -> None:
    module = lower(name, binding)
    for debuginfo in (False, True):
        text = ir.print_ir(module, debuginfo=debuginfo)
        assert ir.print_ir(ir.parse(text), debuginfo=debuginfo) == text
    entry = next(op for op in module.ops if isinstance(op, EntryOp))
    assert entry.language.data == "pallas"
    assert not [op for op in extract_accesses(module).walk() if isinstance(op, UnmodelledOp)]


def test_vadd_windows_padding_and_dependences() -> None:
    module = lower("vadd_pallas.py", Binding(args={"x": VEC, "y": VEC}, sizes={"n": 1000}))
    entry = next(op for op in module.ops if isinstance(op, EntryOp))
    [launch] = entry.launches
    assert strings(launch.grid) == ["4", "1", "1"] and strings(launch.args) == ["x", "y", "return0"]
    assert {p.pname: (p.role.data, strings(p.shape)) for p in entry.params} == {
        "x": ("in", ["n"]), "y": ("in", ["n"]), "return0": ("out", ["n"])}
    found = accesses(module)
    store = found["write return0"]
    assert strings(store.indices) == strings(found["read x"].indices) == strings(found["read y"].indices)
    assert strings(store.guard) == [f"256*GRID0 + {store.fastest.data} < 1000"]  # the padded last block
    assert sorted(strings(store.sources)) == sorted([found["read x"].access_id.data, found["read y"].access_id.data])


def test_a_dividing_block_needs_no_guard() -> None:
    module = lower("vadd_pallas.py", Binding(args={"x": VEC, "y": VEC}, sizes={"n": 1024}))
    assert all(not strings(op.guard) for op in accesses(module).values())


def test_a_window_past_the_end_stays_unguarded() -> None:
    """x's index_map is i + 1: the last program's window starts at 1024 >= 1000. That window is no
    padding: the guard lets those accesses through, so the bounds check sees them."""
    module = lower("vadd_pallas_shifted.py", Binding(args={"x": VEC, "y": VEC}, sizes={"n": 1000}))
    found = accesses(module)
    lane = found["read x"].fastest.data
    assert strings(found["read x"].indices) == [f"256*GRID0 + {lane} + 256"]
    assert strings(found["read x"].guard) == [f"(256*GRID0 + 256 >= 1000) | (256*GRID0 + {lane} + 256 < 1000)"]
    assert strings(found["read y"].guard) == [f"256*GRID0 + {lane} < 1000"]


def test_matmul_lanes_follow_the_data() -> None:
    """The output's row lane is a's row lane and its column lane is b's; the K lanes are neither."""
    import sympy

    module = lower("matmul_pallas.py", Binding(args={"a": TensorArg(("m", "k"), "float32"),
                                                     "b": TensorArg(("k", "n"), "float32")},
                                               sizes={"m": 32, "k": 32, "n": 32}))
    found = accesses(module)

    def lanes(op: AccessOp) -> set[str]:
        return {s.name for s in sympy.sympify(op.indices.data[0].data).free_symbols if s.name.startswith("LANE")}

    a, b, out = lanes(found["read a"]), lanes(found["read b"]), lanes(found["write return0"])
    assert len(a) == len(b) == len(out) == 2
    assert len(a & out) == 1 and len(b & out) == 1 and not (a & b & out)
    assert "SEQ0" in found["read a"].indices.data[0].data  # the K loop


def test_when_and_masks_become_guards() -> None:
    found = accesses(lower("when_masked.py", Binding(args={"x": MAT}, sizes={"rows": 5, "cols": 100})))
    lane = found["read x"].fastest.data
    assert strings(found["read x"].guard) == [f"{lane} < 100"]  # the user's mask and the padding agree
    assert strings(found["write return0"].guard) == ["Eq(Mod(GRID0, 2), 0)", f"{lane} < 100"]
    assert strings(found["write return1"].indices) == ["GRID0"]  # squeezed row, element 0
    assert strings(found["write return1"].sources) == [f"{found['read x'].access_id.data}/{lane}"]


def test_unsupported_construct_names_the_line() -> None:
    with pytest.raises(Unsupported) as info:
        lower("unsupported.py", Binding(args={"x": VEC}, sizes={"n": 300}))
    assert info.value.location.line == 9 and "cumsum" in info.value.message


def test_missing_entry_is_a_user_error() -> None:
    with pytest.raises(UserError, match="no function `nope`"):
        frontend.lower(str(INPUTS / "vadd_pallas.py"), "nope", Binding(args={"x": VEC, "y": VEC}, sizes={"n": 8}))


def test_isolated_worker_lowers_the_same_module() -> None:
    from lowercheck.frontends import stop_workers

    path = str(INPUTS / "softmax_pallas.py")
    binding = Binding(args={"x": MAT}, sizes={"rows": 9, "cols": 7})
    try:
        worker = frontend_for(path)
        assert worker is not frontend
        isolated = worker.lower(path, "softmax", binding)
        assert ir.print_ir(isolated) == ir.print_ir(frontend.lower(path, "softmax", binding))
    finally:
        stop_workers()
