"""The shape-only capture (`frontends/triton/shapes.py`): its sizes are the expressions torch's
ShapeEnv gives, its tensors the shapes and strides fake tensors have, it decides a comparison only
where a ShapeEnv does without a guard, it stops (`BeyondShapes`) on anything else, and a lowering
through it is the lowering on fake tensors, byte for byte, with or without the fall-back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

os.environ.setdefault("TRITON_CACHE_DIR", str(Path(__file__).parents[3] / ".cache" / "triton"))
os.environ.setdefault("TRITON_HOME", str(Path(__file__).parents[3] / ".cache" / "triton-home"))
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

from lowercheck import ir  # noqa: E402
from lowercheck.frontends import triton as frontend  # noqa: E402
from lowercheck.frontends.base import CAPTURE_ENV, Binding, NeedsConcreteSizes, NeedsThoroughCall  # noqa: E402
from lowercheck.frontends.base import TensorArg  # noqa: E402
from lowercheck.frontends.triton import capture as capture_module  # noqa: E402
from lowercheck.frontends.triton import shapes  # noqa: E402
from lowercheck.frontends.triton.shapes import BeyondShapes, BranchesOnSizes, ShapeMode, Size  # noqa: E402
from lowercheck.frontends.triton.source import load  # noqa: E402

INPUTS = Path(__file__).parent / "inputs"


@pytest.fixture
def fake():
    """Two symbolic sizes as torch's ShapeEnv makes them (the capture's own subclass), and its
    FakeTensorMode: what the shape-only capture must agree with."""
    from torch._dynamo.source import ConstantSource
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import DimDynamic

    env = capture_module._capture_shape_env()(duck_shape=False)
    sizes = []
    for name, hint in (("n", 4099), ("m", 4111)):
        sym = env.create_symbol(hint, source=ConstantSource(name), dynamic_dim=DimDynamic.DYNAMIC)
        sizes.append(env.create_symintnode(sym, hint=hint))
    return env, FakeTensorMode(shape_env=env, allow_non_fake_inputs=True), sizes


def ours():
    return Size(shapes.symbol(0), 4099), Size(shapes.symbol(1), 4111)


EXPRESSIONS = {
    "cdiv": lambda n, m: (n + 1023) // 1024,
    "product": lambda n, m: n * m * 4,
    "difference": lambda n, m: 2 * n - m + 7,
    "floor of a product": lambda n, m: (n * m) // 16,
    "remainder": lambda n, m: n % 16,
    "negated": lambda n, m: -(n - 3),
    "reflected": lambda n, m: 8192 // (n + 1) + 3 * m,
    "cancelled": lambda n, m: n - n + m,
    "next power of 2": lambda n, m: __import__("triton").next_power_of_2(n),
    "shifts": lambda n, m: (n << 3) + (m >> 2),
    "bitwise": lambda n, m: (n & 15) ^ (m | 1),
}


def _renamed(value, tn, tm):
    """A torch SymInt's expression over our symbols (s0 for n, s1 for m); a plain int as itself."""
    if not isinstance(value, torch.SymInt):
        return value
    return value.node.expr.xreplace({tn.node.expr: shapes.symbol(0), tm.node.expr: shapes.symbol(1)})


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_sizes_are_the_expressions_a_shape_env_gives(fake, name: str) -> None:
    _env, _mode, (tn, tm) = fake
    expected = EXPRESSIONS[name](tn, tm)
    got = EXPRESSIONS[name](*ours())
    if isinstance(expected, torch.SymInt):
        assert isinstance(got, Size) and got.expr == _renamed(expected, tn, tm)
        assert got.hint == expected.node.hint
    else:
        assert got == expected and isinstance(got, int)


def test_min_and_max_are_torchs_sym_min_and_sym_max(fake) -> None:
    _env, _mode, (tn, _tm) = fake
    n, _m = ours()
    names = {"s0": "n", "s1": "m"}
    torch_names = {str(tn.node.expr): "n"}
    for ours_fn, torch_fn in ((shapes.smallest, torch.sym_min), (shapes.largest, torch.sym_max)):
        want = capture_module.Capture([], {}, [], True, torch_names).expr_of(torch_fn((tn + 63) // 64, 4))
        assert capture_module.Capture([], {}, [], True, names).expr_of(ours_fn((n + 63) // 64, 4)) == want


DECIDED = {  # comparisons a ShapeEnv answers without a guard: every size is at least 2
    "n == 0": (lambda n, m: n == 0, False),
    "numel > 0": (lambda n, m: n * m > 0, True),
    "n != 1": (lambda n, m: n != 1, True),
    "cdiv >= 1": (lambda n, m: (n + 1023) // 1024 >= 1, True),
    "bool(n)": (lambda n, m: bool(n), True),
    "n % 1 == 0": (lambda n, m: n % 1 == 0, True),
}


@pytest.mark.parametrize("name", sorted(DECIDED))
def test_a_comparison_is_decided_only_where_a_shape_env_needs_no_guard(fake, name: str) -> None:
    env, _mode, (tn, tm) = fake
    compare, truth = DECIDED[name]
    guards = len(env.guards)
    assert bool(compare(tn, tm)) is truth
    assert len(env.guards) == guards, "torch guarded: the shape-only capture must not decide it"
    assert bool(compare(*ours())) is truth


UNDECIDED = {  # comparisons a ShapeEnv guards on, and the guard it records (the hints: n 4099, m 4111)
    "n > 4096": (lambda n, m: n > 4096, "n > 4096"),
    "n == m": (lambda n, m: n == m, "Ne(n, m)"),
    "n % 16 == 0": (lambda n, m: n % 16 == 0, "Ne(Mod(n, 16), 0)"),
    "2n < m + 100": (lambda n, m: n * 2 < m + 100, "2*n >= m + 100"),
    "next power of 2 >= n": (lambda n, m: __import__("triton").next_power_of_2(n) >= n, None),
}


@pytest.mark.parametrize("name", sorted(UNDECIDED))
def test_an_undecided_comparison_is_a_branch_on_sizes(fake, name: str) -> None:
    env, _mode, (tn, tm) = fake
    compare, guard = UNDECIDED[name]
    guards = len(env.guards)
    answer = compare(tn, tm)
    if isinstance(answer, torch.SymBool):
        bool(answer)  # where the wrapper branches on it
    assert len(env.guards) > guards, "torch decided it: the shape-only capture must too"
    with pytest.raises(BranchesOnSizes) as branch:
        answer = compare(*ours())
        assert isinstance(answer, shapes.SizeCondition), "a comparison is decided where the wrapper branches"
        bool(answer)
    if guard is not None:
        assert _texts(branch.value.guard, {"s0": "n", "s1": "m"}) == guard


@pytest.mark.parametrize("use", [int, range])
def test_a_sizes_integer_value_is_a_branch_on_sizes(use) -> None:
    """`int(n)`, `range(n)`: a ShapeEnv specialises the size to its hint, a guard."""
    n, _m = ours()
    with pytest.raises(BranchesOnSizes) as branch:
        use(n)
    assert _texts(branch.value.guard, {"s0": "n"}) == "Eq(n, 4099)"


def test_a_condition_on_sizes_is_decided_only_where_the_wrapper_branches() -> None:
    n, m = ours()
    even = n % 64 == 0  # a heuristic's value, as a SymBool: nothing decided yet
    assert isinstance(even, shapes.SizeCondition) and shapes.is_size(even)
    with pytest.raises(BranchesOnSizes):
        bool(even)
    assert (n * m == 0) is False and isinstance(n * m == 0, bool)  # sympy itself decides it: a bool


@pytest.mark.parametrize("use", [float, lambda n: n / 2, lambda n: n ** 2, lambda n: {n: 1},
                                 lambda n: f"{n:08d}", lambda n: n + 0.5, abs, lambda n: ~n])
def test_a_size_used_as_a_number_is_beyond_shapes(use) -> None:
    n, _m = ours()
    with pytest.raises((BeyondShapes, TypeError)):
        use(n)


def test_shape_tensors_have_the_shapes_and_strides_of_fake_tensors(fake) -> None:
    _env, mode, (tn, tm) = fake
    torch_names = {str(tn.node.expr): "n", str(tm.node.expr): "m"}
    names = {"s0": "n", "s1": "m"}

    def views(n, m):
        x = torch.empty((n, m, 4), dtype=torch.float16, device="cpu")
        y = torch.empty(n, m)
        flat = x.view(-1)
        rows = x.reshape(-1, 4)
        return {
            "x.shape": x.shape, "x.stride": x.stride(), "numel": x.numel(), "y.stride": y.stride(),
            "flat": flat.shape, "rows": rows.shape, "rows.stride": rows.stride(),
            "flatten(1)": x.flatten(1).shape, "unsqueeze": x.unsqueeze(1).stride(),
            "like": torch.empty_like(y).stride(), "new_empty": y.new_empty((m, 2)).stride(),
            "strided": torch.empty_strided((n, 2), (1, n)).stride(), "size(-1)": x.size(-1), "dim": x.dim(),
            "contiguous": x.is_contiguous(), "element_size": x.element_size(), "dtype": str(x.dtype),
            "base of a view": flat._base is x,
        }

    with mode:
        want = views(tn, tm)
    with ShapeMode():
        got = views(*ours())
    for key in want:
        w, g = want[key], got[key]
        if isinstance(w, (bool, str)):
            assert g == w, key
        else:
            assert _texts(g, names) == _texts(w, torch_names), key


def _texts(value, names) -> str:
    captured = capture_module.Capture([], {}, [], True, names)
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(captured.expr_of(v) for v in value) + ")"
    if isinstance(value, __import__("sympy").Basic):
        return str(capture_module._plain(value, names))
    return captured.expr_of(value)


@pytest.mark.parametrize("use", [
    lambda x: x.sum(), lambda x: x[1:], lambda x: x + 1, lambda x: x.float(), lambda x: x.data_ptr(),
    lambda x: torch.cat([x, x]), lambda x: x.T, lambda x: len(x), lambda x: x.item(), lambda x: x.t().contiguous(),
    lambda x: torch.arange(x.shape[0]), lambda x: x.view(torch.int32), lambda x: x.view(7, -1),
])
def test_anything_else_on_a_tensor_is_beyond_shapes(use) -> None:
    n, m = ours()
    with ShapeMode():
        x = torch.empty((n, m), dtype=torch.float32)
        with pytest.raises(BeyondShapes):
            use(x)


def test_the_mode_puts_torchs_allocators_back() -> None:
    empty = torch.empty
    mode = ShapeMode()
    with pytest.raises(BeyondShapes):
        with mode:
            assert torch.empty is not empty
            torch.empty((ours()[0],)).sum()
    assert torch.empty is empty
    with mode:  # entered again
        assert isinstance(torch.zeros(3), shapes.ShapeTensor)
    assert torch.empty is empty and not isinstance(torch.zeros(3), shapes.ShapeTensor)


def test_the_capture_modes_see_a_shape_tensors_views_and_fills_as_a_fake_tensors(fake) -> None:
    """`capture._computed_tensors` is a TorchFunctionMode: a view, a copy or a fill must reach it
    from a shape tensor as from a fake tensor (which tensors the wrapper computed decides whether a
    returned one is written on the host). Allocations, which it leaves out, may bypass it."""
    from torch.overrides import TorchFunctionMode

    _env, mode, (tn, _tm) = fake

    def seen(make_mode, n) -> list[str]:
        names: list[str] = []

        class Record(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                result = func(*args, **(kwargs or {}))
                if isinstance(result, torch.Tensor) and func.__name__ not in capture_module._ALLOCATING:
                    names.append(func.__name__)
                return result

        with make_mode:
            with Record():
                x = torch.zeros((n, 4))
                x.view(-1).fill_(0)
                x.reshape(n, 4).contiguous().zero_()
                x.flatten().new_empty((n,))
        return names

    assert seen(ShapeMode(), ours()[0]) == seen(mode, tn) == ["view", "fill_", "reshape", "contiguous", "zero_",
                                                             "flatten"]


# --- lowerings ----------------------------------------------------------------------------------

VEC = TensorArg(("n",), "float32")
MATRIX = TensorArg(("M", "N"), "float32")

# The kernel the wrappers below launch.
COPY = '''
import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
'''

BEYOND = COPY + '''

def copy(x):
    x = x.float()  # a conversion: beyond shapes, on fake tensors a computed tensor
    out = torch.empty_like(x)
    n = x.numel()
    copy_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
    return out
'''

STATEFUL = '''
import torch
import triton
import triton.language as tl

_workspace = []


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def copy(x):
    _workspace.append(torch.empty_like(x))  # state the first capture leaves behind
    if len(_workspace) > 1:
        raise RuntimeError("captured twice in one process")
    x = x.float()
    out = torch.empty_like(x)
    n = x.numel()
    copy_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
    return out
'''


UNMADE = '''
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, w_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    w = tl.load(w_ptr)
    tl.store(out_ptr + offs, w * tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def scale(x):
    weight = torch.tensor([2.0])  # a tensor with values: not one of the shape-only capture's
    out = torch.empty_like(x)
    scale_kernel[(triton.cdiv(x.numel(), 256),)](x, weight, out, x.numel(), BLOCK=256)
    return out
'''


POWER_OF_TWO = '''
import torch
import triton
import triton.language as tl


@triton.jit
def rows_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    row = tl.program_id(0)
    inside = cols < n_cols
    tl.store(out_ptr + row * n_cols + cols, tl.load(x_ptr + row * n_cols + cols, mask=inside), mask=inside)


def rows(x):
    n_rows, n_cols = x.shape
    BLOCK = triton.next_power_of_2(n_cols)
    out = torch.empty_like(x)
    rows_kernel[(n_rows,)](x, out, n_cols, BLOCK=BLOCK)
    return out
'''

SWALLOWING = COPY + '''

def copy(x):
    try:
        block = 512 if x.float().sum() > 0 else 256  # on fake tensors: data-dependent, so this raises
    except:  # noqa: E722 - a wrapper's own fall-back, which catches everything
        block = 128
    out = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK=block)
    return out
'''


def test_a_branch_on_sizes_needs_concrete_sizes_on_both_paths(tmp_path, monkeypatch) -> None:
    """`BLOCK = next_power_of_2(n_cols)` as a constexpr: torch's bitwise expression, then concrete
    sizes, on shape tensors without a second capture (`fresh` would raise NeedsThoroughCall); at
    concrete sizes both paths lower it alike."""
    path = tmp_path / "rows.py"
    path.write_text(POWER_OF_TWO)
    binding = Binding(args={"x": MATRIX})
    for mode in ("fresh", "fake"):
        monkeypatch.setenv(CAPTURE_ENV, mode)
        with pytest.raises(NeedsConcreteSizes, match="BLOCK"):
            frontend.lower(str(path), None, binding)
    concrete = Binding(args={"x": MATRIX}, sizes={"M": 5, "N": 100})
    assert _lowered(str(path), concrete, monkeypatch, None) == _lowered(str(path), concrete, monkeypatch, "fake")


@pytest.mark.parametrize("source, entry, why", [
    (UNMADE, "scale", "a Tensor the capture did not make"),  # a tensor with values reaches a launch
    (SWALLOWING, "copy", "Tensor.float"),  # a stop the wrapper's bare `except:` swallows
])
def test_what_the_shape_capture_cannot_follow_is_captured_on_fake_tensors(tmp_path, monkeypatch, source, entry,
                                                                          why) -> None:
    path = tmp_path / f"{entry}.py"
    path.write_text(source)
    binding = Binding(args={"x": VEC})
    monkeypatch.setenv(CAPTURE_ENV, "fresh")
    with pytest.raises(NeedsThoroughCall, match=why):
        capture_module.capture(getattr(load(str(path)), entry), str(path), binding)
    assert _lowered(str(path), binding, monkeypatch, None) == _lowered(str(path), binding, monkeypatch, "fake")


def _lowered(path: str, binding: Binding, monkeypatch, mode: str | None) -> str:
    if mode is None:
        monkeypatch.delenv(CAPTURE_ENV, raising=False)
    else:
        monkeypatch.setenv(CAPTURE_ENV, mode)
    return ir.print_ir(frontend.lower(path, None, binding), debuginfo=True)


@pytest.mark.parametrize("name, binding", [
    ("vadd.py", Binding(args={"x": VEC, "y": VEC})),
    ("matmul.py", Binding(args={"a": TensorArg(("M", "K"), "float16"), "b": TensorArg(("K", "N"), "float16")})),
    ("two_kernels.py", Binding(args={"x": VEC, "acc": VEC})),
    ("swap_halves.py", Binding(args={"x": VEC})),
])
def test_a_lowering_on_shape_tensors_is_the_lowering_on_fake_tensors(name, binding, monkeypatch) -> None:
    path = str(INPUTS / name)
    fn = getattr(load(path), {"vadd.py": "add", "matmul.py": "matmul", "two_kernels.py": "scale_twice",
                              "swap_halves.py": "swap_halves"}[name])
    monkeypatch.delenv(CAPTURE_ENV, raising=False)
    assert capture_module.capture(fn, path, binding).shapes_only, "the shape-only capture fell short"
    assert _lowered(path, binding, monkeypatch, None) == _lowered(path, binding, monkeypatch, "fake")


def test_a_wrapper_beyond_shapes_is_captured_again_on_fake_tensors(tmp_path, monkeypatch) -> None:
    path = tmp_path / "beyond.py"
    path.write_text(BEYOND)
    binding = Binding(args={"x": MATRIX})
    fn = load(str(path)).copy
    monkeypatch.delenv(CAPTURE_ENV, raising=False)
    captured = capture_module.capture(fn, str(path), binding)
    assert not captured.shapes_only
    assert _lowered(str(path), binding, monkeypatch, None) == _lowered(str(path), binding, monkeypatch, "fake")
    monkeypatch.setenv(CAPTURE_ENV, "fresh")  # in a worker's call: the call server calls again
    with pytest.raises(NeedsThoroughCall, match="`Tensor.float` on a tensor"):
        capture_module.capture(fn, str(path), binding)


def test_the_worker_calls_again_in_a_fresh_process(tmp_path, monkeypatch) -> None:
    """Through the front-end worker: a wrapper that the shape-only capture falls short in, and
    that fails when captured twice in one process, lowers as it does on fake tensors alone."""
    from lowercheck.frontends.isolated import IsolatedFrontend

    path = tmp_path / "stateful.py"
    path.write_text(STATEFUL)
    binding = Binding(args={"x": VEC})
    monkeypatch.setenv("LOWERCHECK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(CAPTURE_ENV, raising=False)
    worker = IsolatedFrontend("triton", timeout_s=120)
    try:
        got = ir.print_ir(worker.lower(str(path), "copy", binding), debuginfo=True)
        log = worker._log_tail()
    finally:
        worker.close()
    assert "called again on the thorough path" in log and "Tensor.float" in log
    monkeypatch.setenv("LOWERCHECK_CACHE_DIR", str(tmp_path / "cache-fake"))
    monkeypatch.setenv(CAPTURE_ENV, "fake")
    worker = IsolatedFrontend("triton", timeout_s=120)
    try:
        want = ir.print_ir(worker.lower(str(path), "copy", binding), debuginfo=True)
    finally:
        worker.close()
    assert got == want
