"""Packed-vector copies as LLM kernels write them ([w2 1/7]): a 16-byte `uint4` moved between a
buffer and a local array through `void*` helpers and reinterpreted pointers, a device `memcpy`, a
lane of the packed value zeroed. Each kernel is lowered and run by the emulator against numpy, for
float (4 elements a copy) and half (8), so a copy that reads or writes the wrong elements fails."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support import run_emulator

from lowercheck.errors import Unsupported
from lowercheck.frontends import cuda
from lowercheck.runners import poison

SOURCE = """#include <cuda_fp16.h>
#include <cstring>
namespace mem {
__device__ void load(void* dst, const void* src, bool do_access) {
  uint4* data = reinterpret_cast<uint4*>(dst);
  const uint4* src_cast = reinterpret_cast<const uint4*>(src);
  if (do_access) {
    data[0] = src_cast[0];
  } else {
    data[0].x = 0; data[0].y = 0; data[0].z = 0; data[0].w = 0;
  }
}
__device__ void store(void* dst, const void* src) {
  const uint4 value = reinterpret_cast<const uint4*>(src)[0];
  reinterpret_cast<uint4*>(dst)[0] = value;
}
}  // namespace mem

template <typename T>
__global__ void scale(T* out, const T* in, float alpha, int n) {
  constexpr int per = 16 / sizeof(T);
  T local[per];
  T copied[per];
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * per;
  mem::load(local, in + base, base < n);
  memcpy(copied, local, 16);
  for (int j = 0; j < per; j++) copied[j] = (T)((float)copied[j] * alpha);
  if (base < n) mem::store(out + base, copied);
}

template <typename T>
void launch_scale(T* out, const T* in, float alpha, int n) {
  constexpr int per = 16 / sizeof(T);
  scale<<<(n / per + 63) / 64, 64>>>(out, in, alpha, n);
}
template void launch_scale<float>(float*, const float*, float, int);
template void launch_scale<__half>(__half*, const __half*, float, int);
"""


@pytest.mark.parametrize("entry, dtype", [("launch_scale", np.float32), ("launch_scale<__half>", np.float16)])
def test_packed_copies_move_the_right_elements(tmp_path: Path, entry: str, dtype) -> None:
    path = tmp_path / "packed.cu"
    path.write_text(SOURCE)
    module = cuda.lower(str(path), entry)
    n = 8 * 64 * 3  # whole packed vectors, several blocks
    x = np.arange(n, dtype=dtype) / dtype(7)
    out = np.empty(n, dtype=dtype)
    poison.fill(out)
    result = run_emulator(str(path), module, {"out": out, "in": x, "alpha": 2.0, "n": n})
    assert result.error is None and not result.oob, (result.error, result.oob)
    assert np.array_equal(result.outputs["out"], (x.astype(np.float32) * 2).astype(dtype))


def test_a_copy_that_is_not_whole_elements_is_unsupported(tmp_path: Path) -> None:
    path = tmp_path / "odd.cu"
    path.write_text(SOURCE.replace("memcpy(copied, local, 16)", "memcpy(copied, local, 6)"))
    with pytest.raises(Unsupported, match="6 bytes: not whole `f32` elements"):
        cuda.lower(str(path), "launch_scale")


PTX = SOURCE.replace('''__device__ void load(void* dst, const void* src, bool do_access) {
  uint4* data = reinterpret_cast<uint4*>(dst);
  const uint4* src_cast = reinterpret_cast<const uint4*>(src);
  if (do_access) {
    data[0] = src_cast[0];
  } else {
    data[0].x = 0; data[0].y = 0; data[0].z = 0; data[0].w = 0;
  }
}
__device__ void store(void* dst, const void* src) {
  const uint4 value = reinterpret_cast<const uint4*>(src)[0];
  reinterpret_cast<uint4*>(dst)[0] = value;
}''', '''__device__ void load(void* dst, const void* src, bool do_access) {
  uint4* data = reinterpret_cast<uint4*>(dst);
  asm volatile("{\\n"
               "\\t.reg .pred p;\\n"
               "\\tsetp.ne.b32 p, %5, 0;\\n"
               "\\tmov.b32 %0, 0;\\n\\tmov.b32 %1, 0;\\n\\tmov.b32 %2, 0;\\n\\tmov.b32 %3, 0;\\n"
               "\\t@p ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];\\n"
               "}\\n"
               : "=r"(data[0].x), "=r"(data[0].y), "=r"(data[0].z), "=r"(data[0].w)
               : "l"(src), "r"((int)do_access));
}
__device__ void store(void* dst, const void* src) {
  const uint4* data = reinterpret_cast<const uint4*>(src);
  asm volatile("st.global.wb.v4.u32 [%0], {%1, %2, %3, %4};\\n"
               :
               : "l"(dst), "r"(data[0].x), "r"(data[0].y), "r"(data[0].z), "r"(data[0].w)
               : "memory");
}''')


@pytest.mark.parametrize("entry, dtype", [("launch_scale", np.float32), ("launch_scale<__half>", np.float16)])
def test_inline_ptx_moves_are_the_copies_they_make(tmp_path: Path, entry: str, dtype) -> None:
    """The same kernel with its copies in inline PTX (a predicated `ld.global.cg.v4.u32` with its
    registers' defaults, an `st.global.wb.v4.u32`): the same elements move, and a load that is off
    reads nothing (no out-of-bounds access at the ragged end)."""
    assert PTX != SOURCE
    path = tmp_path / "ptx.cu"
    path.write_text(PTX)
    module = cuda.lower(str(path), entry)
    per = 16 // np.dtype(dtype).itemsize
    n = per * 64 * 2 + per * 3  # the last block: most of its threads' loads are off
    x = np.arange(n, dtype=dtype) / dtype(7)
    out = np.empty(n, dtype=dtype)
    poison.fill(out)
    result = run_emulator(str(path), module, {"out": out, "in": x, "alpha": 2.0, "n": n})
    assert result.error is None and not result.oob, (result.error, result.oob)
    assert np.array_equal(result.outputs["out"], (x.astype(np.float32) * 2).astype(dtype))


def test_other_ptx_is_unsupported_at_the_statement(tmp_path: Path) -> None:
    path = tmp_path / "fma.cu"
    path.write_text(PTX.replace("st.global.wb.v4.u32 [%0], {%1, %2, %3, %4};", "fma.rn.f32 %0, %1, %2, %3;"))
    assert "fma" in path.read_text()
    with pytest.raises(Unsupported, match=r"the PTX instruction `fma.rn.f32 %0, %1, %2, %3`") as err:
        cuda.lower(str(path), "launch_scale")
    line = next(i for i, text in enumerate(PTX.splitlines(), 1) if "fma" in text or "st.global" in text)
    assert err.value.location is not None and err.value.location.line == line  # the asm statement


SHARED_PTX = """#include <stdint.h>
__device__ unsigned to_shared(const void* p) { return __cvta_generic_to_shared(p); }
__device__ void st_shared(void* dst, const void* src) {
  const int32_t* data = reinterpret_cast<const int32_t*>(src);
  unsigned address = to_shared(dst);
  asm volatile("st.shared.u32 [%0], %1;\\n" : : "r"(address), "r"(*data));
}
__device__ void ld_shared(void* dst, const void* src) {
  int32_t* data = reinterpret_cast<int32_t*>(dst);
  unsigned address = to_shared(src);
  asm volatile("ld.shared.u32 {%0}, [%1];\\n" : "=r"(*data) : "r"(address));
}
__global__ void reverse_blocks(const float* x, float* out, int n) {
  __shared__ float tile[128];
  int i = blockIdx.x * 128 + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  st_shared(&tile[threadIdx.x], &v);
  __syncthreads();
  float r;
  ld_shared(&r, &tile[127 - threadIdx.x]);
  if (i < n) out[i] = r;
}
void run(const float* x, float* out, int n) { reverse_blocks<<<(n + 127) / 128, 128>>>(x, out, n); }
"""


def test_shared_memory_moves_through_cvta_addresses(tmp_path: Path) -> None:
    """`ld.shared`/`st.shared` whose address is `__cvta_generic_to_shared(p)` (DeepSpeed's block
    reductions): the address is the pointer it came from; the values go through bit for bit, and a
    local whose address is taken (`&v`) is read and written through it."""
    path = tmp_path / "shared_ptx.cu"
    path.write_text(SHARED_PTX)
    module = cuda.lower(str(path))
    n = 256
    x = np.arange(n, dtype=np.float32) * np.float32(1.5)
    out = np.empty(n, dtype=np.float32)
    poison.fill(out)
    result = run_emulator(str(path), module, {"x": x, "out": out, "n": n})
    assert result.error is None and not result.oob, (result.error, result.oob)
    assert np.array_equal(result.outputs["out"], x.reshape(-1, 128)[:, ::-1].ravel())


VECTORS_IN_LOOPS = """
__device__ inline uint2 swap_bump(uint2 v) { return make_uint2(v.y + 1u, v.x); }
__device__ inline uint2 rounds(uint2 c, uint2 k) {
  for (int r = 0; r < 3; ++r) { c = swap_bump(c); k.x += 1u; }
  return make_uint2(c.x + k.x, c.y);
}
__global__ void k(unsigned int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  uint2 v = make_uint2(i, 0u);
  for (int r = 0; r < 3; ++r) { v = swap_bump(v); }
  v = swap_bump(v);
  uint2 w = rounds(make_uint2(i, 0u), make_uint2(0u, 0u));
  if (i < n) { out[4 * i] = v.x; out[4 * i + 1] = v.y; out[4 * i + 2] = w.x; out[4 * i + 3] = w.y; }
}
void launch(unsigned int* out, int n) { k<<<(n + 31) / 32, 32>>>(out, n); }
"""


def test_a_vector_assigned_whole_in_a_loop_is_carried(tmp_path: Path) -> None:
    """`v = f(v)` of a CUDA vector is clang's `operator=` call, not an assignment operator: the loop
    still carries `v` (a vector parameter of an inlined helper too), so each trip sees the last."""
    path = tmp_path / "k.cu"
    path.write_text(VECTORS_IN_LOOPS)
    n = 40
    result = run_emulator(str(path), cuda.lower(str(path), "launch"), {"out": poison.fill(np.empty(4 * n, np.uint32)), "n": n})
    assert result.error is None, result.error
    i = np.arange(n, dtype=np.uint32)
    # (i, 0) -> (1, i) -> (i + 1, 1) -> (2, i + 1), then once more outside the loop -> (i + 2, 2)
    expected = np.stack([i + 2, np.full(n, 2), np.full(n, 5), i + 1], 1).astype(np.uint32)
    np.testing.assert_array_equal(result.outputs["out"].reshape(n, 4), expected)


VECTOR_ARRAYS = """#include <cuda_fp16.h>
__global__ void swap_halves(__half* out, const __half* in, int n) {
  __half2 local[4];  // 8 halves: each element is a pair
  __half2 kept[2];
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
  if (base >= n) return;
  const __half2* src = reinterpret_cast<const __half2*>(in + base);
  for (int j = 0; j < 4; j++) local[j] = src[j];
  for (int j = 0; j < 2; j++) kept[j] = local[3 - j];
  __half2* dst = reinterpret_cast<__half2*>(out + base);
  for (int j = 0; j < 2; j++) {
    __half2 v = kept[j];
    dst[j] = __halves2half2(__high2half(v), __low2half(v));
  }
  for (int j = 2; j < 4; j++) {
    __half2 v = local[3 - j];
    dst[j] = __halves2half2(__high2half(v), __low2half(v));
  }
}
void launch_swap_halves(__half* out, const __half* in, int n) {
  swap_halves<<<(n / 8 + 31) / 32, 32>>>(out, in, n);
}
"""


def test_local_arrays_of_vectors_hold_every_lane(tmp_path: Path) -> None:
    """`__half2 local[4]` is 8 halves: each subscript addresses a pair. The arrays held one half per pair, so the emulator saw the second half of
    the array as out of bounds (DeepSpeed's quantizers' `local_buffer`)."""
    path = tmp_path / "pairs.cu"
    path.write_text(VECTOR_ARRAYS)
    module = cuda.lower(str(path), "launch_swap_halves")
    text = str(module)
    assert "memref<8xf16>" in text and "memref<4xf16>" in text
    n = 8 * 32 * 2
    x = (np.arange(n) / 7).astype(np.float16)
    out = np.empty(n, dtype=np.float16)
    poison.fill(out)
    result = run_emulator(str(path), module, {"out": out, "in": x, "n": n})
    assert result.error is None and not result.oob, (result.error, result.oob)
    expected = x.reshape(-1, 4, 2)[:, ::-1, ::-1].reshape(-1)  # pairs reversed, each pair's halves swapped
    assert np.array_equal(result.outputs["out"], expected)
