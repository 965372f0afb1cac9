"""Declarations of the CUDA runtime model (shim.h) that real kernel libraries use: c10's
`toString(ScalarType)`, `at::cuda::getCurrentDeviceProperties()`, `at::acc_type`, `at::device_of`,
ATen's dispatch and check macros, `std::pair`'s constructor, cooperative groups' `coalesced_group::meta_group_rank()`,
the integer conversions and `isnan` (lowered: tests/frontends/cuda/test_real_code.py), and halves built from their bit patterns (`__half(raw)`,
`__half2(raw2)`) while `__half2 v = {a, b};` stays an aggregate. Each source parses without a clang
error; what the model declares but does not lower is LC901 at its own line."""

from __future__ import annotations

from pathlib import Path

import clang.cindex as ci
import numpy as np
import pytest

from lowercheck import ir
from lowercheck.runners import simt
from lowercheck.runners.base import RunRequest

from lowercheck.errors import Unsupported
from lowercheck.frontends import cuda
from lowercheck.frontends.cuda import parse


def _write(tmp_path: Path, text: str, name: str = "k.cu") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _errors(path: str) -> list[str]:
    tu = parse.translation_unit(path)
    return [f"{d.location.line}: {d.spelling}" for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]


# ---------------------------------------------------------------- host code around the kernels
HOST = """#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <utility>
template <class T, class Acc> __global__ void scale(T* x, Acc a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * a;
}
std::pair<int, int> shape(const at::Tensor& x) { return std::pair<int, int>(x.size(0), x.size(1)); }
void launch(at::Tensor x) {
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  cudaDeviceProp* prop = at::cuda::getCurrentDeviceProperties();
  int sms = prop->multiProcessorCount;
  at::Tensor flat = x.view({x.numel()});
  const char* type_name = toString(x.scalar_type());
  if (x.scalar_type() == at::ScalarType::BFloat16) AT_ERROR("no kernel for ", type_name);
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "scale", ([&] {
    using acc_t = at::acc_type<scalar_t, true>;
    scale<scalar_t, acc_t><<<(flat.numel() + 255) / 256, 256>>>(flat.data_ptr<scalar_t>(), acc_t(2), flat.numel());
  }));
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "scale", [&] { (void)sizeof(scalar_t); });
  AT_CUDA_CHECK(cudaGetLastError());
  C10_CUDA_CHECK(cudaGetLastError());
}
"""


def test_aten_host_declarations_parse(tmp_path: Path) -> None:
    """The host API of ATen and c10 a launcher uses parses against the model; lowering the launcher
    either lowers it or is LC901, never a crash."""
    path = _write(tmp_path, HOST)
    assert _errors(path) == []
    try:
        cuda.lower(path, "launch")
    except Unsupported:
        pass


@pytest.mark.parametrize("t, acc", [("at::Half", "float"), ("at::BFloat16", "float"), ("float", "float"),
                                    ("double", "double")])
def test_acc_type_is_float_for_halves_and_double_for_double(tmp_path: Path, t: str, acc: str) -> None:
    path = _write(tmp_path, f"#include <ATen/AccumulateType.h>\n"
                            f"static_assert(__is_same(at::acc_type<{t}, true>, {acc}), \"acc_type\");\n")
    assert _errors(path) == []


# ---------------------------------------------------------------- device declarations
PAIRS = """#include <cuda_fp16.h>
__global__ void k(__half2* x, const __half2* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { BODY }
}
void launch(__half2* x, const __half2* y, int n) { k<<<(n + 127) / 128, 128>>>(x, y, n); }
"""


def test_half2_stays_an_aggregate(tmp_path: Path) -> None:
    """The raw types convert to the halves, and the pairs stay aggregates: `__half2 v = {a, b};`
    is still aggregate initialisation (an init list, no constructor call)."""
    path = _write(tmp_path, PAIRS.replace("BODY", "__half2 v = {y[i].y, y[i].x}; x[i] = v;") + """
static_assert(__is_aggregate(__half2) && __is_aggregate(__nv_bfloat162), "pairs are aggregates");
__device__ __half2 from_raw(__half2_raw r) { return __half2(r); }
""")
    assert _errors(path) == []
    kernel = next(c for c in parse.function_definitions(parse.translation_unit(path)) if c.spelling == "k")
    v = next(c for c in parse.walk(kernel) if c.kind == ci.CursorKind.VAR_DECL and c.spelling == "v")
    assert [c.kind for c in v.get_children()][-1] == ci.CursorKind.INIT_LIST_EXPR


@pytest.mark.parametrize(("body", "expected"), [
    ("constexpr __half2_raw r = {0x7C00, 0x7C00}; x[i] = __half2(r);", [np.inf, np.inf]),
    ("constexpr __half_raw r = {0x3C00}; x[i].x = __half(r); x[i].y = y[i].y;", [1.0, "y"]),
    ("__nv_bfloat16_raw r = {0x3F80}; x[i].x = __float2half(__bfloat162float(__nv_bfloat16(r))); x[i].y = y[i].y;",
     [1.0, "y"]),
])
def test_bit_patterns_convert_to_the_halves_they_hold(tmp_path: Path, body: str, expected: list) -> None:
    """`__half2(__half2_raw{...})`, `__half(__half_raw{...})` (reduction_utils' -inf and +inf
    constants): the raw struct is an object with one field per lane, its bits the lane's."""
    path = _write(tmp_path, PAIRS.replace("BODY", body))
    module = cuda.lower(path, "launch")
    y = np.arange(8, dtype=np.float16)
    result = simt.run(RunRequest(language="cuda", path=path, entry="launch", ir=ir.print_ir(module),
                                 args={"x": np.zeros(8, np.float16), "y": y, "n": 4}, seed=0, options={}))
    assert result.error is None, result.error
    x = np.asarray(result.outputs["x"]).reshape(4, 2)
    for k, want in enumerate(expected):
        np.testing.assert_array_equal(x[:, k], y.reshape(4, 2)[:, k] if want == "y" else np.float16(want))


@pytest.mark.parametrize("body", [
    "x[i].x = __int2half_rn(__half2int_rn(y[i].x) + (int)__int2double_rn(1));",
    "cooperative_groups::coalesced_group g = cooperative_groups::coalesced_threads(); x[i].x = __int2half_rn(g.meta_group_rank());",
])
def test_declared_but_not_lowered_is_lc901_at_the_line(tmp_path: Path, body: str) -> None:
    """Each parses (the declaration is in the model) and is inconclusive at the kernel's line 4."""
    path = _write(tmp_path, "#include <cooperative_groups.h>\n" + PAIRS.replace("BODY", body).replace(
        "#include <cuda_fp16.h>\n", ""))
    assert _errors(path) == []
    with pytest.raises(Unsupported) as caught:
        cuda.lower(path, "launch")
    assert caught.value.location is not None and caught.value.location.line == 4, caught.value
