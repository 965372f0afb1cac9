"""What the tolerance policy reads from the IR: math functions, reduction lengths, accumulation types.

- `math_functions(module)`: the transcendental and rounding-sensitive functions each side calls
  (`math.exp`, `tt.extern_elementwise` symbols such as `__nv_expf`, `tt.precise_sqrt`), whose
  documented ulp errors the `ulp` rule adds up.
- `reduction_length(rel, out, inputs)`: K, the number of input elements one output element is
  computed from (its dependence map, counted with isl at the run's sizes): 1 for an elementwise op,
  `n` for a sum of `n`, `k` for a dot of length `k`. None when the dependence is not exact.
- `accumulation_dtype(rel, out)`: the narrowest float type the source sums an output in.
- `dataflow_flops(rel, out, inputs, shape)`: the FLOPs the dataflow implies for one output, for
  the cost model: 2 K per element, a reduction shared by a row of outputs (a norm's, a softmax's)
  counted once per row.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import islpy as isl
from xdsl.dialects.builtin import ModuleOp

from lowercheck.compare.accesses import Relations
from lowercheck.compare.static import UNKNOWN, accumulates, dependence

_MATH_PREFIXES = ("math.",)
_NAMED = ("tt.precise_sqrt", "tt.precise_divf")


# The math functions a PyTorch operator computes with (`kernel.aten` targets, by base name); torch's
# CPU kernels use SLEEF's 1-ulp variants, so the CUDA table's bounds are an upper bound for them.
ATEN_MATH: dict[str, tuple[str, ...]] = {
    "exp": ("exp",), "exp2": ("exp2",), "expm1": ("expm1",), "log": ("log",), "log1p": ("log1p",),
    "log2": ("log2",), "sqrt": ("sqrt",), "rsqrt": ("rsqrt",), "pow": ("pow",), "div": ("div",),
    "sin": ("sin",), "cos": ("cos",), "tan": ("tan",), "tanh": ("tanh",), "erf": ("erf",),
    "sigmoid": ("exp", "div"), "silu": ("exp", "div"), "gelu": ("erf", "tanh"), "softplus": ("exp", "log1p"),
    "softmax": ("exp", "div"), "_softmax": ("exp", "div"), "log_softmax": ("exp", "log"),
    "_log_softmax": ("exp", "log"), "logsumexp": ("exp", "log"), "cross_entropy_loss": ("exp", "log"),
    "nll_loss": (), "layer_norm": ("rsqrt", "div"), "native_layer_norm": ("rsqrt", "div"),
    "rms_norm": ("rsqrt", "div"), "_fused_rms_norm": ("rsqrt", "div"), "mean": ("div",), "var": ("div",),
    "scaled_dot_product_attention": ("exp", "div"), "_scaled_dot_product_flash_attention_for_cpu": ("exp", "div"),
}


def math_functions(module: ModuleOp) -> frozenset[str]:
    found = set()
    for op in module.walk():
        if op.name == "kernel.aten":  # a PyTorch reference's operator: its functions by name
            parts = op.properties["target"].data.split(".")
            found.update(ATEN_MATH.get(parts[1] if len(parts) > 1 else parts[0], ()))
            continue
        if op.name.startswith(_MATH_PREFIXES) and op.name != "math.fma":
            found.add(op.name)
        elif op.name in _NAMED:
            found.add(op.name)
        elif op.name == "tt.extern_elementwise":
            symbol = op.properties.get("symbol") or op.attributes.get("symbol")
            if symbol is not None:
                found.add(getattr(symbol, "data", str(symbol)))
    return frozenset(found)


def reduction_length(rel: Relations, out: str, inputs: Iterable[str]) -> int | None:
    """The largest number of elements of one input that one element of `out` depends on (at the
    first element, lexicographically); None when no dependence is exact."""
    parts = _parts(rel, out, inputs)
    return None if parts is None else max((count for _, count in parts), default=None)


def _parts(rel: Relations, out: str, inputs: Iterable[str]) -> list[tuple[isl.Map, int]] | None:
    """(the dependence map `out` -> input, how many of the input's elements the first element of
    `out` depends on) for each input `out` reads; None when a dependence is not exact."""
    found = []
    for inp in inputs:
        dep = dependence(rel, out, inp)
        if dep is UNKNOWN:
            return None
        if dep is None or (first := dep.domain().lexmin()).is_empty():
            continue
        count = dep.intersect_domain(first).range().count_val()
        if count.is_int():
            found.append((dep, int(count.to_python())))
    return found


def dataflow_flops(rel: Relations, out: str, inputs: Iterable[str], shape: tuple[int, ...]) -> int | None:
    """The FLOPs that computing `out` (of `shape`) from `inputs` takes: 2 K per element for a reduction
    of length K (`reduction_length`), 1 per element otherwise. Where every reduced input's part of
    an element's dependence is the same along some dimensions of `out` (X[r, :] for each Y[r, c] of
    a norm or a softmax, along c), the elements along them share one reduction: 2 K for each
    reduction, and 1 per element besides. A matmul shares none (A's part changes along i, B's along
    j). None when a dependence is not exact."""
    elements = math.prod(shape)
    parts = _parts(rel, out, inputs)
    if parts is None:
        return None
    reduced = [(dep, count) for dep, count in parts if count > 1]
    if not reduced:
        return elements
    k = max(count for _, count in reduced)
    shared = set(range(len(shape)))
    for dep, _ in reduced:
        shared &= _unchanged_along(dep)
    rows = elements // math.prod(max(shape[d], 1) for d in shared)
    return 2 * k * elements if rows == elements else 2 * k * rows + elements


def _unchanged_along(dep: isl.Map) -> set[int]:
    """The dimensions of the output along which `dep` (out -> input elements) maps every element of
    a line to the same input elements."""
    n = dep.dim(isl.dim_type.in_)
    domain = dep.domain()
    found = set()
    for d in range(n):
        line = isl.Map.from_domain_and_range(domain, domain)
        for e in range(n):
            if e != d:
                line = line.equate(isl.dim_type.in_, e, isl.dim_type.out, e)
        if line.apply_range(dep).is_equal(dep):
            found.add(d)
    return found


_DTYPES = {"f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2", "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64", "tf32": "tf32"}
_BITS = {"float64": 53, "float32": 24, "tf32": 11, "float16": 11, "bfloat16": 8, "float8_e4m3fn": 4,
         "float8_e5m2": 3}


def accumulation_dtype(rel: Relations, out: str) -> str | None:
    types = [_DTYPES[t] for t in accumulates(rel, out) if t in _DTYPES]
    return min(types, key=_BITS.get) if types else None


__all__ = ["accumulation_dtype", "dataflow_flops", "math_functions", "reduction_length"]
