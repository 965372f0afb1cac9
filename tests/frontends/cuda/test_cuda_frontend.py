"""FileCheck tests of the CUDA front end: each inputs/*.cu holds the `// CHECK:` lines of its IR.

Also: the printed IR parses back (round trip), `entries` lists launchers, and bad input stops with
UserError / Unsupported at the user's line, never a traceback.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support import run_lowercheck

from lowercheck import ir
from lowercheck.errors import Unsupported, UserError
from lowercheck.frontends import cuda
from lowercheck.dialects.kernel import LaunchOp
from lowercheck.frontends.base import Binding, NeedsConcreteSizes, TensorArg, ValueArg

HERE = Path(__file__).parent
INPUTS = sorted((HERE / "inputs").glob("*.cu")) + sorted((HERE / "inputs").glob("*.py"))
FILECHECK = Path(sys.executable).with_name("filecheck")
# Inputs whose checks need shapes from a binding.
BINDINGS = {
    "saxpy.cu": Binding(args={"x": TensorArg(("n",), "float32"), "y": TensorArg(("n",), "float32")}),
}


def _lower(path: Path, monkeypatch: pytest.MonkeyPatch, entry: str | None = None):
    """Lower with the file name relative to its folder, as a user in that folder would."""
    monkeypatch.chdir(path.parent)
    return cuda.lower(path.name, entry, BINDINGS.get(path.name))


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_filecheck(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = ir.print_ir(_lower(path, monkeypatch), debuginfo=True)
    result = subprocess.run([str(FILECHECK), str(path)], input=text, capture_output=True, text=True)
    assert result.returncode == 0, f"{result.stdout}{result.stderr}\n--- IR ---\n{text}"


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_round_trip(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = _lower(path, monkeypatch)
    for debuginfo in (False, True):
        text = ir.print_ir(module, debuginfo=debuginfo)
        assert ir.print_ir(ir.parse(text), debuginfo=debuginfo) == text


def test_entries_lists_launchers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(HERE / "inputs")
    [entry] = cuda.entries("saxpy.cu")
    assert entry.name == "run_saxpy"
    assert (entry.location.line, entry.launches) == (6, ("saxpy",))
    assert [(p.name, p.kind, p.dtype) for p in entry.params] == [
        ("n", "scalar", "int32"), ("a", "scalar", "float32"), ("x", "buffer", "float32"),
        ("y", "buffer", "float32")]


def _write(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(source)
    return path


KERNEL = "__global__ void k(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] = 1.0f; }\n"


def test_syntax_error_names_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "syntax.cu", "__global__ void k(float* x) {\n  int i = threadIdx.x\n  x[i] = 1;\n}\n")
    with pytest.raises(UserError) as err:
        cuda.lower(path)
    assert (err.value.location.line, err.value.location.column) == (2, 22)
    assert "expected ';'" in err.value.message


def test_two_launchers_need_an_entry(tmp_path: Path) -> None:
    path = _write(tmp_path, "two.cu", KERNEL + "void first(float* x, int n) { k<<<1, n>>>(x, n); }\n"
                                               "void second(float* x, int n) { k<<<2, n>>>(x, n); }\n")
    with pytest.raises(UserError) as err:
        cuda.lower(path)
    assert "first, second" in err.value.message and ":first" in err.value.hint
    entry = cuda.lower(path, "second").ops.first
    assert entry.sym_name.data == "second" and entry.launches[0].grid_exprs == ["2", "1", "1"]


def test_no_launcher(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no host function that launches"):
        cuda.lower(_write(tmp_path, "k.cu", KERNEL))


def test_entry_naming_a_kernel(tmp_path: Path) -> None:
    path = _write(tmp_path, "one.cu", KERNEL + "void run(float* x, int n) { k<<<1, n>>>(x, n); }\n")
    with pytest.raises(UserError, match="is a kernel"):
        cuda.lower(path, "k")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        cuda.lower(tmp_path / "missing.cu")


def test_recursion_is_unsupported(tmp_path: Path) -> None:
    path = _write(tmp_path, "rec.cu",
                  "__device__ int fact(int v) { return v <= 1 ? 1 : v * fact(v - 1); }\n"
                  "__global__ void k(int* x, int n) { int i = threadIdx.x; if (i < n) x[i] = fact(i); }\n"
                  "void run(int* x, int n) { k<<<1, n>>>(x, n); }\n")
    with pytest.raises(Unsupported, match="recursive call to `fact`") as err:
        cuda.lower(path)
    assert err.value.location.line == 1


@pytest.mark.parametrize("body, construct", [
    ("switch (n) { case 1: x[0] = 1.0f; }", "`switch`"),
    ("atomicInc((unsigned*)x, 1u);", "atomicInc"),
    ("__shared__ float s[4]; float* p = x; if (n > 0) p = s; *p = 1.0f;",
     "pointer variable that points into different buffers on different paths"),
    ("float a[2][2] = {{1, 2}, {3, 4}};", "multi-dimensional local array"),
    ("auto t = cooperative_groups::tiled_partition<16>(cooperative_groups::this_thread_block()); "
     "x[0] = t.any(n > 0);", "tile of 16 threads"),
    ("float s = x[0]; float r = s < 0 ? s : __shfl_sync(0xffffffffu, s, 0u); x[0] = r; goto end; end: ;",
     "`goto`"),
])
def test_unsupported_constructs(tmp_path: Path, body: str, construct: str) -> None:
    path = _write(tmp_path, "u.cu", "__global__ void k(float* x, int n) {\n  " + body + "\n}\n"
                                    "void run(float* x, int n) { k<<<1, 32>>>(x, n); }\n")
    with pytest.raises(Unsupported, match=construct) as err:
        cuda.lower(path)
    assert err.value.location.line == 2


@pytest.mark.parametrize("host, grid", [
    ("int g = (n + 63) / 64; if (g > 16) g = 16;", "Min(16, floor((n + 63)/64))"),
    ("int g = n > 0 ? n : 1;", "Max(1, n)"),
    ("int g = n; if (g < m) g = m; else g = n;", "Max(m, n)"),
    ("if (n == 0) return; int g = n << 1;", "2*n"),
])
def test_launcher_values(tmp_path: Path, host: str, grid: str) -> None:
    path = _write(tmp_path, "h.cu", KERNEL + "void run(float* x, int n, int m) { " + host
                  + " k<<<g, 32>>>(x, n); }\n")
    [launch] = cuda.lower(path).ops.first.launches
    assert launch.grid_exprs == [grid, "1", "1"]


def test_a_launch_chosen_by_the_sizes_is_lowered_per_size(tmp_path: Path) -> None:
    """`if (n > 0) k<<<...>>>`: symbolically undecided, so the launcher needs concrete sizes (said
    at its line); at a size the `if` is decided and the chosen launch is lowered, or none is."""
    path = _write(tmp_path, "h.cu", KERNEL + "void run(float* x, int n) {\n  if (n > 0) k<<<1, 32>>>(x, n);\n}\n")
    with pytest.raises(NeedsConcreteSizes, match=r"h.cu:3 depends on the sizes"):
        cuda.lower(path)
    launches = [op for op in cuda.lower(path, binding=Binding(sizes={"n": 5})).walk() if isinstance(op, LaunchOp)]
    assert len(launches) == 1
    assert not [op for op in cuda.lower(path, binding=Binding(sizes={"n": 0})).walk() if isinstance(op, LaunchOp)]


def test_host_control_flow_as_launchers_write_it(tmp_path: Path) -> None:
    """At concrete sizes the host launcher runs as C does: a helper with a loop and `|=`, `+=` and
    `++`, a ternary on a size, an if/else chain of launches, a loop of launches, `cudaStream_t&`
    and a `bool` flag that a spec's value fixes."""
    path = _write(tmp_path, "h.cu", KERNEL + """
inline int next_pow2(int v) { int r = v - 1; r |= r >> 1; r |= r >> 2; r |= r >> 4; return r + 1; }
inline int steps(int n) { int s = 0; while (n > 1) { n /= 2; s++; } return s; }
void run(float* x, int n, bool twice, cudaStream_t& stream) {
  const int threads = n < 64 ? 32 : next_pow2(n) > 256 ? 256 : next_pow2(n);
  if (threads == 32) {
    k<<<1, threads, 0, stream>>>(x, n);
  } else if (twice) {
    for (int i = 0; i < 2; ++i) k<<<(n + threads - 1) / threads, threads, 0, stream>>>(x, n);
  } else {
    int blocks = 0;
    blocks += (n + threads - 1) / threads;
    k<<<blocks + steps(n) - steps(n), threads, 0, stream>>>(x, n);
  }
}
""")
    def launches(n: int, twice: bool) -> list[tuple[str, str]]:
        module = cuda.lower(path, binding=Binding(args={"twice": ValueArg(twice)}, sizes={"n": n}))
        return [(op.grid.data[0].data, op.block.data[0].data) for op in module.walk() if isinstance(op, LaunchOp)]
    # the sizes decide each condition; the extents stay expressions of them
    assert launches(40, False) == [("1", "32")]
    assert launches(100, False) == [("floor((n + 127)/128)", "128")]
    assert launches(1000, False) == [("floor((n + 255)/256)", "256")]
    assert launches(1000, True) == [("floor((n + 255)/256)", "256")] * 2
    assert [p.name for p in cuda.entries(path)[0].params] == ["x", "n", "twice"]  # the stream is no parameter


def test_declaration_groups(tmp_path: Path) -> None:
    """`int i = 0, j = 1;` declares two variables (libclang gives them one extent)."""
    path = _write(tmp_path, "g.cu", "__global__ void k(float* x, int n) {\n"
                  "  int i = threadIdx.x, j = 2;\n  if (i < n) x[i] = j;\n}\n"
                  "void run(float* x, int n) { k<<<1, 32>>>(x, n); }\n")
    text = ir.print_ir(cuda.lower(path))
    assert "arith.constant 2 : i32" in text and "memref.store" in text


KERNELBENCH = '''import torch
from torch.utils.cpp_extension import load_inline

src = """
__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 2.0f;
}
torch::Tensor twice(torch::Tensor x) {
  auto y = torch::zeros_like(x);
  int n = x.numel();
  k<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}
"""
mod = load_inline(name="m", cpp_sources="torch::Tensor twice(torch::Tensor x);", cuda_sources=src,
                  functions=["twice"])
'''


def test_load_inline_file_is_cuda(tmp_path: Path) -> None:
    from lowercheck.frontends import language_of

    path = _write(tmp_path, "kb.py", KERNELBENCH)
    assert language_of(str(path)) == "cuda"
    [entry] = cuda.entries(path)
    assert (entry.name, entry.location.line, entry.launches) == ("twice", 9, ("k",))
    assert [(p.name, p.kind) for p in entry.params] == [("x", "buffer")]


def test_load_inline_binding_shapes(tmp_path: Path) -> None:
    path = _write(tmp_path, "kb.py", KERNELBENCH)
    binding = Binding(args={"x": TensorArg(("m", "n"), "float32")})
    entry = cuda.lower(path, None, binding).ops.first
    params = {p.pname: (p.role.data, [s.data for s in p.shape]) for p in entry.params}
    assert params == {"x": ("in", ["m", "n"]), "return0": ("out", ["m", "n"])}
    assert entry.launches[0].arg_exprs == ["x", "return0", "m*n"]


def test_load_inline_errors_name_python_lines(tmp_path: Path) -> None:
    broken = KERNELBENCH.replace("y[i] = x[i] * 2.0f;", "y[i] = x[i] * 2.0f")
    with pytest.raises(UserError) as err:
        cuda.lower(_write(tmp_path, "bad.py", broken))
    assert (err.value.location.file.endswith("bad.py"), err.value.location.line) == (True, 7)
    unsupported = KERNELBENCH.replace("y[i] = x[i] * 2.0f;", "switch (n) { default: y[i] = 1.0f; }")
    with pytest.raises(Unsupported, match="switch") as err:
        cuda.lower(_write(tmp_path, "unsup.py", unsupported))
    assert (err.value.location.file.endswith("unsup.py"), err.value.location.line) == (True, 7)


def test_cli_exit_code_for_unsupported(tmp_path: Path) -> None:
    path = _write(tmp_path, "u.cu", "__global__ void k(float* x, int n) {\n  switch (n) { default: x[0] = 1; }\n}\n"
                                    "void run(float* x, int n) { k<<<1, 32>>>(x, n); }\n")
    result = run_lowercheck(["lower", str(path)])
    assert result.returncode == 3 and "u.cu:2:" in result.stderr + result.stdout


def test_host_buffers_are_never_null_and_extents_update_in_place(tmp_path: Path) -> None:
    """A launcher that tests an optional buffer (`if (!bias)`, `bias == nullptr`) takes the branch
    where it is there (lowercheck passes a buffer for each pointer parameter), and `block.x >>= 1`
    under a size test updates that extent at each size."""
    path = _write(tmp_path, "h.cu", KERNEL + """
void run(float* x, float* bias, int n) {
  dim3 block(256);
  dim3 grid((n + 255) / 256);
  if (n > 512) { block.x >>= 1; grid.x <<= 1; }
  if (!bias) return;
  if (bias == nullptr) return;
  k<<<grid, block>>>(x, n);
}
""")
    def launches(n: int) -> list[tuple[str, str]]:
        module = cuda.lower(path, binding=Binding(sizes={"n": n}))
        return [(op.grid.data[0].data, op.block.data[0].data) for op in module.walk() if isinstance(op, LaunchOp)]
    assert launches(100) == [("floor((n + 255)/256)", "256")]
    assert launches(1000) == [("2*floor((n + 255)/256)", "128")]


DISPATCH = """
template <typename T, int UNROLL>
__global__ void scale(T* x, float a, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
  for (int u = 0; u < UNROLL; u++) if (i + u < n) x[i + u] = x[i + u] * a;
}
template <typename T, int UNROLL>
void launch_impl(T* x, float a, int n, cudaStream_t s) {
  scale<T, UNROLL><<<(n / UNROLL + 127) / 128, 128, 0, s>>>(x, a, n);
}
void launch(float* x, float a, int n, int unroll, cudaStream_t s) {
  switch (unroll) {
    case 1: launch_impl<float, 1>(x, a, n, s); break;
    case 4: launch_impl<float, 4>(x, a, n, s); break;
  }
}
"""


def test_a_dispatcher_that_calls_launchers_is_an_entry(tmp_path: Path) -> None:
    """`launch` reaches its kernels through `launch_impl<float, U>` (a switch on a mode picks one):
    it is an entry, the called launcher is read in place with the caller's buffers; `lower` takes
    the first case (unroll = 1, a value the switch compares with), and a mode none of whose cases
    any such value takes is inconclusive, never a launcher that launches nothing."""
    path = _write(tmp_path, "d.cu", DISPATCH)
    found = {c.name: c.launches for c in cuda.entries(path)}
    assert found["launch"] == ("scale_float_1", "scale_float_4")
    module = cuda.lower(path, "launch", Binding(args={"unroll": ValueArg(4)}, sizes={"n": 1000}))
    launches = [op for op in module.walk() if isinstance(op, LaunchOp)]
    assert [(op.callee.root_reference.data, [a.data for a in op.args.data]) for op in launches] == [
        ("scale_float_4", ["x", "a", "n"])]
    done = run_lowercheck(["lower", f"{path}:launch"])
    assert done.returncode == 0 and "lowered at unroll=1," in done.stderr, done.stderr
    assert "@scale_float_1" in done.stdout
    hidden = _write(tmp_path, "hidden.cu", DISPATCH.replace("switch (unroll)", "switch (unroll * 2 - unroll)"))
    done = run_lowercheck(["lower", f"{hidden}:launch"])
    assert done.returncode == 3 and "makes none of its launches at n=1000, unroll=1000" in done.stderr, done.stderr


def test_a_kernelbench_file_runs_what_forward_calls(tmp_path: Path) -> None:
    """Of several host functions in a load_inline source, the entry is the one `forward` calls;
    without such a call, several are ambiguous (exit 2 naming them)."""
    text = (HERE / "inputs" / "kernelbench_relu.py").read_text()
    helper = ('torch::Tensor copy_cuda(torch::Tensor x) {\n    auto out = torch::empty_like(x);\n'
              '    bias_relu_kernel<<<1, 32>>>(x.data_ptr<float>(), x.data_ptr<float>(), out.data_ptr<float>(), 1, 32);\n'
              '    return out;\n}\n"""\n\nrelu_cpp_source')
    text = text.replace('"""\n\nrelu_cpp_source', helper, 1)
    path = _write(tmp_path, "two_functions.py", text)
    assert {c.name: c.preferred for c in cuda.entries(path)} == {"bias_relu_cuda": True, "copy_cuda": False}
    assert cuda.lower(path).ops.first.sym_name.data == "bias_relu_cuda"
    done = run_lowercheck(["lower", str(path), "--no-loc"])
    assert done.returncode == 0 and "kernel.entry @bias_relu_cuda" in done.stdout, done.stderr
    unused = _write(tmp_path, "no_forward.py", text.replace("def forward(self, x, bias)", "def run(self, x, bias)"))
    done = run_lowercheck(["lower", str(unused)])
    assert done.returncode == 2 and "bias_relu_cuda, copy_cuda" in done.stderr, done.stderr


def test_a_launcher_lowered_at_the_values_its_conditions_compare_with(tmp_path: Path) -> None:
    """`lower` gives every integer 1000; a launcher that launches only for `bits == 8` or `bits ==
    4` (and a mode chosen by a `switch`) then launches nothing: it is lowered at the constants its
    conditions compare its parameters with, in source order, and says so."""
    path = _write(tmp_path, "modes.cu", KERNEL + """
enum class Mode { Plain = 0, Scaled = 1 };
void launch(float* x, int n, int bits, Mode mode) {
    if (n < 1) return;
    switch (mode) {
    case Mode::Scaled:
        if (bits == 8) { k<<<(n + 127) / 128, 128>>>(x, n); }
        else if (bits == 4) { k<<<(n + 63) / 64, 64>>>(x, n); }
        break;
    default:
        break;
    }
}
""")
    assert cuda.compared_values(path, "launch") == {"n": [1], "mode": [1], "bits": [8, 4]}
    done = run_lowercheck(["lower", str(path), "--no-loc"])
    assert done.returncode == 0, done.stderr
    assert "lowered at mode=1, bits=8," in done.stderr
    assert 'block = ["128", "1", "1"]' in done.stdout
