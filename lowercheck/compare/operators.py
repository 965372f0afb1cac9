"""What a PyTorch reference costs, read from its operator graph (`kernel.aten` ops): FLOPs per
operator and the compulsory bytes of its parameters, at concrete sizes.

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
