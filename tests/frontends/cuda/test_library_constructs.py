"""CUDA as kernel libraries write it: half2 math and operators, cuRAND, host code with std
containers and runtime queries, `(std::min)(a, b)`, launcher templates with value parameters that
only the file's own calls instantiate, launches inside macros of macros, `switch` statements that
choose a launch, helpers sizing a launch with bitwise updates, C math or a returned dim3, and
headers in a sibling folder of the project. Each launcher is lowered and, where it lowers, run by
the emulator against numpy; what the model declares but does not lower is LC901 at its own line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lowercheck import ir
from lowercheck.dialects.kernel import LaunchOp
from lowercheck.errors import Unsupported
from lowercheck.frontends import cuda
from lowercheck.frontends.base import Binding, ValueArg
from lowercheck.frontends.cuda import parse
from lowercheck.runners import poison, simt
from lowercheck.runners.base import RunRequest

FILL = """
template <int V>
__global__ void fill(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = V;
}
"""


def _write(tmp_path: Path, text: str, name: str = "k.cu") -> str:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def _run(path: str, entry: str | None, binding: Binding | None = None, **args) -> dict[str, np.ndarray]:
    module = cuda.lower(path, entry, binding)
    result = simt.run(RunRequest(language="cuda", path=path, entry=module.ops.first.sym_name.data,
                                 ir=ir.print_ir(module), args=args, seed=0, options={}))
    assert result.error is None, result.error
    return result.outputs


def _launches(path: str, entry: str | None, sizes: dict[str, int] | None = None,
              fixed: dict[str, int] | None = None) -> list[tuple[str, list[str], list[str]]]:
    binding = Binding(args={k: ValueArg(v) for k, v in (fixed or {}).items()}, sizes=sizes)
    module = cuda.lower(path, entry, binding)
    return [(op.properties["callee"].root_reference.data, [a.data for a in op.properties["grid"].data],
             [a.data for a in op.properties["block"].data])
            for op in module.ops.first.body.block.ops if op.name == "kernel.launch"]


# ---------------------------------------------------------------- declarations of the model
HALF2_MATH = """#include <cuda_fp16.h>
__global__ void k(__half2* x, const __half2* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = EXPR;
}
void launch(__half2* x, const __half2* y, int n) { k<<<(n + 127) / 128, 128>>>(x, y, n); }
"""


def _pairs(path: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    module = cuda.lower(path, "launch")
    result = simt.run(RunRequest(language="cuda", path=path, entry=module.ops.first.sym_name.data,
                                 ir=ir.print_ir(module), args={"x": x.copy(), "y": y, "n": x.size // 2},
                                 seed=0, options={}))
    assert result.error is None and not result.oob, (result.error, result.oob)
    return result.outputs["x"]


@pytest.mark.parametrize("expr, reference", [
    ("x[i] + y[i]", lambda x, y: x + y),
    ("x[i] * y[i] - y[i]", lambda x, y: x * y - y),
    ("-x[i]", lambda x, y: -x),
    ("h2rsqrt(__habs2(y[i]))", lambda x, y: 1 / np.sqrt(np.abs(y.astype(np.float32)))),
    ("h2exp(y[i]) + __lowhigh2highlow(x[i])", lambda x, y: np.exp(y.astype(np.float32)).astype(np.float16)
     + x.reshape(-1, 2)[:, ::-1].ravel()),
])
def test_half2_math_and_operators_run_lane_by_lane(tmp_path: Path, expr: str, reference) -> None:
    """`a + b` on two __half2 (cuda_fp16.hpp's operators) and the h2 math: lane by lane, the math
    in float32 rounded to half, as CUDA computes it; checked against numpy in the emulator."""
    path = _write(tmp_path, HALF2_MATH.replace("EXPR", expr))
    assert [c.name for c in cuda.entries(path)] == ["launch"]
    rng = np.random.default_rng(0)
    x, y = (rng.uniform(0.5, 2, 2 * 300).astype(np.float16) for _ in range(2))
    expected = np.asarray(reference(x, y)).astype(np.float16)
    assert np.allclose(_pairs(path, x, y).astype(np.float32), expected.astype(np.float32), rtol=2e-3)


def test_compound_assignment_on_pairs_stores_into_the_left_side(tmp_path: Path) -> None:
    path = _write(tmp_path, HALF2_MATH.replace("x[i] = EXPR;", "{ __half2 t = x[i]; t *= y[i]; t += y[i]; x[i] = t; }"))
    x = np.full(600, 2, dtype=np.float16)
    y = np.full(600, 3, dtype=np.float16)
    assert np.array_equal(_pairs(path, x, y), np.full(600, 9, dtype=np.float16))


def test_scalar_half_math_is_the_lane_of_the_pair_math(tmp_path: Path) -> None:
    """The scalar forms (`hrsqrt(h)`, `__habs(h)`): the pair intrinsic's lane, in float32 rounded to
    half, checked against numpy in the emulator."""
    path = _write(tmp_path, HALF2_MATH.replace("EXPR", "__halves2half2(hrsqrt(y[i].x), __habs(y[i].y))"))
    rng = np.random.default_rng(1)
    x = np.zeros(600, np.float16)
    y = (rng.uniform(0.5, 2, 600) * rng.choice([-1, 1], 600)).astype(np.float16)
    out = _pairs(path, x, y).reshape(-1, 2).astype(np.float32)
    yy = y.reshape(-1, 2).astype(np.float32)
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(out[:, 0], (1 / np.sqrt(yy[:, 0])).astype(np.float16), rtol=2e-3)
    np.testing.assert_array_equal(out[:, 1], np.abs(yy[:, 1]))


def test_half_math_it_does_not_lower_is_lc901_where_called(tmp_path: Path) -> None:
    path = _write(tmp_path, HALF2_MATH.replace("EXPR", "__halves2half2(hexp10(y[i].x), y[i].y)"))
    with pytest.raises(Unsupported) as caught:
        cuda.lower(path, "launch")
    assert "hexp10" in caught.value.message
    assert caught.value.location is not None and caught.value.location.line == 4


CURAND = """#include <curand_kernel.h>
__global__ void noise(float* x, unsigned long long seed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t state;
  curand_init(seed, i, 0, &state);
  float4 r = curand_uniform4(&state);
  if (i < n) x[i] = r.x;
}
void launch_noise(float* x, unsigned long long seed, int n) {
  curandGenerator_t gen;
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  noise<<<(n + 255) / 256, 256>>>(x, seed, n);
}
"""


def test_a_kernel_drawing_numbers_lowers_and_the_host_generator_is_ignored(tmp_path: Path) -> None:
    """cuRAND's device API is modelled (include/curand_kernel.h, tested in test_curand.py); the host
    generator's calls in the launcher have no effect on the kernels."""
    path = _write(tmp_path, CURAND)
    assert [c.name for c in cuda.entries(path)] == ["launch_noise"]
    module = cuda.lower(path, "launch_noise")
    assert [op.callee.root_reference.data for op in module.walk() if isinstance(op, LaunchOp)] == ["noise"]


HOST_PIECES = """#include <vector>
#include <string>
#include <torch/extension.h>
__global__ void scale(const float* in, float* out, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = alpha * in[i];
}
int sm_count() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::vector<int> counts{prop.multiProcessorCount};
  return counts[0];
}
cudaError_t check(const std::string& what) {
  cudaError_t err = cudaGetLastError();
  return err == cudaErrorLaunchFailure ? cudaErrorUnknown : err;
}
bool is_double(const at::Tensor& t, c10::optional<at::Tensor> bias) {
  return t.type().scalarType() == at::ScalarType::Double && !bias.has_value();
}
void launch_scale(const float* in, float* out, float alpha, int n, cudaStream_t stream) {
  scale<<<(std::max)((std::min)((n + 127) / 128, 4096), 1), std::min<int>(n, 128), 0, stream>>>(in, out, alpha, n);
  check("scale");
}
"""


def test_host_code_with_std_containers_device_queries_and_parenthesised_min(tmp_path: Path) -> None:
    """std::vector/std::string, cudaDeviceProp, cudaError_t's values, c10::optional and
    `Tensor::type()` parse; `(std::max)((std::min)(a, b), 1)` and `std::min<int>` size the launch."""
    path = _write(tmp_path, HOST_PIECES)
    assert [c.name for c in cuda.entries(path)] == ["launch_scale"]
    assert parse.errored_functions(path) == []  # the helpers parse too, not only the launcher
    assert _launches(path, "launch_scale") == [
        ("scale", ["Max(1, Min(4096, floor((n + 127)/128)))", "1", "1"], ["Min(128, n)", "1", "1"])]
    x = np.arange(300, dtype=np.float32)
    out = _run(path, "launch_scale", **{"in": x, "out": poison.fill(np.empty(300, np.float32)), "alpha": 3.0,
                                        "n": 300})
    np.testing.assert_array_equal(out["out"], 3 * x)


def test_mixed_argument_math_is_double_as_in_cmath(tmp_path: Path) -> None:
    """`pow(2.0f * x, 2)` and `fmax(x, 0.5)` were ambiguous between the float and double overloads."""
    path = _write(tmp_path, """
__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = pow(2.0f * x[i], 2) + fmax(x[i], 0.5);
}
void launch(const float* x, float* y, int n) { k<<<(n + 63) / 64, 64>>>(x, y, n); }
""")
    x = np.linspace(-1, 1, 100).astype(np.float32)
    out = _run(path, "launch", x=x, y=poison.fill(np.empty(100, np.float32)), n=100)
    want = (np.power(2.0 * x.astype(np.float64), 2) + np.fmax(x.astype(np.float64), 0.5)).astype(np.float32)
    np.testing.assert_allclose(out["y"], want, rtol=1e-6)


# ---------------------------------------------------------------- launchers the file instantiates
DISPATCH = FILL + """
#define LAUNCH_FILL(V) fill<V><<<(n + 127) / 128, 128, 0, stream>>>(x, n);
template <int Value>
void launch_fill_impl(float* x, int n, cudaStream_t stream) {
  LAUNCH_FILL(Value)
}
void launch_fill(float* x, int n, int which, cudaStream_t stream) {
  if (which == 4) launch_fill_impl<4>(x, n, stream);
  else launch_fill_impl<8>(x, n, stream);
}
"""


def test_value_templates_are_instantiated_as_the_file_calls_them(tmp_path: Path) -> None:
    """A launcher template with a value parameter and no explicit instantiation: its instances are
    the ones the file's dispatcher calls, each an entry named by its arguments; the dispatcher, which
    launches through them, is an entry too."""
    path = _write(tmp_path, DISPATCH)
    assert [(c.name, c.instance_of) for c in cuda.entries(path)] == [
        ("launch_fill_impl", None), ("launch_fill_impl<8>", "launch_fill_impl"), ("launch_fill", None)]
    for entry, value in (("launch_fill_impl", 4), ("launch_fill_impl<8>", 8)):
        out = _run(path, entry, x=poison.fill(np.empty(200, np.float32)), n=200)
        np.testing.assert_array_equal(out["x"], np.full(200, value, np.float32))


NESTED_MACROS = FILL + """
#define LAUNCH_ONE(V) fill<V><<<(n + 63) / 64, 64>>>(x, n);
#define LAUNCH_FOR(kind) \\
  if (kind == 1) {       \\
    LAUNCH_ONE(1)        \\
  } else {               \\
    LAUNCH_ONE(2)        \\
  }
template <typename T>
void launch_kind(T* x, int n, int kind) {
  LAUNCH_FOR(kind)
}
template void launch_kind<float>(float*, int, int);
"""


def test_a_launch_in_a_macro_used_by_a_macro_makes_a_launcher(tmp_path: Path) -> None:
    path = _write(tmp_path, NESTED_MACROS)
    assert [c.name for c in cuda.entries(path)] == ["launch_kind"]
    assert [callee for callee, _, _ in _launches(path, "launch_kind", fixed={"kind": 2})] == ["fill_2"]


SWITCH = FILL + """
enum class Mode { Ones, Twos, Threes };
template <Mode M>
void launch_mode(float* x, int n) {
  switch (M) {
    case Mode::Ones: fill<1><<<(n + 255) / 256, 256>>>(x, n); break;
    case Mode::Twos:
    case Mode::Threes: {
      int blocks = (n + 127) / 128;
      fill<2><<<blocks, 128>>>(x, n);
      break;
    }
  }
}
void dispatch(float* x, int n, Mode mode) {
  if (mode == Mode::Ones) launch_mode<Mode::Ones>(x, n);
  else launch_mode<Mode::Threes>(x, n);
}
void launch_by_flag(float* x, int n, int flag) {
  switch (flag) {
    case 0: fill<1><<<(n + 255) / 256, 256>>>(x, n); break;
    default: fill<3><<<(n + 31) / 32, 32>>>(x, n);
  }
}
"""


def test_a_switch_chooses_the_launch_where_its_value_is_decided(tmp_path: Path) -> None:
    """By a template argument (falling through `case Twos:` into a block that ends in `break`), by a
    spec's value, and at concrete sizes; undecided, the launcher is lowered again at concrete sizes."""
    path = _write(tmp_path, SWITCH)
    assert _launches(path, "launch_mode") == [("fill_1", ["floor((n + 255)/256)", "1", "1"], ["256", "1", "1"])]
    assert _launches(path, "launch_mode<2>") == [("fill_2", ["floor((n + 127)/128)", "1", "1"], ["128", "1", "1"])]
    assert [c for c, _, _ in _launches(path, "launch_by_flag", fixed={"flag": 0})] == ["fill_1"]
    assert [c for c, _, _ in _launches(path, "launch_by_flag", sizes={"n": 100, "flag": 5})] == ["fill_3"]
    out = _run(path, "launch_mode<2>", x=poison.fill(np.empty(300, np.float32)), n=300)
    np.testing.assert_array_equal(out["x"], np.full(300, 2, np.float32))


# ---------------------------------------------------------------- helpers that size a launch
HELPERS = FILL + """
inline int next_pow2(const int val) {
  int rounded = val - 1;
  rounded |= rounded >> 1;
  rounded |= rounded >> 2;
  rounded |= rounded >> 4;
  rounded |= rounded >> 8;
  return rounded + 1;
}
dim3 grid_of(int rows, int cols, int threads) {
  int cols4 = cols / 4;
  int per_block = (cols4 < threads ? (int)pow(2.0, floor(log2((float)(threads / cols4)))) : 1);
  unsigned x = (rows + per_block - 1) / per_block;
  return {x, 1};
}
template <typename T>
void launch_rows(T* x, int rows, int cols) {
  constexpr int per_load = 16 / sizeof(T);
  const bool small = (cols <= 128) ? true : false;
  const int step = small ? per_load : per_load * 4;
  const int threads = (next_pow2((cols + step - 1) / step) < 256) ? next_pow2((cols + step - 1) / step) : 256;
  dim3 block(threads);
  fill<1><<<grid_of(rows, cols, 128), block>>>(x, rows * cols);
}
template void launch_rows<float>(float*, int, int);
"""


def test_helpers_with_bitwise_updates_math_and_a_returned_dim3(tmp_path: Path) -> None:
    """`v |= v >> 1` in a helper and `(int)pow(2.0, floor(log2(...)))` are decided at concrete sizes;
    a helper returning `{x, 1}` gives the launch's grid."""
    path = _write(tmp_path, HELPERS)
    # cols = 24: step 4, next_pow2(6) = 8 threads; cols4 = 6, per_block = 2^floor(log2(21)) = 16
    assert _launches(path, "launch_rows", sizes={"rows": 40, "cols": 24}) == [
        ("fill_1", ["floor((rows + 15)/16)", "1", "1"], ["8", "1", "1"])]
    # cols = 1000: step 16, next_pow2(63) = 64 threads; cols4 = 250 >= 128: one row per block
    assert _launches(path, "launch_rows", sizes={"rows": 40, "cols": 1000}) == [
        ("fill_1", ["rows", "1", "1"], ["64", "1", "1"])]


# ---------------------------------------------------------------- the project's headers
def test_a_header_in_a_sibling_folder_is_found_as_a_build_passes_it(tmp_path: Path) -> None:
    """ops/embed/k.cu includes "batch_types.h" from ops/helpers/ (a build's -I of its sibling folders)."""
    _write(tmp_path, "#pragma once\nstruct Batch { int rows; };\n", "ops/helpers/batch_types.h")
    path = _write(tmp_path, '#include "batch_types.h"\n' + FILL + """
void launch_batch(float* x, const Batch batch, int n) {
  fill<5><<<(n + 63) / 64, 64>>>(x, n);
}
""", "ops/embed/k.cu")
    assert [c.name for c in cuda.entries(path)] == ["launch_batch"]
    assert any(str(tmp_path / "ops" / "helpers") in note for note in cuda.source_notes(path))
