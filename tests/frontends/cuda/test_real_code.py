"""CUDA as real files write it ([w2 1/7]): helper headers, headers lowercheck does not model, a host
`main` full of APIs it does not model, cooperative_groups::reduce, loops stepped by a group's size,
cache-hinted loads and stores, __mul24, atomicSub/atomicXor. Each kernel is lowered by the front end
and run by the emulator against numpy, so a construct that is parsed but lowered wrong fails too."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lowercheck import ir
from lowercheck.errors import Unsupported, UserError
from lowercheck.frontends import cuda
from lowercheck.lowering import extract_accesses
from lowercheck.runners import poison, simt
from lowercheck.runners.base import RunRequest

HEADERS = """#include <stdio.h>
#include <cuda_runtime.h>
#include <helper_cuda.h>
#include <helper_functions.h>
#include "helper_cuda.h"
#include <iostream>
#include <thrust/device_vector.h>
#include "not_beside_this_file.h"
"""


def _write(tmp_path: Path, text: str, name: str = "k.cu") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _run(path: Path, entry: str | None = None, **args) -> dict[str, np.ndarray]:
    module = cuda.lower(str(path), entry)
    result = simt.run(RunRequest(language="cuda", path=str(path), entry=module.ops.first.sym_name.data,
                                 ir=ir.print_ir(module), args=args, seed=0, options={}))
    assert result.error is None, result.error
    return result.outputs


def _unmodelled(path: Path) -> list[str]:
    text = ir.print_ir(extract_accesses(cuda.lower(str(path))))
    return [line for line in text.splitlines() if "access.unmodelled" in line]


SCALE = HEADERS + """
__global__ void scale(const float *in, float *out, float alpha, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) out[i] = alpha * in[i];
}

void scale_launch(const float *in, float *out, float alpha, int n) {
  dim3 block(128);
  scale<<<(n + block.x - 1) / block.x, block>>>(in, out, alpha, n);
  checkCudaErrors(cudaGetLastError());
  getLastCudaError("scale failed");
}

int main(int argc, char **argv) {
  int dev = findCudaDevice(argc, (const char **)argv);
  cudaGraphExec_t props;                      // not in lowercheck's model: main does not parse
  std::cout << props.name << std::endl;
  StopWatchInterface *timer = 0;
  sdkCreateTimer(&timer);
  scale<<<8, 128>>>(0, 0, 2.0f, 1024);
  return 0;
}
"""


def test_unknown_headers_are_empty_and_main_is_skipped(tmp_path: Path) -> None:
    path = _write(tmp_path, SCALE)
    assert [c.name for c in cuda.entries(str(path))] == ["scale_launch"]
    notes = cuda.source_notes(str(path))
    assert any("<iostream>" in n and "<thrust/device_vector.h>" in n and "<not_beside_this_file.h>" in n
               for n in notes), notes
    assert not any("helper_cuda.h" in n for n in notes)  # modelled, not replaced
    assert any("`main` does not parse" in n and "cudaGraphExec_t" in n for n in notes), notes
    x = np.arange(300, dtype=np.float32)
    out = _run(path, **{"in": x, "out": poison.fill(np.empty(300, np.float32)), "alpha": 2.0, "n": 300})
    np.testing.assert_array_equal(out["out"], 2 * x)


def test_the_entry_that_does_not_parse_gives_clang_s_error(tmp_path: Path) -> None:
    path = _write(tmp_path, SCALE.replace("scale_launch", "launch_it").replace(
        "checkCudaErrors(cudaGetLastError());", "undeclared_call(n);"))
    with pytest.raises(UserError) as caught:
        cuda.entries(str(path))
    assert "undeclared_call" in caught.value.message and caught.value.location.line > 1


def test_a_kernel_with_an_error_fails_at_its_line_when_lowered(tmp_path: Path) -> None:
    path = _write(tmp_path, SCALE.replace("out[i] = alpha * in[i];", "out[i] = alpha * missing_fn(in[i]);"))
    with pytest.raises(UserError) as caught:
        cuda.lower(str(path))
    assert "missing_fn" in caught.value.message
    assert caught.value.location.line == SCALE.splitlines().index(
        "  if (i < n) out[i] = alpha * in[i];") + 1


def test_a_local_copy_of_a_modelled_helper_is_replaced_by_the_model(tmp_path: Path) -> None:
    _write(tmp_path, "#error this is the real helper_cuda.h: lowercheck must not parse it\n", "helper_cuda.h")
    path = _write(tmp_path, SCALE)
    assert [c.name for c in cuda.entries(str(path))] == ["scale_launch"]


ROWSUM = """#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

__global__ void rowmax(const float* x, float* out, int m, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (row >= m) return;
  const int step = warp.size();
  float best = -INFINITY;
  for (int j = warp.thread_rank(); j < min(n, 4096); j += step) best = fmaxf(best, x[row * n + j]);
  best = cg::reduce(warp, best, cg::greater<float>());
  float total = 0.0f;
  for (int j = warp.thread_rank(); j < ceil_div(n, 1) ; j += warp.size()) total += x[row * n + j];
  total = cg::reduce(warp, total, cg::plus<float>());
  if (warp.thread_rank() == 0) { out[2 * row] = best; out[2 * row + 1] = total; }
}

void rowmax_launch(const float* x, float* out, int m, int n) {
  rowmax<<<(m + 7) / 8, 256>>>(x, out, m, n);
}
"""


def test_cg_reduce_and_loops_stepped_by_a_group_size(tmp_path: Path) -> None:
    path = _write(tmp_path, ROWSUM)
    assert _unmodelled(path) == []  # every loop is a counted (SEQ) loop
    rng = np.random.default_rng(1)
    m, n = 11, 77
    x = rng.standard_normal((m, n)).astype(np.float32)
    out = _run(path, x=x.ravel(), out=poison.fill(np.empty(2 * m, np.float32)), m=m, n=n)["out"].reshape(m, 2)
    np.testing.assert_array_equal(out[:, 0], x.max(axis=1))
    np.testing.assert_allclose(out[:, 1], x.sum(axis=1), rtol=1e-5, atol=1e-5)


INTRINSICS = """
__global__ void intrinsics(const float* x, float* y, int* acc, unsigned* bits, int n) {
  int i = __mul24(blockIdx.x, blockDim.x) + threadIdx.x;
  if (i < n) {
    float v = __ldcs(x + i) + __ldcg(&x[i]) + __ldlu(x + i);
    __stcs(y + i, v);
    __stwt(&y[n + i], __ldca(x + i) * 2.0f);
    atomicSub(acc, i);
    atomicXor(bits, (unsigned)__umul24(i, 3u));
  }
}

void launch(const float* x, float* y, int* acc, unsigned* bits, int n) {
  intrinsics<<<(n + 63) / 64, 64>>>(x, y, acc, bits, n);
}
"""


def test_cache_hinted_accesses_mul24_and_more_atomics(tmp_path: Path) -> None:
    path = _write(tmp_path, INTRINSICS)
    n = 150
    x = np.linspace(-3, 3, n).astype(np.float32)
    out = _run(path, x=x, y=poison.fill(np.empty(2 * n, np.float32)), acc=np.array([1000], np.int32),
               bits=np.array([0], np.uint32), n=n)
    np.testing.assert_array_equal(out["y"][:n], x + x + x)
    np.testing.assert_array_equal(out["y"][n:], x * 2)
    assert out["acc"][0] == 1000 - sum(range(n))
    expected = 0
    for i in range(n):
        expected ^= i * 3
    assert out["bits"][0] == expected


HALF2 = """#include <cuda_fp16.h>
__global__ void h2(const __half2* x, __half2* y, float* lo, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half2 v = x[i];
    float2 f = __half22float2(v);
    __half2 w = __hadd2(v, __floats2half2_rn(f.y, 1.0f));
    y[i] = __hmul2(w, __float2half2_rn(2.0f));
    lo[i] = __low2float(v) + __high2float(w);
  }
}
void launch(const __half2* x, __half2* y, float* lo, int n) { h2<<<(n + 127) / 128, 128>>>(x, y, lo, n); }
"""


def test_pairs_of_halves(tmp_path: Path) -> None:
    path = _write(tmp_path, HALF2)
    n = 70
    x = np.linspace(-2, 2, 2 * n).astype(np.float16)
    out = _run(path, x=x, y=poison.fill(np.empty(2 * n, np.float16)), lo=poison.fill(np.empty(n, np.float32)), n=n)
    a, b = x[0::2], x[1::2]
    w = np.stack([a + b, b + np.float16(1)], axis=1).astype(np.float16)
    np.testing.assert_array_equal(out["y"].reshape(n, 2), (w * np.float16(2)).astype(np.float16))
    np.testing.assert_array_equal(out["lo"], a.astype(np.float32) + w[:, 1].astype(np.float32))


STRIDED = """
__global__ void scale_rows(const float* x, float* y, float* ends, int cols) {
    unsigned row = blockIdx.x;
    unsigned col = threadIdx.x;
    while (col < cols) {                  // a while loop over a variable declared before it
        y[row * cols + col] = 2.0f * x[row * cols + col];
        col += blockDim.x;
    }
    if (threadIdx.x == 0) ends[row] = (float)col;  // the value it ends with: the first past the row
}

__global__ void add_one(float* z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (; i < n; i += gridDim.x * blockDim.x) {  // a grid-stride `for` without an init
        z[i] += 1.0f;
    }
    if (i == n) z[i - 1] += 0.5f;          // the thread whose last step lands on n exactly
}

void launch(const float* x, float* y, float* ends, float* z, int rows, int cols) {
    scale_rows<<<rows, 64>>>(x, y, ends, cols);
    add_one<<<2, 32>>>(z, rows * cols);
}
"""


def test_loops_over_a_variable_declared_before_them_are_counted(tmp_path: Path) -> None:
    """`while (i < n) { ...; i += s; }` and `for (; i < n; i += s)` with an invariant positive step
    are SEQ loops (no `access.unmodelled`), and the variable ends at the first value past the bound."""
    path = _write(tmp_path, STRIDED)
    assert _unmodelled(path) == []
    assert "scf.while" not in ir.print_ir(cuda.lower(str(path)))
    rows, cols = 3, 130
    x = np.arange(rows * cols, dtype=np.float32)
    z = np.zeros(rows * cols, np.float32)
    out = _run(path, x=x, y=poison.fill(np.empty(rows * cols, np.float32)),
               ends=poison.fill(np.empty(rows, np.float32)), z=z, rows=rows, cols=cols)
    np.testing.assert_array_equal(out["y"], 2 * x)
    np.testing.assert_array_equal(out["ends"], np.full(rows, 192.0, np.float32))  # 0, 64, 128, 192
    expected = np.ones(rows * cols, np.float32)
    expected[-1] += 0.5 * sum(1 for t in range(64) if t < rows * cols and (rows * cols - t) % 64 == 0)
    np.testing.assert_array_equal(out["z"], expected)


TEMPLATED_BF16 = """
#include <cuda_bf16.h>
#include "convert.h"
template <typename T>
__global__ void fill(T* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = convert::to<T>(1.5f);
}
template <typename T>
void launch_fill(T* out, int n) { fill<T><<<(n + 127) / 128, 128>>>(out, n); }
#define INSTANTIATE(T) template void launch_fill<T>(T*, int);
INSTANTIATE(float)
#ifdef BF16_AVAILABLE
INSTANTIATE(__nv_bfloat16)
#endif
"""

CONVERT_H = """
#pragma once
namespace convert {
template <typename TO, typename FROM> __device__ TO to(FROM val) { return to(val); }
template <> __device__ float to(float val) { return val; }
#ifdef BF16_AVAILABLE
template <> __device__ __nv_bfloat16 to(float val) { return __float2bfloat16(val); }
#endif
}
"""


def test_an_instance_that_fails_inside_a_header_template_is_left_out(tmp_path: Path) -> None:
    """The file instantiates `launch_fill<__nv_bfloat16>` only in a bf16 build (`#ifdef`, which the
    instance scan does not evaluate): its probe fails inside the header's `to<__nv_bfloat16>`, an
    error clang places in the header with the probe in an "in instantiation" note. That probe is
    left out; the float instance lowers and runs."""
    _write(tmp_path, CONVERT_H, "convert.h")
    path = _write(tmp_path, TEMPLATED_BF16)
    out = _run(path, out=poison.fill(np.empty(300, np.float32)), n=300)
    np.testing.assert_array_equal(out["out"], np.full(300, 1.5, np.float32))


OBJECTS = """
struct Acc {
    float sum;
    float scale = 2.0f;        // a default member initialiser, replaced by the constructor's body
    int count;
    float hist[2];
    __device__ Acc(float s) : sum(0.0f), count(0) { scale = s; hist[0] = 0.0f; hist[1] = 0.0f; }
    __device__ void add(float v) { sum += v * scale; count++; hist[v > 0.0f] += 1.0f; }
    __device__ float mean() const { return count ? sum / count : 0.0f; }
};

template <int N>
struct Pair {
    Acc first;
    float bias = N;
};

__device__ Acc make(float s) { Acc a(s); return a; }
__device__ void load_into(float* dst, const float* src) { *dst = *src; }  // a helper taking a member's address

__global__ void k(const float* x, const float* b, float* out, int n) {
    Acc acc = make(0.5f);
    for (int i = threadIdx.x; i < n; i += blockDim.x) acc.add(x[i]);
    Pair<3> pair{Acc(1.0f)};
    load_into(&pair.bias, b + threadIdx.x);
    Acc copy = acc;
    copy.add(x[threadIdx.x]);  // a copy: the original keeps its values
    float* p = &acc.sum;
    out[4 * threadIdx.x] = acc.mean();
    out[4 * threadIdx.x + 1] = *p + pair.bias + pair.first.scale;
    out[4 * threadIdx.x + 2] = acc.hist[1] - acc.hist[0];
    out[4 * threadIdx.x + 3] = copy.sum;
}
void launch(const float* x, const float* b, float* out, int n) { k<<<1, 8>>>(x, b, out, n); }
"""


def test_structs_and_classes_with_constructors_methods_and_member_addresses(tmp_path: Path) -> None:
    """Device structs as LLM kernels write them (DeepSpeed's `Params` and `GroupStats`): fields with
    default initialisers, constructors with member initialisers, methods updating fields, objects
    returned, copied and nested, an array member, a member's address passed to a helper. Each field
    is a thread's local cell; run by the emulator against numpy."""
    path = _write(tmp_path, OBJECTS)
    assert _unmodelled(path) == []
    rng = np.random.default_rng(3)
    n = 37
    x = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    out = _run(path, x=x, b=b, out=poison.fill(np.empty(32, np.float32)), n=n)["out"].reshape(8, 4)
    for t in range(8):
        mine = x[t::8]
        total = np.float32(0)
        for v in mine:
            total = np.float32(total + np.float32(v * np.float32(0.5)))
        np.testing.assert_allclose(out[t, 0], total / len(mine), rtol=1e-6)
        np.testing.assert_allclose(out[t, 1], total + b[t] + 1.0, rtol=1e-6)
        assert out[t, 2] == (mine > 0).sum() - (mine <= 0).sum()
        np.testing.assert_allclose(out[t, 3], total + np.float32(x[t] * np.float32(0.5)), rtol=1e-6)


CONSTANTS = """
__constant__ float taps[5];                       // filled by the host: cudaMemcpyToSymbol
__constant__ int offsets[3] = {-1, 0, 1};          // a table the kernel holds
__constant__ float gain;                           // a scalar no host code here fills

__global__ void blur(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int k = 0; k < 3; k++) {
            int j = min(max(i + offsets[k], 0), n - 1);
            acc += taps[k] * x[j];
        }
        y[i] = acc * gain;
    }
}

void launch(const float* x, float* y, const float* weights, int n) {
    cudaMemcpyToSymbol(taps, weights, 5 * sizeof(float));
    blur<<<(n + 63) / 64, 64>>>(x, y, n);
}
"""


def test_constant_memory_from_the_host_from_an_initialiser_and_of_its_own(tmp_path: Path) -> None:
    """`__constant__` arrays and scalars: one that `cudaMemcpyToSymbol` fills is the launcher's
    buffer it copies from (`weights`), one with an initialiser is a table the kernel holds, and one
    that nothing here fills is an input of its own (`gain`, its values drawn like any input's)."""
    path = _write(tmp_path, CONSTANTS)
    module = cuda.lower(str(path))
    text = ir.print_ir(module)
    assert 'args = ["x", "y", "n", "weights", "gain"]' in text
    assert 'kernel.param {name = "gain", kind = "buffer", role = "in", element_type = f32, shape = ["1"]}' in text
    assert 'kernel.param {name = "weights", kind = "buffer", role = "in"' in text
    assert _unmodelled(path) == []
    n = 70
    rng = np.random.default_rng(5)
    x = rng.standard_normal(n).astype(np.float32)
    w = rng.standard_normal(5).astype(np.float32)
    out = _run(path, x=x, y=poison.fill(np.empty(n, np.float32)), weights=w, n=n, gain=np.array([2.0], np.float32))
    padded = np.concatenate([x[:1], x, x[-1:]])
    expected = (w[0] * padded[:-2] + w[1] * padded[1:-1] + w[2] * padded[2:]) * 2.0
    np.testing.assert_allclose(out["y"], expected, rtol=1e-5, atol=1e-6)


SHADOWING = """
template <typename T, int bits = 4>
__global__ void scale(T* x, int n) {
    constexpr int bits = 3;                // shadows the template parameter: nvcc accepts it, the inner one wins
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * (T)(1 << bits);
}
void launch(float* x, int n) { scale<float><<<(n + 127) / 128, 128>>>(x, n); }
"""


def test_a_declaration_shadowing_a_template_parameter_is_accepted_as_nvcc_does(tmp_path: Path) -> None:
    """clang rejects it (nvcc does not); the file is parsed again with `-fms-compatibility`, where
    it is a warning and the inner declaration wins."""
    path = _write(tmp_path, SHADOWING)
    x = np.arange(5, dtype=np.float32)
    out = _run(path, x=x.copy(), n=5)
    np.testing.assert_array_equal(out["x"], x * 8)


CUTLASS = """
#include <cutlass/gemm/gemm.h>
using Shape = cutlass::gemm::GemmShape<128, 128, 32>;
__global__ void k(float* x) { x[threadIdx.x] = Shape::kM; }
void launch(float* x) { k<<<1, 32>>>(x); }
"""


def test_a_file_built_on_cutlass_is_lc901_naming_it(tmp_path: Path) -> None:
    """CUTLASS, CuTe and CUB have no model: a file whose code fails against the empty header standing
    in for one is inconclusive naming the library, not clang's first error."""
    path = _write(tmp_path, CUTLASS)
    with pytest.raises(Unsupported) as caught:
        cuda.lower(str(path))
    assert "built on CUTLASS (`<cutlass/gemm/gemm.h>`)" in caught.value.message
    assert caught.value.code == "LC901"


BIT_FIELDS = """
#include <cstdint>
struct PackedInt4 {            // DeepSpeed's packed pair of int4s
    int8_t high : 4;
    int8_t low : 4;
};
struct Fields {                // unsigned fields of several widths in one 16-bit word
    uint16_t tag : 3;
    uint16_t value : 9;
    uint16_t flags : 4;
};

__global__ void pack(int8_t* packed, const int8_t* q, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        auto p = PackedInt4{q[2 * i + 1], q[2 * i]};
        packed[i] = *((int8_t*)(&p));
    }
}

__global__ void unpack(int8_t* q, int16_t* sums, const int8_t* packed, const uint16_t* words, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        auto d = *(PackedInt4*)(&packed[i]);
        q[2 * i] = d.low;
        q[2 * i + 1] = d.high;
        Fields f = *reinterpret_cast<const Fields*>(&words[i]);
        Fields g{5, 300};
        sums[i] = f.tag + f.value * 8 + f.flags * 1024 + g.value + g.flags;
    }
}

void launch(int8_t* q_out, int8_t* packed, int16_t* sums, const int8_t* q, const uint16_t* words, int n) {
    pack<<<(n + 31) / 32, 32>>>(packed, q, n);
    unpack<<<(n + 31) / 32, 32>>>(q_out, sums, packed, words, n);
}
"""


def test_structs_of_bit_fields_are_the_integer_that_stores_them(tmp_path: Path) -> None:
    """A struct of bit-fields (DeepSpeed's `PackedInt4`) is the integer that stores them: built from
    an init list (each value cut to its width), reinterpreted as bytes and back, its fields read
    with their sign; run by the emulator against numpy over every int4 value."""
    path = _write(tmp_path, BIT_FIELDS)
    assert _unmodelled(path) == []
    n = 40
    rng = np.random.default_rng(7)
    q = rng.integers(-8, 8, 2 * n).astype(np.int8)
    words = rng.integers(0, 1 << 16, n).astype(np.uint16)
    out = _run(path, q_out=poison.fill(np.empty(2 * n, np.int8)), packed=poison.fill(np.empty(n, np.int8)),
               sums=poison.fill(np.empty(n, np.int16)), q=q, words=words, n=n)
    # clang lays the first field out at the low bits: `high` is bits 0..3, `low` bits 4..7
    expected_packed = ((q[1::2].astype(np.int32) & 0xF) | ((q[0::2].astype(np.int32) & 0xF) << 4)).astype(np.uint8)
    np.testing.assert_array_equal(out["packed"].view(np.uint8), expected_packed)
    np.testing.assert_array_equal(out["q_out"], q)
    w = words.astype(np.int64)
    expected = (w & 7) + ((w >> 3) & 511) * 8 + ((w >> 12) & 15) * 1024 + (300 & 511) + 0
    np.testing.assert_array_equal(out["sums"], expected.astype(np.int16))


STRUCTS_IN_MEMORY = """
#include <cstdint>
#include <cuda_fp16.h>
template <typename T, int N>
struct alignas(sizeof(T) * N) AlignedArray {       // the packed-array idiom of LLM kernels
    __device__ AlignedArray() {}
    __device__ T& operator[](int k) { return reinterpret_cast<T&>(this->buffer[k]); }
    __device__ const T& at(int k) const { return reinterpret_cast<const T&>(this->buffer[k]); }
    __device__ AlignedArray<T, N> operator+(const AlignedArray<T, N>& rhs) const {
        AlignedArray<T, N> ret;
        for (int k = 0; k < N; ++k) ret[k] = this->at(k) + rhs.at(k);
        return ret;
    }
    T buffer[N];
};
struct Seq { int32_t start; int32_t count; int32_t seen; int32_t unused; };

__global__ void widen(const uint8_t* in, half* out, const Seq* seqs, int n) {
    using In = AlignedArray<uint8_t, 4>;
    using Out = AlignedArray<half, 4>;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        In v = reinterpret_cast<const In*>(in)[i];
        const Seq s = seqs[i % 3];
        Out o;
        for (int k = 0; k < 4; k++) o[k] = half(int(v.at(k)) + s.count + (seqs + 1)->seen);
        reinterpret_cast<Out*>(out)[i] = o + o;
    }
}

void launch(const uint8_t* in, half* out, const Seq* seqs, int n) {
    widen<<<(n + 63) / 64, 64>>>(in, out, seqs, n);
}
"""


def test_structs_in_memory_and_accessors_returning_references(tmp_path: Path) -> None:
    """Structs read and written in memory (a buffer of their one scalar type): `AlignedArray<T, N>`
    loaded and stored through reinterpreted pointers, an array of descriptors indexed, `p->f`,
    pointer arithmetic counting structs; `operator[]` returning a reference assigned through, an
    operator method; run by the emulator against numpy."""
    path = _write(tmp_path, STRUCTS_IN_MEMORY)
    assert _unmodelled(path) == []
    n = 50
    rng = np.random.default_rng(11)
    data = rng.integers(0, 200, 4 * n).astype(np.uint8)
    seqs = rng.integers(0, 20, (3, 4)).astype(np.int32)
    out = _run(path, **{"in": data}, out=poison.fill(np.empty(4 * n, np.float16)), seqs=seqs.reshape(-1), n=n)
    rows = np.arange(n) % 3
    expected = 2 * (data.reshape(n, 4).astype(np.int64) + seqs[rows, 1][:, None] + seqs[1, 2])
    np.testing.assert_array_equal(out["out"].reshape(n, 4), expected.astype(np.float16))


BUNDLES = """
#include <cstdint>
struct Meta { int32_t n_tokens; int32_t n_seqs; };
struct Seq { int32_t start; int32_t count; int32_t seen; int32_t unused; };
struct Cache { int32_t** blocks; int32_t block_size; };
struct Batch { const Meta* meta; const Seq* seqs; const int32_t* token_seq; const Cache cache; };

__global__ void gather(float* out, const float* x, const Batch batch, int dim) {
    int t = blockIdx.y;
    if (t >= batch.meta->n_tokens) return;
    const Seq seq = batch.seqs[batch.token_seq[t]];
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < dim) out[t * dim + c] = x[(seq.seen + t - seq.start) * dim + c] * batch.cache.block_size;
}

void launch_gather(float* out, const float* x, const Batch batch, int n_tokens, int dim, cudaStream_t stream) {
    dim3 grid((dim + 127) / 128, n_tokens);
    gather<<<grid, 128, 0, stream>>>(out, x, batch, dim);
}
void launch(float* out, const float* x, const Batch& batch, int n_tokens, int dim) {
    launch_gather(out, x, batch, n_tokens, dim, 0);
}
"""


def test_a_struct_of_pointers_and_sizes_passed_by_value_is_its_members(tmp_path: Path) -> None:
    """A launcher and a kernel that take a struct of pointers and sizes by value (DeepSpeed's ragged
    `BatchWrapperCPP`): each member is an entry parameter of its own (`batch_meta`, `batch_seqs`,
    `batch_cache_block_size`, nested structs flattened), a pointer to pointers two (its table and
    the memory it points into); run by the emulator against numpy."""
    path = _write(tmp_path, BUNDLES)
    text = ir.print_ir(cuda.lower(str(path), "launch"))
    assert 'args = ["out", "x", "batch_meta", "batch_seqs", "batch_token_seq", "batch_cache_blocks", ' \
        '"batch_cache_blocks_rows", "batch_cache_block_size", "dim"]' in text
    rng = np.random.default_rng(2)
    n_tokens, dim, n_seqs = 6, 150, 3
    seqs = np.array([[0, 2, 5, 0], [2, 3, 1, 0], [5, 1, 0, 0]], np.int32)
    token_seq = np.array([0, 0, 1, 1, 1, 2], np.int32)
    x = rng.standard_normal((12, dim)).astype(np.float32)
    out = _run(path, "launch", out=poison.fill(np.zeros(n_tokens * dim, np.float32)), x=x.reshape(-1),
               batch_meta=np.array([5, n_seqs], np.int32), batch_seqs=seqs.reshape(-1), batch_token_seq=token_seq,
               batch_cache_blocks=np.zeros(1, np.int64), batch_cache_blocks_rows=np.zeros(1, np.int32),
               batch_cache_block_size=4, n_tokens=n_tokens, dim=dim)["out"].reshape(n_tokens, dim)
    for t in range(5):  # token 5 is past `n_tokens` of the batch: not written
        s = seqs[token_seq[t]]
        np.testing.assert_array_equal(out[t], x[s[2] + t - s[0]] * 4)
    assert not np.isfinite(out[5]).any() or np.isnan(out[5]).all()

    with_blocks = BUNDLES.replace("* batch.cache.block_size", "* batch.cache.blocks[0][0]")
    assert "memref.load %batch_cache_blocks" in ir.print_ir(cuda.lower(str(_write(tmp_path, with_blocks, "blocks.cu")),
                                                                      "launch"))


GROUP_DIM_STEP = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
constexpr int vals = 4;

__global__ void fill(int* y, int n) {
  cg::thread_block tb = cg::this_thread_block();
  for (int i = tb.thread_index().x * vals; i < n + 1; i += tb.group_dim().x * vals) {
    for (int k = 0; k < vals; k++) y[i + k] = i + k + 1;
  }
}

void launch(int* y, int n) { fill<<<1, 32>>>(y, n); }
"""


def test_a_loop_stepped_by_a_groups_dimension_is_counted(tmp_path: Path) -> None:
    """`i += tb.group_dim().x * vals` (DeepSpeed's token sort): a step from a thread block's dimension
    is positive and invariant, so the loop is a counted (SEQ) loop, not one left unmodelled."""
    path = _write(tmp_path, GROUP_DIM_STEP)
    assert _unmodelled(path) == []
    n = 300
    out = _run(path, y=poison.fill(np.empty(n + 8, np.int32)), n=n)["y"]
    top = ((n + 1 + 3) // 4) * 4  # every i < n + 1 in steps of 4, each writing 4
    np.testing.assert_array_equal(out[:top], np.arange(1, top + 1))


VIEWS = """
__global__ void axpy(float* y, const float* x, const float* unused, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}
__global__ void copy4(uint4* dst, const uint4* src, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) dst[i] = src[i];
}

void halves(float* y, const float* x, const float* scratch, int n) {
    axpy<<<(n / 2 + 63) / 64, 64>>>(y, x, scratch, 2.0f, n / 2);        // the first half of each
    axpy<<<(n / 2 + 63) / 64, 64>>>(y + n / 2, x + n / 2, scratch, 3.0f, n / 2);  // the second half
}

void launch(float* y, const float* x, int* packed, const int* words, int n, int m) {
    const float* none = nullptr;
    halves(y, x, none, n);
    auto w = reinterpret_cast<const uint4*>(words);
    copy4<<<1, 64>>>(reinterpret_cast<uint4*>(packed), w + m, 8);          // words from 4m on
}
"""


def test_a_buffer_from_an_offset_on_is_a_view_of_it(tmp_path: Path) -> None:
    """`x + n / 2` passed to a kernel (pointer arithmetic on the launcher's buffers, `(uint4*)w + m`
    counted in uint4s), through a launcher helper, and a local `nullptr` passed on: the launch
    argument is the view `x[n/2:]`, the accesses are the buffer's own from that offset, and the
    emulator runs the kernel on that part of the buffer."""
    path = _write(tmp_path, VIEWS)
    text = ir.print_ir(cuda.lower(str(path), "launch"))
    assert 'args = ["y[floor(n/2):]", "x[floor(n/2):]", "null1", "3", "floor(n/2)"]' in text
    assert 'args = ["packed", "words[4*m:]", "8"]' in text
    relations = ir.print_ir(extract_accesses(cuda.lower(str(path), "launch")))
    assert 'buffer = "y", kind = "write", space = "global", element_type = f32, indices = ["64*GRID0 + LANE0 + floor(n/2)"]' \
        in relations
    assert 'buffer = "words", kind = "read", space = "global", element_type = i32, indices = ["256*GRID0 + 4*LANE0 + 4*m + 3"]' \
        in relations
    n, m = 100, 3
    rng = np.random.default_rng(4)
    x = rng.standard_normal(n).astype(np.float32)
    words = np.arange(4 * (m + 8) + 4, dtype=np.int32)
    out = _run(path, "launch", y=poison.fill(np.empty(n, np.float32)), x=x, packed=poison.fill(np.empty(32, np.int32)),
               words=words, n=n, m=m)
    np.testing.assert_allclose(out["y"][:50], 2 * x[:50], rtol=1e-6)
    np.testing.assert_allclose(out["y"][50:], 3 * x[50:], rtol=1e-6)
    np.testing.assert_array_equal(out["packed"], words[4 * m:4 * m + 32])


CHOICE = """
__global__ void split(const float* qkv, float* q, float* k, float* v, int n) {
    int which = blockIdx.y;                 // one output per block row, as DeepSpeed's transform does
    const float4* in = reinterpret_cast<const float4*>(qkv);
    float4* out = reinterpret_cast<float4*>(which == 0 ? q : (which == 1 ? k : v));
    in += which * n;
    out += 0;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 x = in[i];
        x.y += 1.0f;
        out[i] = x;
        if (i == 0 && which == 2) *(n > 1000 ? k : v) += 100.0f;   // compound assignment through a choice
    }
}
void launch(const float* qkv, float* q, float* k, float* v, int n4) {
    split<<<dim3((n4 + 63) / 64, 3), 64>>>(qkv, q, k, v, n4);
}
"""


def test_a_pointer_chosen_by_a_condition_accesses_the_buffer_it_chooses(tmp_path: Path) -> None:
    """`which == 0 ? q : (which == 1 ? k : v)` (DeepSpeed's `bias_add_transform_0213`): every access
    through the chosen pointer is an scf.if on the condition, so each buffer's accesses are modelled
    under it (k written only by blocks with blockIdx.y == 1) and the emulator writes only the
    chosen buffer; pointer arithmetic and casts apply to each choice."""
    path = _write(tmp_path, CHOICE)
    assert _unmodelled(path) == []
    relations = ir.print_ir(extract_accesses(cuda.lower(str(path))))
    assert "scf.if" in ir.print_ir(cuda.lower(str(path)))
    writes_k = [line for line in relations.splitlines() if 'buffer = "k", kind = "write"' in line]
    # the choice's condition guards them: blocks of row 1, or (the `+= 100`) n4 > 1000
    assert len(writes_k) == 5 and all('"Eq(GRID1, 1)"' in w or '"n4 > 1000"' in w for w in writes_k)
    n4 = 70
    rng = np.random.default_rng(9)
    qkv = rng.standard_normal((3, 4 * n4)).astype(np.float32)
    out = _run(path, qkv=qkv.reshape(-1), q=poison.fill(np.empty(4 * n4, np.float32)),
               k=poison.fill(np.empty(4 * n4, np.float32)), v=poison.fill(np.empty(4 * n4, np.float32)), n4=n4)
    for name, row in (("q", 0), ("k", 1), ("v", 2)):
        expected = qkv[row].reshape(n4, 4).copy()
        expected[:, 1] += 1.0
        if name == "v":
            expected[0, 0] += 100.0
        np.testing.assert_allclose(out[name].reshape(n4, 4), expected, rtol=1e-6)


HALVES_OVER_FLOATS = """
#include <cuda_fp16.h>
__global__ void fill(const __half* h, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 bits;
        __half2* pairs = reinterpret_cast<__half2*>(&bits);   // DeepSpeed's padded transform
        for (int k = 0; k < 4; k++) pairs[k] = __halves2half2(h[8 * i + 2 * k], h[8 * i + 2 * k + 1]);
        out[i] = bits;
    }
}
void launch(const __half* h, float* out, int n) { fill<<<(n + 31) / 32, 32>>>(h, (float4*)out, n); }
"""


def test_pairs_of_halves_stored_over_a_float_local_keep_their_bits(tmp_path: Path) -> None:
    """`((__half2*)&f4)[k] = h2`: a pair of halves stored over a local float4 is its 32 bits in one
    float lane (the first half the low 16 bits); run by the emulator against numpy's bit views."""
    path = _write(tmp_path, HALVES_OVER_FLOATS)
    assert _unmodelled(path) == []
    n = 20
    h = np.random.default_rng(6).standard_normal(8 * n).astype(np.float16)
    out = _run(path, h=h, out=poison.fill(np.empty(4 * n, np.float32)), n=n)["out"]
    np.testing.assert_array_equal(out.view(np.uint32), h.view(np.uint32))


NULL_ARGUMENTS = """
__global__ void bias_add(float* y, const float* x, const float* bias, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + (bias != nullptr ? bias[i] : 0.0f) + (bias ? 1.0f : 0.0f);
}
void launch(float* y, const float* x, const float* bias, int n) {
    bias_add<<<(n + 63) / 64, 64>>>(y, x, nullptr, n);   // no bias: the kernel's own test skips it
    bias_add<<<(n + 63) / 64, 64>>>(y, y, bias, n);
}
"""


def test_a_kernel_tests_a_null_argument_as_the_launch_passes_it(tmp_path: Path) -> None:
    """`bias != nullptr`, `if (bias)`: false in the launch that passes nullptr (the kernel is lowered
    for it: `bias_add_without_bias`), true in the one that passes a buffer; so the null buffer is
    never read (no false LC201) and the emulator computes what the GPU would."""
    path = _write(tmp_path, NULL_ARGUMENTS)
    text = ir.print_ir(extract_accesses(cuda.lower(str(path))))
    assert "@bias_add_without_bias" in text
    null_reads = [line for line in text.splitlines() if 'buffer = "null0"' in line and "access.access" in line]
    assert null_reads == []  # under `bias != nullptr`, false there: a branch no work item takes
    n = 100
    x = np.random.default_rng(8).standard_normal(n).astype(np.float32)
    bias = np.arange(n, dtype=np.float32)
    out = _run(path, y=poison.fill(np.empty(n, np.float32)), x=x, bias=bias, n=n)["y"]
    np.testing.assert_allclose(out, x + bias + 1.0, rtol=1e-6)


SHARED_MEMORY_STRUCT = """
template <typename T>
struct SharedMemory {                       // the CUDA samples' idiom, DeepSpeed's LAMB
    __device__ inline operator T*() { extern __shared__ int unused[]; return (T*)unused; }
};
template <>
struct SharedMemory<float> {
    __device__ inline operator float*() { extern __shared__ float s_float[]; return s_float; }
};

template <typename T>
__global__ void block_sum(const T* x, T* out, int n) {
    T* s = SharedMemory<T>();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : T(0);
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

void launch(const float* x, float* out, int n) {
    block_sum<float><<<(n + 127) / 128, 128, 128 * sizeof(float)>>>(x, out, n);
}
"""


def test_a_shared_memory_struct_converts_to_the_dynamic_shared_array(tmp_path: Path) -> None:
    """`T* s = SharedMemory<T>();`: the struct's `operator T*()` is inlined, so `s` is the kernel's
    `extern __shared__` array (sized by the launch); run by the emulator against numpy."""
    path = _write(tmp_path, SHARED_MEMORY_STRUCT)
    assert _unmodelled(path) == []
    n = 300
    x = np.random.default_rng(12).standard_normal(n).astype(np.float32)
    out = _run(path, x=x, out=poison.fill(np.empty(3, np.float32)), n=n)["out"]
    expected = [x[k * 128:(k + 1) * 128].sum() for k in range(3)]
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


HIDDEN_LAUNCH = """
__global__ void fill(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] = 1.0f; }
void launch(float* x, int n) {
    auto go = [&] { fill<<<1, 32>>>(x, n); };   // a lambda kept in a variable, called later
    go();
}
"""


def test_a_launch_the_host_reader_never_reaches_is_inconclusive_not_an_empty_entry(tmp_path: Path) -> None:
    """A launcher whose launches the host reader goes past (a lambda kept in a variable) is LC901
    naming the launch's line, never an entry that launches nothing (which would check nothing)."""
    path = _write(tmp_path, HIDDEN_LAUNCH)
    with pytest.raises(Unsupported, match=r"launches kernels \(at line 4\) that lowercheck's reading"):
        cuda.lower(str(path))


FLOAT_CLASSES = """
#include <cmath>
__global__ void classify(const float* x, int* cls, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cls[i] = isnan(x[i]) ? 1 : isinf(x[i]) ? 2 : isfinite(x[i]) ? 3 : 0;
}
void launch(const float* x, int* cls, int n) { classify<<<(n + 63) / 64, 64>>>(x, cls, n); }
"""


def test_isnan_isinf_isfinite(tmp_path: Path) -> None:
    path = _write(tmp_path, FLOAT_CLASSES)
    x = np.array([0.0, -1.5, np.nan, np.inf, -np.inf, 3e38, -0.0, np.nan], np.float32)
    out = _run(path, x=x, cls=poison.fill(np.empty(8, np.int32)), n=8)["cls"]
    np.testing.assert_array_equal(out, [3, 3, 1, 2, 2, 3, 3, 1])


BYTES = """
#include <cstdint>
__device__ void load4(void* dst, const void* src) {        // DeepSpeed's mem_access::load_global<4>
    reinterpret_cast<int32_t*>(dst)[0] = reinterpret_cast<const int32_t*>(src)[0];
}
__device__ void store8(void* dst, const void* src) {       // ... and store_global<8>
    reinterpret_cast<uint2*>(dst)[0] = reinterpret_cast<const uint2*>(src)[0];
}
__global__ void k(uint8_t* packed, float* scales, const uint8_t* in, int n) {
    extern __shared__ char smem[];
    float* staged = reinterpret_cast<float*>(smem);       // dynamic shared memory as floats
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float scale;
    uint8_t* scale_bytes = reinterpret_cast<uint8_t*>(&scale);
    load4(scale_bytes, in + 4 * i);                        // a float filled byte by byte
    staged[threadIdx.x] = scale * 2.0f;
    __syncthreads();
    scales[i] = staged[threadIdx.x ^ 1];
    uint64_t q = 0;
    for (int j = 0; j < 8; j++) q |= ((uint64_t)(j + i)) << (8 * j);
    reinterpret_cast<uint8_t*>(&q)[1] = 77;                // one byte of a 64-bit register
    store8(packed + 8 * i, &q);
}
void launch(uint8_t* packed, float* scales, const uint8_t* in, int n) {
    k<<<n / 32, 32, 32 * sizeof(float)>>>(packed, scales, in, n);
}
"""


def test_locals_and_shared_memory_viewed_as_bytes(tmp_path: Path) -> None:
    """A local whose address is cast to another type (`(uint8_t*)&scale`, `&q` passed as a `void*`)
    lives in memory as bytes, so that any view of it reads and writes its bits; `extern __shared__
    char smem[]` read and written as floats. Emulator against numpy."""
    path = _write(tmp_path, BYTES)
    n = 64
    f = (np.arange(n, dtype=np.float32) - 20.25) * 1.5
    out = _run(path, packed=poison.fill(np.empty(8 * n, np.uint8)), scales=poison.fill(np.empty(n, np.float32)),
               **{"in": f.view(np.uint8)}, n=n)
    np.testing.assert_array_equal(out["scales"], (f * 2)[np.arange(n) ^ 1])
    expected = (np.arange(n)[:, None] + np.arange(8)[None, :]).astype(np.uint8)
    expected[:, 1] = 77
    np.testing.assert_array_equal(out["packed"].reshape(n, 8), expected)


STRUCT_AS_BYTES = """
#include <cstdint>
struct IdxReduceResult { int idx; float val; };        // DeepSpeed's top-k: an index and its score
__global__ void k(long long* packed, int* idx, float* val, const float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    IdxReduceResult res = {i, x[i]};
    int64_t* res_as_int = reinterpret_cast<int64_t*>(&res);  // compared as one 64-bit integer
    if (x[i] < 0) { *res_as_int ^= 0x7fffffff00000000; }
    packed[i] = *res_as_int;
    idx[i] = res.idx;
    val[i] = res.val;
}
void launch(long long* packed, int* idx, float* val, const float* x, int n) {
    k<<<(n + 31) / 32, 32>>>(packed, idx, val, x, n);
}
"""


def test_a_struct_viewed_as_an_integer_is_its_bytes(tmp_path: Path) -> None:
    """A struct local whose address is cast (`(int64_t*)&res`) lives in memory as its bytes, at
    clang's layout: the integer view and the fields read and write the same bits (numpy's record
    view of the same struct is the reference)."""
    path = _write(tmp_path, STRUCT_AS_BYTES)
    n = 40
    x = (np.arange(n, dtype=np.float32) - 17.5) * 0.75
    out = _run(path, packed=poison.fill(np.empty(n, np.int64)), idx=poison.fill(np.empty(n, np.int32)),
               val=poison.fill(np.empty(n, np.float32)), x=x, n=n)
    record = np.zeros(n, dtype=[("idx", np.int32), ("val", np.float32)])
    record["idx"], record["val"] = np.arange(n), x
    expected = record.view(np.int64).copy()
    expected[x < 0] ^= 0x7fffffff00000000
    np.testing.assert_array_equal(out["packed"], expected)
    np.testing.assert_array_equal(out["idx"], expected.view(np.int32)[0::2])
    np.testing.assert_array_equal(out["val"], expected.view(np.float32)[1::2])


POINTER_TABLE = """
__global__ void gather(float* out, const float* x, const int* rows, int n) {
    const int t = blockIdx.x;
    const float* bases[2];                                 // DeepSpeed's MoE gather: one row per expert
    for (int i = 0; i < 2; i++) bases[i] = x + rows[2 * t + i] * n;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        float acc = 0.f;
        for (int i = 0; i < 2; i++) acc += bases[i][j] * (i + 1);
        out[t * n + j] = acc;
    }
}
void launch(float* out, const float* x, const int* rows, int n, int t) { gather<<<t, 32>>>(out, x, rows, n); }
"""


def test_a_local_array_of_pointers_into_one_buffer(tmp_path: Path) -> None:
    """`const float* bases[2]`, each into `x` at a row read from `rows`: the offsets in a local
    array, an access through an entry indexed by loaded data (`access.indirect`); emulator against
    numpy. Pointers into two buffers in one array are LC901 where the second is stored."""
    path = _write(tmp_path, POINTER_TABLE)
    t, n, k = 5, 40, 7
    rng = np.random.default_rng(0)
    x = rng.standard_normal((k, n)).astype(np.float32)
    rows = rng.integers(0, k, 2 * t).astype(np.int32)
    out = _run(path, out=poison.fill(np.empty(t * n, np.float32)), x=x.ravel(), rows=rows, n=n, t=t)
    np.testing.assert_allclose(out["out"].reshape(t, n), x[rows[0::2]] + 2 * x[rows[1::2]], rtol=1e-6)
    assert _unmodelled(path) == []
    two = _write(tmp_path, POINTER_TABLE.replace("for (int i = 0; i < 2; i++) bases[i] = x + rows[2 * t + i] * n;",
                                                 "bases[0] = x + rows[2 * t] * n;\n    bases[1] = out;"), "two.cu")
    with pytest.raises(Unsupported) as caught:
        cuda.lower(str(two), "launch")
    assert "more than one buffer" in caught.value.message and caught.value.location.line == 6


def test_coalesced_groups_and_bit_intrinsics() -> None:
    """`coalesced_threads()`: the shuffle reduction LAMB makes under `if (tid < 32)`, and the rank
    and size of an arbitrary active set (every third lane: the active lanes below, their count);
    `__popc`, `__clz`, `__ffs`, `__popcll`, `__activemask`. Emulator against numpy."""
    path = Path(__file__).parent / "programs" / "coalesced_and_bits.cu"
    blocks, n = 3, 3 * 64
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    w = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    w[:4] = [0, 1, 0x80000000, 0xFFFFFFFF]
    out = _run(path, sums=poison.fill(np.empty(blocks, np.float32)), ranks=poison.fill(np.empty(n, np.int32)),
               sizes=poison.fill(np.empty(n, np.int32)), bits=poison.fill(np.empty(4 * n, np.int32)),
               x=x, w=w, blocks=blocks)
    np.testing.assert_allclose(out["sums"], x.reshape(blocks, 64)[:, :32].sum(1), rtol=1e-5)
    lane = np.arange(n) % 32
    tid = np.arange(n) % 64
    chosen = tid % 3 == 0
    warp = np.arange(n) // 32
    expected_rank = np.where(chosen, [np.sum(chosen[(warp == warp[t]) & (lane < lane[t])]) for t in range(n)], -1)
    expected_size = np.array([np.sum(chosen[warp == warp[t]] == chosen[t]) for t in range(n)])
    np.testing.assert_array_equal(out["ranks"], expected_rank)
    np.testing.assert_array_equal(out["sizes"], expected_size)
    bits = out["bits"].reshape(n, 4)
    u = w.astype(np.uint64)
    np.testing.assert_array_equal(bits[:, 0], np.bitwise_count(w))
    np.testing.assert_array_equal(bits[:, 1], [32 - int(v).bit_length() for v in w])
    np.testing.assert_array_equal(bits[:, 2], [(int(v) & -int(v)).bit_length() for v in w])
    np.testing.assert_array_equal(bits[:, 3], 2 * np.bitwise_count(u))


POINTER_ROWS = """
#include <cstdint>
struct Desc { int32_t** block_lists; int32_t block_size; };   // DeepSpeed's KV cache descriptor
struct Wrap { const int32_t* lens; Desc kv; };
__global__ void k(int32_t* out, const Wrap w, int per_seq) {
    int s = blockIdx.x, j = threadIdx.x;
    if (j < per_seq) out[s * per_seq + j] = w.kv.block_lists[s][j] * w.kv.block_size + w.lens[s];
}
void launch(int32_t* out, const Wrap w, int n_seq, int per_seq) { k<<<n_seq, 32>>>(out, w, per_seq); }
"""


def test_a_table_of_device_pointers_is_offsets_into_the_memory_they_point_into(tmp_path: Path) -> None:
    """`int32_t** block_lists` in a struct passed by value: two entry inputs, the table as int64
    element offsets (`w_kv_block_lists`) and the memory its pointers point into
    (`w_kv_block_lists_rows`); `block_lists[s][j]` reads row s at its offset (`access.indirect`).
    Emulator against numpy."""
    path = _write(tmp_path, POINTER_ROWS)
    module = cuda.lower(str(path), "launch")
    params = {op.pname: str(op.element_type) for op in module.walk() if type(op).__name__ == "ParamOp"}
    assert params["w_kv_block_lists"] == "i64" and params["w_kv_block_lists_rows"] == "i32"
    assert _unmodelled(path) == []
    rows = np.arange(40, dtype=np.int32) * 7
    table = np.array([0, 10, 25], np.int64)
    lens = np.array([1, 2, 3], np.int32)
    out = _run(path, out=poison.fill(np.empty(15, np.int32)), w_lens=lens, w_kv_block_lists=table,
               w_kv_block_lists_rows=rows, w_kv_block_size=2, n_seq=3, per_seq=5)
    expected = np.stack([rows[table[s]:table[s] + 5] * 2 + lens[s] for s in range(3)])
    np.testing.assert_array_equal(out["out"].reshape(3, 5), expected)
