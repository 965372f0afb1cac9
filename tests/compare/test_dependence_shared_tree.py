"""Dependences through a shared-memory tree: each read of the shared buffer takes what the last write
before it stored there (isl's dataflow analysis), so the tree composes step by step into "out[r, c]
reads x[r, *]"; a tree that skips a step loses the elements it skipped; an accumulator that a loop
keeps in shared memory (the buffer feeds itself across trips) stays inexact."""

from __future__ import annotations

from pathlib import Path

import islpy as isl

from lowercheck import ir
from lowercheck.compare.accesses import build
from lowercheck.compare.static import UNKNOWN, dependence
from lowercheck.frontends.base import Binding, SizeArg, TensorArg
from lowercheck.frontends import frontend_for
from lowercheck.lowering import extract_accesses

# out[r][c] = x[r][c] * w[c] * (sum of row r of x, through a shared tree): w never enters the tree.
TREE = r"""
__global__ void scale_kernel(const float* x, const float* w, float* out, int rows, int cols) {
    __shared__ float partial[64];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    float s = 0.0f;
    for (int c = tid; c < cols; c += 64) s += x[row * cols + c];
    partial[tid] = s;
    __syncthreads();
    for (int stride = FIRST; stride > 0; stride >>= 1) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    for (int c = tid; c < cols; c += 64) out[row * cols + c] = x[row * cols + c] * w[c] * partial[0];
}

void scale(const float* x, const float* w, float* out, int rows, int cols) {
    scale_kernel<<<rows, 64>>>(x, w, out, rows, cols);
}
"""


def relations(tmp_path: Path, kernel: str = TREE.replace("FIRST", "32")):
    path = tmp_path / "scale.cu"
    path.write_text(kernel)
    binding = Binding(args={"x": TensorArg(("rows", "cols"), "float32"), "w": TensorArg(("cols",), "float32"),
                            "out": TensorArg(("rows", "cols"), "float32"),
                            "rows": SizeArg("rows"), "cols": SizeArg("cols")}, sizes=None)
    module = frontend_for(str(path)).lower(str(path), "scale", binding)
    accesses = extract_accesses(module)
    assert ir.print_ir(accesses)
    return build(accesses, {"rows": 3, "cols": 70}, ["rows", "cols"])


def test_input_outside_the_tree_keeps_an_exact_dependence(tmp_path: Path) -> None:
    rel = relations(tmp_path)
    dep = dependence(rel, "out", "w")
    assert dep is not UNKNOWN and dep is not None
    # out[r, c] reads w[c] exactly, for every row.
    expected = isl.Map("{ out[r, c] -> w[c] : 0 <= r <= 2 and 0 <= c <= 69 }")
    assert dep.is_equal(expected.set_tuple_name(isl.dim_type.in_, "out").set_tuple_name(isl.dim_type.out, "w")) \
        or str(dep) == "{ out[i0, i1] -> w[i0' = i1] : 0 <= i0 <= 2 and 0 <= i1 <= 69 }", str(dep)


def whole_row(dep) -> bool:
    expected = isl.Map("{ out[r, c] -> x[r, j] : 0 <= r <= 2 and 0 <= c <= 69 and 0 <= j <= 69 }")
    return dep.is_equal(expected)


def test_input_through_the_tree_is_the_whole_row(tmp_path: Path) -> None:
    dep = dependence(relations(tmp_path), "out", "x")
    assert dep is not UNKNOWN and whole_row(dep), dep


def test_a_tree_that_starts_at_half_the_stride_misses_elements(tmp_path: Path) -> None:
    # stride 16, 8, ..., 1 over 64 partial sums: partial[32..63] never reach partial[0].
    dep = dependence(relations(tmp_path, TREE.replace("FIRST", "16")), "out", "x")
    assert dep is not UNKNOWN and not whole_row(dep)
    missed = isl.Map("{ out[0, 0] -> x[0, 32] }")
    assert not missed.is_subset(dep), dep


ACCUMULATOR = r"""
__global__ void scale_kernel(const float* x, const float* w, float* out, int rows, int cols) {
    __shared__ float acc[64];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    acc[tid] = 0.0f;
    for (int c = tid; c < cols; c += 64) acc[tid] = acc[tid] + x[row * cols + c];
    for (int c = tid; c < cols; c += 64) out[row * cols + c] = acc[tid] * w[c];
}

void scale(const float* x, const float* w, float* out, int rows, int cols) {
    scale_kernel<<<rows, 64>>>(x, w, out, rows, cols);
}
"""


def test_an_accumulator_a_loop_keeps_in_shared_memory_is_inexact(tmp_path: Path) -> None:
    assert dependence(relations(tmp_path, ACCUMULATOR), "out", "x") is UNKNOWN


# Two butterflies over the warps of a 1024-thread block, on values kept in local arrays (as DeepSpeed's
# reductions keep them) and joined through shared memory: each round of
# a plain union doubles the pieces of the map (1024 after ten rounds, which then took isl minutes to
# compare); merged round by round they stay a handful.
BUTTERFLIES = r"""
__global__ void scale_kernel(const float* x, const float* w, float* out, int rows, int cols) {
    __shared__ float partial[32];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    float s[1] = {0.0f};
    for (int c = tid; c < cols; c += 1024) s[0] += x[row * cols + c];
    s[0] += __shfl_xor_sync(0xffffffff, s[0], 1);
    s[0] += __shfl_xor_sync(0xffffffff, s[0], 2);
    s[0] += __shfl_xor_sync(0xffffffff, s[0], 4);
    s[0] += __shfl_xor_sync(0xffffffff, s[0], 8);
    s[0] += __shfl_xor_sync(0xffffffff, s[0], 16);
    if (tid % 32 == 0) partial[tid / 32] = s[0];
    __syncthreads();
    float t[1] = {partial[tid % 32]};
    t[0] += __shfl_xor_sync(0xffffffff, t[0], 1);
    t[0] += __shfl_xor_sync(0xffffffff, t[0], 2);
    t[0] += __shfl_xor_sync(0xffffffff, t[0], 4);
    t[0] += __shfl_xor_sync(0xffffffff, t[0], 8);
    t[0] += __shfl_xor_sync(0xffffffff, t[0], 16);
    for (int c = tid; c < cols; c += 1024) out[row * cols + c] = x[row * cols + c] * w[c] * t[0];
}

void scale(const float* x, const float* w, float* out, int rows, int cols) {
    scale_kernel<<<rows, 1024>>>(x, w, out, rows, cols);
}
"""


def test_two_butterflies_through_shared_memory_stay_a_few_pieces(tmp_path: Path) -> None:
    dep = dependence(relations(tmp_path, BUTTERFLIES), "out", "x")
    assert dep is not UNKNOWN and whole_row(dep), dep
    assert dep.n_basic_map() <= 4, dep
