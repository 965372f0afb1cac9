"""The ATen operators a CUDA host function may call between its launches, as the host reader
(host.py) models them.

KernelBench-style host code does more than allocate: `x = x.contiguous()`, `torch::mm(x,
weight.t())`, `out.zero_()`, `x.to(torch::kFloat)`. Each call is one of:

- a view (`VIEWS`): the same memory under another shape (`view`, `reshape`, `flatten`, `unsqueeze`,
  `squeeze`, `contiguous` of a tensor lowercheck holds contiguous, `detach`);
- an operator (`OPERATORS`): a new tensor that torch computes from its operands, a step of the
  entry (`kernel.aten`) that the emulator runs with torch between the launches, as the GPU would
  run ATen's own kernel; the rule gives the result's shape from the operands' (sympy extents);
- an in-place operator (`IN_PLACE`): a step whose result is its first operand.

A call none of these name is LC901 naming the ATen symbol, never a clang error. Shapes are sympy
expressions: with concrete sizes (a solution module's call) every extent is a number.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import sympy

Shape = tuple[sympy.Expr, ...]
# A rule: (the operands' shapes (None for a non-tensor), the operands' constant values (None where not
# constant)) -> the result's shape.
Rule = Callable[[list[Shape | None], list[object]], Shape]


class NotModelled(Exception):
    """The operator's result shape cannot be told from these operands."""


def _dim(d: object, rank: int) -> int:
    if not isinstance(d, int) or not -rank <= d < max(rank, 1):
        raise NotModelled(f"dimension {d} of a rank-{rank} tensor")
    return d % rank if rank else 0


def _same(shapes: list[Shape | None], values: list[object]) -> Shape:
    return _first(shapes)


def _first(shapes: list[Shape | None]) -> Shape:
    shape = shapes[0]
    if shape is None:
        raise NotModelled("no tensor operand")
    return shape


def broadcast(*shapes: Shape) -> Shape:
    """numpy's broadcast of the shapes (a 1 gives way; otherwise the extents must be equal)."""
    rank = max(len(s) for s in shapes)
    out = []
    for k in range(rank):
        extents = [s[len(s) - rank + k] for s in shapes if len(s) - rank + k >= 0]
        others = [e for e in extents if e != 1]
        if others and any(sympy.simplify(e - others[0]) != 0 for e in others):
            raise NotModelled(f"extents {', '.join(map(str, extents))} do not broadcast")
        out.append(others[0] if others else sympy.Integer(1))
    return tuple(out)


def _elementwise(shapes: list[Shape | None], values: list[object]) -> Shape:
    found = [s for s in shapes if s is not None]
    if not found:
        raise NotModelled("no tensor operand")
    return broadcast(*found)


def _mm(shapes: list[Shape | None], values: list[object]) -> Shape:
    a, b = shapes[0], shapes[1]
    if a is None or b is None or len(a) != 2 or len(b) != 2:
        raise NotModelled("mm of operands that are not matrices")
    return (a[0], b[1])


def _addmm(shapes: list[Shape | None], values: list[object]) -> Shape:
    return _mm(shapes[1:], values[1:])


def _bmm(shapes: list[Shape | None], values: list[object]) -> Shape:
    a, b = shapes[0], shapes[1]
    if a is None or b is None or len(a) != 3 or len(b) != 3:
        raise NotModelled("bmm of operands that are not batches of matrices")
    return (a[0], a[1], b[2])


def _matmul(shapes: list[Shape | None], values: list[object]) -> Shape:
    a, b = shapes[0], shapes[1]
    if a is None or b is None or not a or not b:
        raise NotModelled("matmul of a scalar")
    if len(a) == 1 and len(b) == 1:
        return ()
    if len(b) == 1:
        return a[:-1]
    if len(a) == 1:
        return b[:-2] + b[-1:]
    return broadcast(a[:-2], b[:-2]) + (a[-2], b[-1])


def _linear(shapes: list[Shape | None], values: list[object]) -> Shape:
    x, w = shapes[0], shapes[1]
    if x is None or w is None or len(w) != 2:
        raise NotModelled("linear with a weight that is not a matrix")
    return x[:-1] + (w[0],)


def _transpose(shapes: list[Shape | None], values: list[object]) -> Shape:
    x = _first(shapes)
    if len(values) < 3:  # `t()`
        return tuple(reversed(x))
    a, b = _dim(values[1], len(x)), _dim(values[2], len(x))
    out = list(x)
    out[a], out[b] = out[b], out[a]
    return tuple(out)


def _permute(shapes: list[Shape | None], values: list[object]) -> Shape:
    x = _first(shapes)
    dims = values[1]
    if not isinstance(dims, (list, tuple)) or len(dims) != len(x):
        raise NotModelled("permute's dimensions")
    return tuple(x[_dim(d, len(x))] for d in dims)


def _reduce(shapes: list[Shape | None], values: list[object]) -> Shape:
    """`sum()`, `sum(dims, keepdim)`, `amax(dim)`: the reduced dimensions gone (or 1 with keepdim)."""
    x = _first(shapes)
    if len(values) < 2 or values[1] is None or values[1] == []:
        return ()
    dims = values[1] if isinstance(values[1], (list, tuple)) else [values[1]]
    keep = bool(values[2]) if len(values) > 2 and isinstance(values[2], bool) else False
    reduced = {_dim(d, len(x)) for d in dims}
    return tuple(sympy.Integer(1) if k in reduced else e for k, e in enumerate(x) if keep or k not in reduced)


def _reshape(shapes: list[Shape | None], values: list[object]) -> Shape:
    x = _first(shapes)
    sizes = values[1] if isinstance(values[1], (list, tuple)) else [values[1]]
    known = sympy.Mul(*[sympy.Integer(s) if isinstance(s, int) else s for s in sizes if not (isinstance(s, int) and s == -1)])
    total = sympy.Mul(*x)
    out = [sympy.Integer(s) if isinstance(s, int) else s for s in sizes]
    if sum(1 for s in sizes if isinstance(s, int) and s == -1) > 1:
        raise NotModelled("a view with two -1 extents")
    return tuple(sympy.simplify(total / known) if isinstance(s, sympy.Integer) and s == -1 else s for s in out)


def _like_shape(shapes: list[Shape | None], values: list[object]) -> Shape:
    """`view_as(y)`, `reshape_as(y)`, `expand_as(y)`: the other tensor's shape."""
    other = shapes[1]
    if other is None:
        raise NotModelled("no tensor to take the shape of")
    return other


def _flatten(shapes: list[Shape | None], values: list[object]) -> Shape:
    x = _first(shapes)
    if not x:
        return (sympy.Integer(1),)
    start = _dim(values[1] if len(values) > 1 else 0, len(x))
    end = _dim(values[2] if len(values) > 2 else -1, len(x))
    return x[:start] + (sympy.Mul(*x[start:end + 1]),) + x[end + 1:]


def _unsqueeze(shapes: list[Shape | None], values: list[object]) -> Shape:
    x = _first(shapes)
    d = values[1]
    if not isinstance(d, int) or not -len(x) - 1 <= d <= len(x):
        raise NotModelled(f"unsqueeze at {d}")
    d %= len(x) + 1
    return x[:d] + (sympy.Integer(1),) + x[d:]


def _squeeze(shapes: list[Shape | None], values: list[object]) -> Shape:
    x = _first(shapes)
    if len(values) < 2:
        return tuple(e for e in x if e != 1)
    d = _dim(values[1], len(x))
    return x[:d] + x[d + 1:] if x[d] == 1 else x


def _narrow(shapes: list[Shape | None], values: list[object]) -> Shape:
    x = _first(shapes)
    d = _dim(values[1], len(x))
    return x[:d] + (sympy.sympify(values[3]),) + x[d + 1:]


def _select(shapes: list[Shape | None], values: list[object]) -> Shape:
    x = _first(shapes)
    d = _dim(values[1], len(x)) if len(values) > 2 else 0
    return x[:d] + x[d + 1:]


def _cat(shapes: list[Shape | None], values: list[object]) -> Shape:
    parts = [s for s in shapes if s is not None]
    dim = values[-1] if isinstance(values[-1], int) and shapes[-1] is None else 0
    if not parts:
        raise NotModelled("cat of no tensors")
    d = _dim(dim, len(parts[0]))
    return parts[0][:d] + (sympy.Add(*[p[d] for p in parts]),) + parts[0][d + 1:]


def _stack(shapes: list[Shape | None], values: list[object]) -> Shape:
    parts = [s for s in shapes if s is not None]
    dim = values[-1] if isinstance(values[-1], int) and shapes[-1] is None else 0
    if not parts:
        raise NotModelled("stack of no tensors")
    d = dim % (len(parts[0]) + 1)
    return parts[0][:d] + (sympy.Integer(len(parts)),) + parts[0][d:]


def _conv(rank: int) -> Rule:
    def rule(shapes: list[Shape | None], values: list[object]) -> Shape:
        x, w = shapes[0], shapes[1]
        if x is None or w is None or len(x) != rank + 2 or len(w) != rank + 2:
            raise NotModelled(f"conv{rank}d of operands that are not {rank + 2}-D")

        def per_dim(k: int, default: int) -> list[int]:
            v = values[k] if len(values) > k and values[k] is not None else default
            v = list(v) if isinstance(v, (list, tuple)) else [v]
            if not all(isinstance(e, int) for e in v):
                raise NotModelled("a convolution's stride, padding or dilation that is not constant")
            return v * rank if len(v) == 1 else v

        stride, padding, dilation = per_dim(3, 1), per_dim(4, 0), per_dim(5, 1)
        spatial = tuple(sympy.floor((x[2 + i] + 2 * padding[i] - dilation[i] * (w[2 + i] - 1) - 1) / stride[i]) + 1
                        for i in range(rank))
        return (x[0], w[0]) + spatial
    return rule


def _pool(shapes: list[Shape | None], values: list[object]) -> Shape:
    x = _first(shapes)
    if len(x) != 4:
        raise NotModelled("a 2-D pooling of a tensor that is not 4-D")

    def pair(k: int, default: list[int] | None) -> list[int]:
        v = values[k] if len(values) > k and values[k] not in (None, []) else default
        v = list(v) if isinstance(v, (list, tuple)) else [v]
        if not all(isinstance(e, int) for e in v):
            raise NotModelled("a pooling's kernel, stride or padding that is not constant")
        return v * 2 if len(v) == 1 else v

    kernel = pair(1, None)
    stride, padding = pair(2, kernel), pair(3, [0])
    return x[:2] + tuple(sympy.floor((x[2 + i] + 2 * padding[i] - kernel[i]) / stride[i]) + 1 for i in range(2))


@dataclass(frozen=True)
class Operator:
    """An ATen call the host reader models: its `kernel.aten` target and its result's shape."""

    target: str  # the operator torch runs: `torch.ops.aten.<target>` with the call's operands
    shape: Rule
    dtype: str | None = None  # the result's element type when the operator fixes it ("bool")


_UNARY = ("relu", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "abs", "neg", "gelu", "silu", "sin",
          "cos", "reciprocal", "clone", "clamp", "clamp_min", "clamp_max", "pow", "softmax", "log_softmax",
          "dropout", "layer_norm", "group_norm", "batch_norm")
_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "where")
OPERATORS: dict[str, Operator] = {
    **{name: Operator(name, _same) for name in _UNARY},
    **{name: Operator(name, _elementwise) for name in _BINARY},
    "mm": Operator("mm", _mm), "bmm": Operator("bmm", _bmm), "matmul": Operator("matmul", _matmul),
    "addmm": Operator("addmm", _addmm), "linear": Operator("linear", _linear),
    "t": Operator("t", _transpose), "transpose": Operator("transpose", _transpose),
    "permute": Operator("permute", _permute),
    "sum": Operator("sum", _reduce), "mean": Operator("mean", _reduce), "amax": Operator("amax", _reduce),
    "amin": Operator("amin", _reduce),
    "conv1d": Operator("conv1d", _conv(1)), "conv2d": Operator("conv2d", _conv(2)),
    "conv3d": Operator("conv3d", _conv(3)),
    "max_pool2d": Operator("max_pool2d", _pool), "avg_pool2d": Operator("avg_pool2d", _pool),
    "cat": Operator("cat", _cat), "stack": Operator("stack", _stack),
    "narrow": Operator("narrow", _narrow), "select": Operator("select", _select),
    "expand": Operator("expand", lambda shapes, values: _reshape(shapes, values)),
    "expand_as": Operator("expand_as", _like_shape),
}
# The same memory under another shape (a contiguous tensor's view).
VIEWS: dict[str, Rule] = {
    "view": _reshape, "reshape": _reshape, "view_as": _like_shape, "reshape_as": _like_shape,
    "flatten": _flatten, "unsqueeze": _unsqueeze, "squeeze": _squeeze,
    "contiguous": _same, "detach": _same, "cuda": _same, "cpu": _same,
}
# Casts: a new tensor of the operand's shape and another element type (the same one when it already is).
CASTS = ("to", "type_as", "toType", "float_", "half", "bfloat16")
# In-place operators: the result is the first operand, changed.
IN_PLACE = {"zero_": "zero_", "fill_": "fill_", "copy_": "copy_", "add_": "add_", "sub_": "sub_",
            "mul_": "mul_", "div_": "div_", "clamp_": "clamp_", "relu_": "relu_"}
# Operators of C++ on tensors (`a + b`, `a * 0.5f`, `a += b`).
BINARY_OPERATORS = {"+": "add", "-": "sub", "*": "mul", "/": "div"}
COMPOUND_OPERATORS = {"+=": "add_", "-=": "sub_", "*=": "mul_", "/=": "div_"}


def operand_text(value: object) -> str:
    """An operand of a `kernel.aten` step as text: a tensor by its buffer's name (given), numbers,
    booleans, None, lists, dtypes as `torch.float32`."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(operand_text(v) for v in value) + "]"
    if isinstance(value, sympy.Basic):
        return str(int(value)) if value.is_Integer else str(float(value)) if value.is_number else str(value)
    return str(value)


def constant_list(values: Sequence[object]) -> list[object]:
    """sympy numbers as Python numbers (what the shape rules compare with)."""
    out: list[object] = []
    for v in values:
        if isinstance(v, sympy.Basic) and v.is_Integer:
            out.append(int(v))
        elif isinstance(v, (list, tuple)):
            out.append(constant_list(v))
        else:
            out.append(v)
    return out
