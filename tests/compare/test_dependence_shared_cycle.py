"""Dependences through a shared-memory tree: the tree (a buffer that feeds itself) makes an output's
dependence on the reduced input inexact, but not its dependence on an input the tree never sees."""

from __future__ import annotations

from pathlib import Path

from lowercheck import ir
from lowercheck.compare.accesses import build
from lowercheck.compare.static import UNKNOWN, dependence
from lowercheck.frontends.base import Binding, SizeArg, TensorArg
from lowercheck.frontends import frontend_for
from lowercheck.lowering import extract_accesses

# out[r][c] = x[r][c] * w[c] * (sum of row r of x, through a shared tree): w never enters the tree.
KERNEL = r"""
__global__ void scale_kernel(const float* x, const float* w, float* out, int rows, int cols) {
    __shared__ float partial[64];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    float s = 0.0f;
    for (int c = tid; c < cols; c += 64) s += x[row * cols + c];
    partial[tid] = s;
    __syncthreads();
    for (int stride = 32; stride > 0; stride >>= 1) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    for (int c = tid; c < cols; c += 64) out[row * cols + c] = x[row * cols + c] * w[c] * partial[0];
}

void scale(const float* x, const float* w, float* out, int rows, int cols) {
    scale_kernel<<<rows, 64>>>(x, w, out, rows, cols);
}
"""


def relations(tmp_path: Path):
    path = tmp_path / "scale.cu"
    path.write_text(KERNEL)
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
    import islpy as isl

    expected = isl.Map("{ out[r, c] -> w[c] : 0 <= r <= 2 and 0 <= c <= 69 }")
    assert dep.is_equal(expected.set_tuple_name(isl.dim_type.in_, "out").set_tuple_name(isl.dim_type.out, "w")) \
        or str(dep) == "{ out[i0, i1] -> w[i0' = i1] : 0 <= i0 <= 2 and 0 <= i1 <= 69 }", str(dep)


def test_input_through_the_tree_is_inexact(tmp_path: Path) -> None:
    assert dependence(relations(tmp_path), "out", "x") is UNKNOWN
