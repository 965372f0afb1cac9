"""Constructs of published Triton kernels (liger-kernel's) that the front end reads: early returns,
the names Triton numbers, `tl.debug_barrier`, kernels imported from another file; and what it cannot
capture, said at the user's line (LC901 or an error), never a crash."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support import run_lowercheck

os.environ.setdefault("TRITON_CACHE_DIR", str(Path(__file__).parents[3] / ".cache" / "triton"))
os.environ.setdefault("TRITON_HOME", str(Path(__file__).parents[3] / ".cache" / "triton-home"))
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

from xdsl.dialects import scf  # noqa: E402
from xdsl.dialects.builtin import FileLineColLoc  # noqa: E402

from lowercheck import ir  # noqa: E402
from lowercheck.dialects.access import AccessOp, UnmodelledOp  # noqa: E402
from lowercheck.dialects.kernel import EntryOp  # noqa: E402
from lowercheck.dialects.tt import FuncOp, StoreOp  # noqa: E402
from lowercheck.errors import Unsupported, UserError  # noqa: E402
from lowercheck.frontends import triton as frontend  # noqa: E402
from lowercheck.frontends.base import Binding, NeedsConcreteSizes, SizeArg, TensorArg  # noqa: E402
from lowercheck.frontends.triton.compile import to_xdsl  # noqa: E402
from lowercheck.lowering import extract_accesses  # noqa: E402

INPUTS = Path(__file__).parent / "inputs"
VEC = TensorArg(("n",), "float32")
ROWS = Binding(args={"x": TensorArg(("rows", "cols"), "float32"), "first_scaled": SizeArg("first_scaled")})


def lower(name: str, binding: Binding):
    return frontend.lower(str(INPUTS / name), None, binding)


def kernel_of(module) -> FuncOp:
    return next(op for op in module.body.block.ops if isinstance(op, FuncOp))


def test_early_returns_are_nested_ifs() -> None:
    func = kernel_of(lower("early_return.py", ROWS))
    assert len(func.body.blocks) == 1
    assert not [op for op in func.walk() if op.name.startswith("cf.")]
    # The store after the merge is on both paths that reach it, under two levels of scf.if.
    stores = [op for op in func.walk() if isinstance(op, StoreOp)]
    assert len(stores) == 2
    assert all(isinstance(store.parent_op(), scf.IfOp) for store in stores)


def test_early_returns_guard_the_accesses() -> None:
    accesses = list(extract_accesses(lower("early_return.py", ROWS)).walk())
    assert not [op for op in accesses if isinstance(op, UnmodelledOp)]
    writes = [op for op in accesses if isinstance(op, AccessOp) and op.buffer.data == "return0"]
    guards = sorted(tuple(g.data for g in write.guard.data) for write in writes)
    assert guards == [("GRID0 < rows", "GRID0 < first_scaled", "LANE4 < cols"),
                      ("GRID0 < rows", "GRID0 >= first_scaled", "Ne(cols, 0)", "LANE3 < cols")]


def test_numbered_names_print_back_distinct() -> None:
    text = ir.print_ir(lower("swap_halves.py", Binding(args={"x": VEC})), debuginfo=True)
    assert ir.print_ir(ir.parse(text), debuginfo=True) == text


def test_an_op_without_a_counterpart_is_unsupported_at_its_line() -> None:
    with pytest.raises(Unsupported, match="tt.elementwise_inline_asm") as caught:
        lower("inline_asm.py", Binding(args={"x": TensorArg(("n",), "int32")}))
    assert (caught.value.location.file, caught.value.location.line) == (str(INPUTS / "inline_asm.py"), 12)


TTIR = """"builtin.module"() ({
  "tt.func"() <{function_type = (ARG) -> (), sym_name = "k", sym_visibility = "public"}> ({
  ^bb0(%a: ARG loc("k.py":3:1)):
    BODY
    "tt.return"() : () -> () loc("k.py":5:5)
  }) : () -> () loc("k.py":3:1)
}) : () -> ()"""


@pytest.mark.parametrize(("arg", "body", "message", "line"), [
    ("!ttg.memdesc<16xf32>", "", r"`!ttg.memdesc` \(in `tt.func`\) has no counterpart", 3),
    ("i32", '%0 = "arith.constant"() <{value = dense<[1, 2> : tensor<2xi32>}> : () -> tensor<2xi32> loc("k.py":4:9)',
     "cannot read the TTIR of `k`: ']' expected", 4),
    ("i32", '%0 = "arith.addi"(%a, %a) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> f32 loc("k.py":4:9)',
     "lowercheck's IR rejects the TTIR of `k`", 3),
])
def test_ttir_lowercheck_cannot_hold_is_unsupported_at_its_line(arg: str, body: str, message: str, line: int) -> None:
    with pytest.raises(Unsupported, match=message) as caught:
        to_xdsl(TTIR.replace("ARG", arg).replace("BODY", body), "k", "k.py")
    assert (caught.value.location.file, caught.value.location.line) == ("k.py", line)


def test_imported_kernel_keeps_its_own_file() -> None:
    module = lower("imported_kernel.py", Binding(args={"x": VEC}))
    files = {op.location.filename.data for op in kernel_of(module).walk() if isinstance(op.location, FileLineColLoc)}
    assert files == {os.path.relpath(INPUTS / "kernel_library.py")}
    (entry,) = [op for op in module.body.block.ops if isinstance(op, EntryOp)]
    assert entry.launches[0].location.filename.data == str(INPUTS / "imported_kernel.py")


def test_branch_on_tensor_data_falls_back_then_is_captured_on_data() -> None:
    """At concrete sizes, a wrapper that reads its tensors' values is captured on real tensors of
    ours: the branch takes the side our values choose (the launch), and the entry says where."""
    binding = Binding(args={"x": VEC, "scale": TensorArg((), "float32")})
    with pytest.raises(NeedsConcreteSizes, match="tensor data"):
        lower("data_dependent.py", binding)
    module = lower("data_dependent.py", Binding(binding.args, sizes={"n": 1000}))
    (entry,) = [op for op in module.body.block.ops if isinstance(op, EntryOp)]
    assert entry.reads_data_at is not None and entry.reads_data_at.data.endswith("data_dependent.py:17:8")
    assert [launch.grid_exprs for launch in entry.launches] == [["4", "1", "1"]]


def test_launch_options_are_checked_at_the_launch() -> None:
    binding = Binding(args={"x": VEC, "warps": SizeArg("warps")})
    with pytest.raises(NeedsConcreteSizes, match="launch option `num_warps`"):
        lower("launch_options.py", binding)
    with pytest.raises(UserError, match="num_warps must be a power of 2") as caught:
        lower("launch_options.py", Binding(binding.args, sizes={"n": 1000, "warps": 1000}))
    assert caught.value.location.line == 16
    (launch,) = next(op for op in lower("launch_options.py", Binding(binding.args, sizes={"n": 1000, "warps": 8}))
                     .body.block.ops if isinstance(op, EntryOp)).launches
    assert launch.num_warps.data == 8


def test_a_tensor_for_a_constexpr_names_the_launch() -> None:
    binding = Binding(args={"x": VEC, "sections": TensorArg(("k",), "int32")}, sizes={"n": 1000, "k": 3})
    with pytest.raises(UserError, match="constexpr `FIRST` of `head_kernel` receives a tensor") as caught:
        lower("tensor_constexpr.py", binding)
    assert caught.value.location.line == 16


def test_a_wrapper_reads_the_config_its_autotuner_chose(tmp_path: Path) -> None:
    """`K.best_config` after an autotuned launch (liger's SwiGLU GEMM returns it to its backward):
    the config the capture lowers, as Triton's autotuner leaves it."""
    path = tmp_path / "best_config.py"
    path.write_text((INPUTS / "autotuned.py").read_text() + '''

def neg_then_copy(x):
    n = x.numel()
    tmp = torch.empty_like(x)
    out = torch.empty_like(x)
    neg_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, tmp, n)
    block = neg_kernel.best_config.kwargs["BLOCK"]
    copy_kernel[(triton.cdiv(n, block),)](tmp, out, n, BLOCK=block)
    return out
''')
    module = frontend.lower(str(path), "neg_then_copy", Binding(args={"x": VEC}, sizes={"n": 1000}))
    (entry,) = [op for op in module.body.block.ops if isinstance(op, EntryOp)]
    assert [launch.grid_exprs[0] for launch in entry.launches] == ["8", "8"]  # 1000 / 128, the first config


def test_an_autograd_functions_forward_is_an_entry(tmp_path: Path) -> None:
    path = INPUTS / "autograd_function.py"
    assert [(c.name, [p.name for p in c.params]) for c in frontend.entries(str(path)) if not c.kernel] == \
        [("DoubleFunction.forward", ["x"])]
    module = frontend.lower(str(path), None, Binding(args={"x": VEC}))
    (entry,) = [op for op in module.body.block.ops if isinstance(op, EntryOp)]
    assert entry.sym_name.data == "DoubleFunction.forward"
    assert [p.pname for p in entry.params] == ["x", "return0"]
    # The runner calls it the same way: equivalent to a reference that doubles.
    reference = tmp_path / "double.py"
    reference.write_text("import torch\n\n\ndef double(x):\n    return 2 * x\n")
    done = run_lowercheck(["diff", str(reference), f"{path}:DoubleFunction.forward", "--size", "n=1,300"])
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_autograd_forward_keeps_its_defaults() -> None:
    """`Class.forward` is that class's method (another class's `forward` comes first in the file),
    so its defaulted parameters keep their defaults instead of being assumed tensors."""
    done = run_lowercheck(["lower", f"{INPUTS / 'autograd_defaults.py'}:ScaleFunction.forward", "--emit", "access"])
    assert done.returncode == 0, done.stderr
    assert "access.access" in done.stdout


def test_a_launcher_of_an_imported_kernel_is_triton_without_importing_triton(tmp_path: Path) -> None:
    """A backend module that imports a kernel and launches it (liger's `backends/_triton/jsd.py`:
    `from liger_kernel.ops.jsd import _jsd_kernel` ... `_jsd_kernel[(BT,)](...)`) and never imports
    triton itself is a Triton launcher, not a PyTorch reference; a dict of functions indexed and
    called (`HANDLERS[type(m)](m)`) is not a launch."""
    from lowercheck.frontends import language_of

    text = (INPUTS / "imported_kernel.py").read_text().replace("import triton\n", "")
    text = text.replace("triton.cdiv(x.shape[0], 256)", "(x.shape[0] + 255) // 256")
    launcher = tmp_path / "backend.py"
    launcher.write_text(text.replace("os.path.dirname(__file__)", repr(str(INPUTS))))
    assert language_of(str(launcher)) == "triton"
    module = frontend.lower(str(launcher), None, Binding(args={"x": VEC}))
    (entry,) = [op for op in module.body.block.ops if isinstance(op, EntryOp)]
    assert [launch.grid_exprs for launch in entry.launches] == [["floor((n + 255)/256)", "1", "1"]]
    lookup = tmp_path / "lookup.py"
    lookup.write_text("import torch\nfrom mapping import HANDLERS\n\ndef f(m):\n    return HANDLERS[type(m)](m)\n")
    assert language_of(str(lookup)) == "torch"


def test_a_launch_on_a_view_with_an_offset_is_a_view_of_the_tensor() -> None:
    """`kernel[grid](x[start:end], ...)`: the launch argument is `x[start:]`, and its accesses are
    x's own from that element on (they were "a view with an offset", LC901)."""
    module = lower("chunked.py", Binding(args={"x": VEC}, sizes={"n": 1000}))
    (entry,) = [op for op in module.body.block.ops if isinstance(op, EntryOp)]
    assert [launch.arg_exprs[:2] for launch in entry.launches] == [["x", "return0"], ["x[500:]", "return0[500:]"]]
    text = ir.print_ir(extract_accesses(module))
    writes = [line for line in text.splitlines() if 'buffer = "return0", kind = "write"' in line]
    assert len(writes) == 2 and "indices = [\"128*GRID0 + LANE3 + 500\"]" in writes[1]


def test_an_autotune_configs_pre_hook_runs_before_its_launch(tmp_path: Path, monkeypatch) -> None:
    """Triton's autotuner runs a config's `pre_hook(nargs)` before launching with it (liger's MLP sets
    its tensor descriptors' block shapes there): the capture runs it too, with the launch's
    arguments and the config's values."""
    marker = tmp_path / "hooked.txt"
    monkeypatch.setenv("PRE_HOOK_RECORD", str(marker))
    lower("autotune_pre_hook.py", Binding(args={"x": VEC}, sizes={"n": 1000}))
    assert marker.read_text() == "128 (1000,)"


def test_host_tensor_descriptors_are_their_tensor_with_its_shape_and_strides() -> None:
    """A `TensorDescriptor` the wrapper makes is passed as its tensor, then its shape and strides
    (as Triton passes it); its block loads and stores are accesses of that tensor, guarded by the
    shape (the hardware pads and drops the rest), a `[1, BM, BN]` block reshaped to a tile too."""
    module = lower("host_descriptor.py", Binding(args={"x": TensorArg(("b", "m", "n"), "float32")},
                                                 sizes={"b": 2, "m": 100, "n": 200}))
    (entry,) = [op for op in module.body.block.ops if isinstance(op, EntryOp)]
    assert entry.launches[0].arg_exprs == ["x", "2", "100", "200", "20000", "200", "1",
                                           "return0", "2", "100", "200", "20000", "200", "1"]
    text = ir.print_ir(extract_accesses(module))
    assert "access.unmodelled" not in text
    read = next(line for line in text.splitlines() if 'buffer = "x", kind = "read"' in line)
    # element (b, rows + i, cols + j) of x [2, 100, 200], inside its shape only (a padded block)
    assert 'indices = ["6400*GRID0 + 64*GRID1 + 20000*GRID2 + 200*LANE3 + LANE4"]' in read
    assert 'guard = ["(GRID2 < 2) & (32*GRID0 + LANE3 < 100) & (64*GRID1 + LANE4 < 200)"]' in read


def test_a_kernel_result_read_on_the_host_is_computed_by_the_interpreter() -> None:
    """`int(count.sum().item())` after a launch: the capture runs the launches in Triton's
    interpreter on its real tensors (standard normal from a fixed seed), so the second launch's grid
    is the count of positives the first kernel finds, not whatever an unrun buffer held."""
    import torch

    module = lower("reads_kernel_result.py", Binding(args={"x": VEC}, sizes={"n": 1000}))
    (entry,) = [op for op in module.body.block.ops if isinstance(op, EntryOp)]
    torch.manual_seed(0)  # the capture's values: `capture._with_data`
    positives = int((torch.randn(1000) > 0).sum())
    grids = [launch.grid_exprs for launch in entry.launches]
    assert grids == [["16", "1", "1"], [str(-(-positives // 16)), "1", "1"]], grids
    assert entry.reads_data_at is not None
