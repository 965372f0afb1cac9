"""What a PyTorch reference costs, read from its operator graph (`kernel.aten` ops): FLOPs per
operator and the compulsory bytes of its parameters, at concrete sizes.

`reduction_lengths` gives K per output for the tolerance: how many elements of its inputs one output
element sums over, along the graph (a matmul's inner dimension, a sum's or a scan's reduced
dimensions, a softmax's row), the largest on the way from the inputs.

A reference has no schedule, so its bytes are the ideal: every input read once and every output
written once (what a perfectly fused kernel moves). FLOPs: `2*M*N*K` for the matrix products (from
the operand and result shapes), a few per element for the normalisations and softmaxes, one per
result element for everything else (elementwise, reductions count their input elements).
"""

from __future__ import annotations

from collections.abc import Mapping
from math import prod

from lowercheck import symbolic
from lowercheck.dialects.kernel import AtenOp, EntryOp

_BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "i16": 2, "i8": 1, "i1": 1}
_MATMULS = ("mm", "bmm", "matmul", "addmm", "baddbmm", "linear")
# FLOPs per element of the (first) input for operators that do several passes.
_PER_INPUT_ELEMENT = {"softmax": 5, "_softmax": 5, "log_softmax": 5, "_log_softmax": 5, "layer_norm": 8,
                      "native_layer_norm": 8, "rms_norm": 4, "_fused_rms_norm": 4, "logsumexp": 4,
                      "cross_entropy_loss": 5, "sum": 1, "mean": 1, "amax": 1, "max": 1, "var": 3}
_SHAPE_ONLY = ("view", "reshape", "_unsafe_view", "expand", "permute", "transpose", "t", "unsqueeze",
               "squeeze", "select", "slice", "contiguous", "clone", "alias", "detach", "to", "_to_copy",
               "empty", "empty_like", "zeros", "zeros_like", "ones", "ones_like", "arange", "full")


def _values(shape, sizes: Mapping[str, int]) -> list[int] | None:
    out = []
    for dim in shape:
        value = symbolic.substitute(symbolic.parse(dim.data), sizes)
        if not value.is_Integer:
            return None
        out.append(int(value))
    return out


def operator_flops(op: AtenOp, shapes: Mapping[str, list[int]], sizes: Mapping[str, int]) -> int:
    base = op.target.data.split(".")[1] if "." in op.target.data else op.target.data
    result = _values(op.shape.data, sizes) or []
    args = [shapes.get(a.data) for a in op.args.data]
    tensors = [s for s in args if s is not None]
    if base in _SHAPE_ONLY:
        return 0
    if base in _MATMULS and len(tensors) >= 2:
        k = tensors[0][-1] if tensors[0] else 1  # the contracted dimension: the first operand's last
        return 2 * prod(result) * k
    if base in _PER_INPUT_ELEMENT and tensors:
        return _PER_INPUT_ELEMENT[base] * prod(tensors[0])
    return prod(result) if result else 1


def reference_cost(entry: EntryOp, sizes: Mapping[str, int]) -> tuple[int, dict[str, dict[str, int]]]:
    """(FLOPs, buffer -> compulsory traffic) of a reference at `sizes`; the traffic rows have the
    fields of `compare.traffic.BufferTraffic.to_json` (issued = requested = compulsory)."""
    shapes: dict[str, list[int]] = {}
    traffic = {}
    for param in entry.params:
        if param.kind.data != "buffer":
            continue
        shape = _values(param.shape.data, sizes)
        if shape is None:
            continue
        shapes[param.pname] = shape
        moved = prod(shape) * _BYTES.get(str(param.element_type), 4)
        traffic[param.pname] = {"buffer": param.pname, "compulsory_bytes": moved, "requested_bytes": moved,
                                "issued_bytes": moved, "sectors_per_request": None}
    flops = 0
    for op in entry.operators:
        flops += operator_flops(op, shapes, sizes)
        if (shape := _values(op.shape.data, sizes)) is not None:
            shapes[op.result.data] = shape
    return flops, traffic


# Operators that combine elements along dimensions: which argument holds the dimensions (None: all of
# them, or the last for the normalisations).
_REDUCING = {"sum": 1, "mean": 1, "amax": 1, "amin": 1, "max": 1, "min": 1, "prod": 1, "logsumexp": 1,
             "softmax": 1, "_softmax": 1, "log_softmax": 1, "_log_softmax": 1, "cumsum": 1, "cumprod": 1,
             "cummax": 1, "norm": 2, "linalg_vector_norm": 2, "var": 1, "std": 1, "var_mean": 1,
             "layer_norm": 1, "native_layer_norm": 1, "rms_norm": 1, "_fused_rms_norm": 1,
             "cross_entropy_loss": None, "nll_loss": None, "mse_loss": None}


def _dims(text: str, rank: int) -> list[int] | None:
    """`-1`, `[0, 1]`, `1` -> dimension indices; None when the argument is no dimension list."""
    import re

    found = re.findall(r"-?\d+", text)
    if not found or not re.fullmatch(r"\[?\s*-?\d+(\s*,\s*-?\d+)*\s*\]?", text.strip()):
        return None
    return [int(d) % rank for d in found if rank]


def reduction_lengths(entry: EntryOp, sizes: Mapping[str, int]) -> dict[str, int]:
    """K of every value of a reference at `sizes`: the most input elements one of its elements is
    combined from (1 for elementwise chains); outputs are under `return<i>` and the inout params."""
    shapes: dict[str, list[int]] = {}
    lengths: dict[str, int] = {}
    for param in entry.params:
        if param.kind.data == "buffer" and (shape := _values(param.shape.data, sizes)) is not None:
            shapes[param.pname] = shape
            lengths[param.pname] = 1
    for op in entry.operators:
        base = op.target.data.split(".")[1] if "." in op.target.data else op.target.data
        args = [a.data for a in op.args.data]
        first = shapes.get(args[0]) if args else None
        own = 1
        if base in _MATMULS and first:
            own = first[-1]
        elif base in _REDUCING and first:
            where = _REDUCING[base]
            dims = _dims(args[where], len(first)) if where is not None and where < len(args) else None
            if base in ("layer_norm", "native_layer_norm", "rms_norm", "_fused_rms_norm"):
                dims = list(range(len(first) - (len(_dims(args[1], 99) or [1])), len(first)))
            own = prod(first[d] for d in dims) if dims else prod(first)
        inherited = max((lengths.get(a, 1) for a in args), default=1)
        lengths[op.result.data] = max(own, inherited)
        if (shape := _values(op.shape.data, sizes)) is not None:
            shapes[op.result.data] = shape
    return lengths
