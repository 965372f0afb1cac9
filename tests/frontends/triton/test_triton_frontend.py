"""The Triton front end: FileCheck tests over inputs/*.py (the `# CHECK:` lines live in each kernel
file), round trips through `lowercheck.ir.parse`, symbolic grids, and the errors users see."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import sympy

os.environ.setdefault("TRITON_CACHE_DIR", str(Path(__file__).parents[3] / ".cache" / "triton"))
os.environ.setdefault("TRITON_HOME", str(Path(__file__).parents[3] / ".cache" / "triton-home"))
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

from lowercheck import ir, symbolic  # noqa: E402
from lowercheck.dialects.kernel import EntryOp  # noqa: E402
from lowercheck.dialects.tt import FuncOp  # noqa: E402
from lowercheck.errors import UserError  # noqa: E402
from lowercheck.frontends import triton as frontend  # noqa: E402
from lowercheck.frontends.base import Binding, NeedsConcreteSizes, ScalarArg, SizeArg, TensorArg  # noqa: E402

INPUTS = Path(__file__).parent / "inputs"
FILECHECK = Path(sys.executable).parent / "filecheck"
VEC = TensorArg(("n",), "float32")

BINDINGS = {
    "vadd.py": Binding(args={"x": VEC, "y": VEC}),
    "saxpy.py": Binding(args={"a": ScalarArg("float32", 1.5), "x": VEC, "y": VEC, "out": VEC, "n": SizeArg("n")}),
    "matmul.py": Binding(args={"a": TensorArg(("M", "K"), "float16"), "b": TensorArg(("K", "N"), "float16")}),
    "two_kernels.py": Binding(args={"x": VEC, "acc": VEC}),
    "rowsum.py": Binding(args={"x": TensorArg(("M", "N"), "float32")}, sizes={"M": 64, "N": 100}),
    "autotuned.py": Binding(args={"x": VEC}, sizes={"n": 4096}),
    "ops.py": Binding(args={"x": VEC, "y": VEC, "z": VEC, "i": TensorArg(("n",), "int32"),
                            "h": TensorArg(("n",), "float16"), "n": SizeArg("n"), "stride": SizeArg("s")}),
    "early_return.py": Binding(args={"x": TensorArg(("rows", "cols"), "float32"), "first_scaled": SizeArg("first")}),
    "early_return_helper.py": Binding(args={"x": VEC, "limit": SizeArg("limit")}),
    "swap_halves.py": Binding(args={"x": VEC}),
    "host_sum.py": Binding(args={"x": TensorArg(("rows", "cols"), "float32")}),
}


def lower(name: str, entry: str | None = None, binding: Binding | None = None):
    return frontend.lower(str(INPUTS / name), entry, binding or BINDINGS[name])


def entry_of(module) -> EntryOp:
    return next(op for op in module.body.block.ops if isinstance(op, EntryOp))


@pytest.mark.parametrize("name", sorted(BINDINGS))
def test_filecheck(name: str) -> None:
    text = ir.print_ir(lower(name), debuginfo=True)
    done = subprocess.run([str(FILECHECK), str(INPUTS / name)], input=text, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr + "\n" + text


@pytest.mark.parametrize("name", sorted(BINDINGS))
def test_round_trip(name: str) -> None:
    module = lower(name)
    for debuginfo in (False, True):
        text = ir.print_ir(module, debuginfo=debuginfo)
        assert ir.print_ir(ir.parse(text), debuginfo=debuginfo) == text


def test_every_op_has_a_source_location() -> None:
    from xdsl.dialects.builtin import FileLineColLoc

    module = lower("vadd.py")
    func = next(op for op in module.body.block.ops if isinstance(op, FuncOp))
    for op in func.walk():
        assert isinstance(op.location, FileLineColLoc), op.name
        assert op.location.filename.data == str(INPUTS / "vadd.py")
    assert func.arg_names == ["x_ptr", "y_ptr", "out_ptr", "n"]


def test_symbolic_grid_is_cdiv() -> None:
    (launch,) = entry_of(lower("vadd.py")).launches
    grid = symbolic.parse(launch.grid_exprs[0])
    n = symbolic.var("n")
    assert sympy.simplify(grid - sympy.floor((n + 1023) / 1024)) == 0
    assert [grid.subs(n, v) for v in (1, 1024, 1025)] == [1, 1, 2]


def test_capped_grid_stays_symbolic(tmp_path: Path) -> None:
    source = (INPUTS / "vadd.py").read_text().replace(
        "grid = (triton.cdiv(n, 1024),)", "grid = (min(triton.cdiv(n, 1024), 4),)")
    path = tmp_path / "capped.py"
    path.write_text(source)
    (launch,) = entry_of(frontend.lower(str(path), None, BINDINGS["vadd.py"])).launches
    assert launch.grid_exprs[0] == "Min(4, floor((n + 1023)/1024))"


def test_concrete_sizes_follow_triton_specialisation() -> None:
    # stride_col == 1 becomes a constexpr, as at a real launch: the launch passes 4 arguments.
    (launch,) = entry_of(lower("rowsum.py")).launches
    assert launch.arg_exprs == ["x", "return0", "100", "100"]


def test_size_dependent_constexpr_needs_concrete_sizes() -> None:
    with pytest.raises(NeedsConcreteSizes, match="BLOCK"):
        lower("rowsum.py", binding=Binding(args={"x": TensorArg(("M", "N"), "float32")}))


def test_size_dependent_heuristic_needs_concrete_sizes() -> None:
    with pytest.raises(NeedsConcreteSizes, match="EVEN"):
        lower("autotuned.py", binding=Binding(args={"x": VEC}))


def test_entries_lists_wrappers_then_kernels() -> None:
    candidate, kernel = frontend.entries(str(INPUTS / "vadd.py"))
    assert candidate.name == "add"
    assert [(p.name, p.kind) for p in candidate.params] == [("x", "unknown"), ("y", "unknown")]
    assert candidate.launches == ("add_kernel",)
    assert candidate.location.line == 17
    assert candidate.chosen_unnamed
    # the kernel itself: an entry by name only, launched on a spec's `[launch] grid`
    assert (kernel.name, kernel.kernel, kernel.chosen_unnamed, kernel.location.line) == ("add_kernel", True, False, 8)
    assert [p.name for p in kernel.params] == ["x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"]


def test_kernel_entry_with_a_grid() -> None:
    @dataclass(frozen=True)
    class GridBinding(Binding):
        grid: tuple[str, ...] = ()

    binding = GridBinding(args={"x_ptr": VEC, "y_ptr": VEC, "out_ptr": VEC, "n": SizeArg("n"),
                                "BLOCK": ScalarArg("int32", 1024)}, grid=("floor((n + 1023)/1024)",))
    entry = entry_of(lower("vadd.py", "add_kernel", binding))
    assert [p.pname for p in entry.params] == ["x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"]
    assert entry.launches[0].grid_exprs == ["floor((n + 1023)/1024)", "1", "1"]
    assert entry.launches[0].arg_exprs == ["x_ptr", "y_ptr", "out_ptr", "n"]
    concrete = GridBinding(args=binding.args, sizes={"n": 1000}, grid=binding.grid)
    assert entry_of(lower("vadd.py", "add_kernel", concrete)).launches[0].arg_exprs[-1] == "1000"


@pytest.mark.parametrize(("name", "line", "message"), [
    ("bad_import.py", 6, "KeyError"),
    ("several.py", 19, "several wrappers"),
    ("wrapper_raises.py", 15, "AttributeError"),
    ("compile_error.py", 10, "power of 2"),
])
def test_user_errors_name_the_line(name: str, line: int, message: str) -> None:
    with pytest.raises(UserError, match=message) as caught:
        frontend.lower(str(INPUTS / name), None, Binding(args={"x": VEC}))
    assert caught.value.location is not None
    assert caught.value.location.line == line
    assert caught.value.location.file.endswith(name)


def test_several_wrappers_hint_and_choice() -> None:
    with pytest.raises(UserError) as caught:
        frontend.lower(str(INPUTS / "several.py"), None, Binding(args={"x": VEC}))
    assert ":copy" in caught.value.hint
    (launch,) = entry_of(frontend.lower(str(INPUTS / "several.py"), "copy_again", Binding(args={"x": VEC}))).launches
    assert launch.grid_exprs[0] == "floor((n + 31)/32)"
