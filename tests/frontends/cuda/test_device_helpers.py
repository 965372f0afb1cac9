"""Device helpers as libraries write them ([w2 1/7]): reference parameters (`float& v`, a
`cg::thread_block&`), a local whose address a helper takes (`_warp(&v)`), `using` aliases in a
body, `sizeof...(Ts)`, and an optional buffer tested against nullptr. Lowered and run by the
emulator against numpy, so a reference that does not write back fails."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from support import run_emulator

from lowercheck.frontends import cuda
from lowercheck.runners import poison

SOURCE = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ void add_into(float* data, float amount) { data[0] += amount; }

template <typename... Ts>
__device__ void twice(cg::thread_block& tb, float& v) {
  using Scalar = float;
  Scalar extra = (Scalar)sizeof...(Ts);       // 2 for <int, int>
  add_into(&v, v + extra - 2.0f);             // v = 2 * v
  tb.sync();
}

__global__ void k(const float* x, const float* bias, float* out, int n) {
  cg::thread_block tb = cg::this_thread_block();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    twice<int, int>(tb, v);
    if (bias != nullptr) v += bias[i];
    out[i] = v;
  }
}

void run(const float* x, const float* bias, float* out, int n) { k<<<(n + 127) / 128, 128>>>(x, bias, out, n); }
"""


def test_references_and_addresses_of_locals_write_back(tmp_path: Path) -> None:
    path = tmp_path / "helpers.cu"
    path.write_text(SOURCE)
    module = cuda.lower(str(path))
    n = 300
    x = np.arange(n, dtype=np.float32)
    bias = np.full(n, 0.5, dtype=np.float32)
    out = np.empty(n, dtype=np.float32)
    poison.fill(out)
    result = run_emulator(str(path), module, {"x": x, "bias": bias, "out": out, "n": n})
    assert result.error is None and not result.oob, (result.error, result.oob)
    assert np.array_equal(result.outputs["out"], 2 * x + 0.5)


POINTERS = """
__global__ void rowsum(const float* x, float* out, int n, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  const float* row = x;
  float* dst = out;
  if (r < rows) {
    row += r * n;                  // a pointer moved under control flow
    dst += r;
    float s = 0;
    for (int j = 0; j < n; j++) {  // and in a loop
      s += row[0];
      row++;
    }
    dst[0] = s;
  }
}
void run(const float* x, float* out, int n, int rows) { rowsum<<<(rows + 63) / 64, 64>>>(x, out, n, rows); }
"""


def test_pointer_variables_moved_under_control_flow_and_in_loops(tmp_path: Path) -> None:
    path = tmp_path / "pointers.cu"
    path.write_text(POINTERS)
    module = cuda.lower(str(path))
    rows, n = 70, 9
    x = np.arange(rows * n, dtype=np.float32)
    out = np.empty(rows, dtype=np.float32)
    poison.fill(out)
    result = run_emulator(str(path), module, {"x": x, "out": out, "n": n, "rows": rows})
    assert result.error is None and not result.oob, (result.error, result.oob)
    assert np.array_equal(result.outputs["out"], x.reshape(rows, n).sum(axis=1))


def test_numeric_limits_are_the_type_s_constants(tmp_path: Path) -> None:
    """`std::numeric_limits<float>::infinity()` / `::max()` (static members, inlined like functions;
    `__builtin_inff()` a constant), as softmax kernels start their running max."""
    path = tmp_path / "limits.cu"
    path.write_text("#include <limits>\n__global__ void k(float* x, int* y, int n) {\n"
                    "  int i = threadIdx.x;\n"
                    "  if (i < n) { x[i] = -std::numeric_limits<float>::infinity(); y[i] = std::numeric_limits<int>::max(); }\n"
                    "}\nvoid run(float* x, int* y, int n) { k<<<1, 32>>>(x, y, n); }\n")
    module = cuda.lower(str(path))
    x, y = np.zeros(8, np.float32), np.zeros(8, np.int32)
    result = run_emulator(str(path), module, {"x": x, "y": y, "n": 8})
    assert result.error is None, result.error
    assert np.all(result.outputs["x"] == -np.inf) and np.all(result.outputs["y"] == np.iinfo(np.int32).max)
