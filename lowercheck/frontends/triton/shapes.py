"""Symbolic sizes and shape-only tensors: a capture without torch's fake tensors.

torch's `FakeTensorMode` and `ShapeEnv` import all of torch._dynamo (1.2 s of every cold Triton
lowering, issue 19's profile), although most wrappers only read their tensors' shapes, allocate
outputs and launch. For those, a capture needs sizes as expressions and tensors that carry a shape:

- `Size` is an integer expression over the size symbols, built with torch's own sympy functions
  and rules (`FloorDiv`, `Mod` or `PythonMod`, `Min`, `Max`), so `triton.cdiv(n, 1024)` is the very
  `FloorDiv(s0 + 1023, 1024)` a ShapeEnv gives, with its hint alongside. A comparison is answered
  when the sizes' ranges decide it (every size symbol is at least 2, as a ShapeEnv assumes), as
  `if x.numel() == 0:` is.
- `ShapeTensor` is a `torch.Tensor` subclass (so `isinstance(x, torch.Tensor)` holds) on the meta
  device whose shape, strides and storage offset are such sizes, with the views and allocations
  wrappers make (`ShapeMode`).

Anything beyond that raises `BeyondShapes`: a torch operation not listed here, a comparison the
ranges do not decide, `int(size)`, `range(size)`, a size in a float. The capture is then done again
on torch's fake tensors in a fresh process (`capture.capture`), so the shape-only capture gives
the fake-tensor capture's result or none at all (`tests/frontends/test_shape_capture.py` compares
the two on every Triton file of the corpus).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import operator

import sympy
import torch
from torch.fx.experimental import sym_node
from torch.overrides import TorchFunctionMode
from torch.utils._sympy.functions import FloorDiv, Max, Min, Mod, PythonMod
from torch.utils._sympy.numbers import int_oo
from torch.utils._sympy.value_ranges import ValueRanges, bound_sympy


class BeyondShapes(BaseException):
    """The wrapper did something the shape-only capture does not model: capture it on fake tensors.
    A BaseException, so that a wrapper's own `except Exception:` (a fast path tried, a slow one
    taken) cannot swallow it and go on down another path than on fake tensors; one swallowed all
    the same is found afterwards (`tripped`)."""

    def __init__(self, why: str):
        super().__init__(why)
        _TRIPPED.append(self)


class BranchesOnSizes(BaseException):
    """The wrapper branched on sizes where their ranges do not decide the branch, or took a size's
    integer value: a ShapeEnv would record a guard there, and a capture with a guard needs concrete
    sizes (`NeedsConcreteSizes`). `guard` is the relation as the sizes' hints make it hold."""

    def __init__(self, guard: sympy.Basic):
        super().__init__(str(guard))
        self.guard = guard
        _TRIPPED.append(self)


_TRIPPED: list[BaseException] = []  # what the running capture raised, swallowed by the wrapper or not


def tripped() -> BaseException | None:
    """The first BeyondShapes or BranchesOnSizes raised since `ShapeMode` was entered."""
    return _TRIPPED[0] if _TRIPPED else None


def symbol(index: int) -> sympy.Symbol:
    """The index-th size symbol, with a ShapeEnv's assumptions for a dynamic size."""
    return sympy.Symbol(f"s{index}", positive=True, integer=True)


def _range_of(expr: sympy.Basic) -> ValueRanges:
    """The values `expr` can take when every size symbol is at least 2 (a ShapeEnv's default range)."""
    return bound_sympy(expr, {s: ValueRanges(2, int_oo) for s in expr.free_symbols})


def decide(relation: sympy.Basic, holds: bool) -> bool:
    """The truth of a relation between sizes where the sizes' ranges decide it (as a ShapeEnv
    answers without a guard); else BranchesOnSizes, with the relation as the hints make it hold
    (`holds`: its truth at the hints)."""
    if relation is sympy.true or relation is sympy.false:
        return bool(relation)
    truth = _range_of(relation)
    if truth.is_singleton():
        return bool(truth.lower)
    raise BranchesOnSizes(relation if holds else sympy.Not(relation))


def _operand(value: Any) -> tuple[sympy.Basic, int] | None:
    if isinstance(value, Size):
        return value.expr, value.hint
    if isinstance(value, int):  # bool too, as a SymInt takes it
        return sympy.Integer(int(value)), int(value)
    return None


def sized(expr: sympy.Basic, hint: int) -> Any:
    """A `Size`, or a plain int when the expression is a number (as a SymInt gives one back)."""
    if expr.is_Integer:
        return int(expr)
    return Size(expr, hint)


def _mod(a: sympy.Basic, b: sympy.Basic) -> sympy.Basic:
    """As torch's SymNode: `Mod` when both sides are non-negative by their ranges, else `PythonMod`."""
    if (a.is_nonnegative or _range_of(a).lower >= 0) and (b.is_nonnegative or _range_of(b).lower >= 0):
        return Mod(a, b)
    return PythonMod(a, b)


# Each operation as torch's SymNode builds its expression (`torch.fx.experimental.sym_node`: a
# shift by a constant is a floor division or a product there, `|` a `BitwiseFn_bitwise_or`), and
# as Python computes the hint.
_OPERATIONS = {
    "add": (operator.add, operator.add),
    "sub": (operator.sub, operator.sub),
    "mul": (operator.mul, operator.mul),
    "floordiv": (FloorDiv, operator.floordiv),
    "mod": (_mod, operator.mod),
    "rshift": (sym_node._sympy_rshift, operator.rshift),
    "lshift": (sym_node._sympy_lshift, operator.lshift),
    "or": (sym_node._bitwise_or, operator.or_),
    "and": (sym_node._bitwise_and, operator.and_),
    "xor": (sym_node._bitwise_xor, operator.xor),
}


def _other(self: Size, other: Any) -> tuple[sympy.Basic, int] | None:
    """The other side of an operation on a size; None where Python should try the other side's."""
    right = _operand(other)
    if right is None and isinstance(other, float):
        raise BeyondShapes(f"a size with a float ({self} and {other})")
    return right


def _binary(name: str, reflected: bool = False):
    expression, value = _OPERATIONS[name]

    def operation(self: Size, other: Any) -> Any:
        right = _other(self, other)
        if right is None:
            return NotImplemented
        (a, ha), (b, hb) = ((right, (self.expr, self.hint)) if reflected else ((self.expr, self.hint), right))
        if name in ("floordiv", "mod") and hb == 0:
            raise BeyondShapes("a size divided by zero")
        if name in ("rshift", "lshift") and hb < 0:
            raise BeyondShapes("a size shifted by a negative count")
        return sized(expression(a, b), value(ha, hb))

    return operation


def _relation(kind: type, compare_hints):
    def compare(self: Size, other: Any) -> Any:
        right = _other(self, other)
        if right is None:
            return NotImplemented
        relation = kind(self.expr, right[0])
        if relation is sympy.true or relation is sympy.false:  # sympy decided it: a SymInt gives a bool
            return bool(relation)
        return SizeCondition(relation, compare_hints(self.hint, right[1]))

    return compare


class SizeCondition:
    """A comparison of sizes sympy did not decide, as a SymBool is: nothing is decided until the
    wrapper branches on it (`if`, `and`, `not`: `decide`); as a kernel's constexpr it needs
    concrete sizes (`compile.specialize`)."""

    __slots__ = ("relation", "hint")

    def __init__(self, relation: sympy.Basic, hint: bool):
        self.relation = relation
        self.hint = hint

    def __bool__(self) -> bool:
        return decide(self.relation, self.hint)

    def __index__(self) -> int:
        return int(self.__bool__())

    __int__ = __index__
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return str(self.relation)

    def __eq__(self, other: Any) -> Any:
        raise BeyondShapes(f"a comparison of sizes compared ({self})")

    __ne__ = __invert__ = __eq__  # type: ignore[assignment]
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = __eq__
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __float__ = __eq__

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        raise BeyondShapes(f"`{_name(func)}` on a comparison of sizes")


def _beyond(what: str):
    def refuse(self: Size, *args: Any) -> Any:
        raise BeyondShapes(f"{what} of a size ({self})")

    return refuse


class Size:
    """An integer expression over the size symbols, with its value at the symbols' hints."""

    __slots__ = ("expr", "hint")

    def __init__(self, expr: sympy.Basic, hint: int):
        self.expr = expr
        self.hint = hint

    __add__, __radd__ = _binary("add"), _binary("add", reflected=True)
    __sub__, __rsub__ = _binary("sub"), _binary("sub", reflected=True)
    __mul__, __rmul__ = _binary("mul"), _binary("mul", reflected=True)
    __floordiv__, __rfloordiv__ = _binary("floordiv"), _binary("floordiv", reflected=True)
    __mod__, __rmod__ = _binary("mod"), _binary("mod", reflected=True)
    __rshift__, __rrshift__ = _binary("rshift"), _binary("rshift", reflected=True)
    __lshift__, __rlshift__ = _binary("lshift"), _binary("lshift", reflected=True)
    __or__, __ror__ = _binary("or"), _binary("or", reflected=True)
    __and__, __rand__ = _binary("and"), _binary("and", reflected=True)
    __xor__, __rxor__ = _binary("xor"), _binary("xor", reflected=True)
    __eq__ = _relation(sympy.Eq, operator.eq)  # type: ignore[assignment]
    __ne__ = _relation(sympy.Ne, operator.ne)  # type: ignore[assignment]
    __lt__ = _relation(sympy.Lt, operator.lt)
    __le__ = _relation(sympy.Le, operator.le)
    __gt__ = _relation(sympy.Gt, operator.gt)
    __ge__ = _relation(sympy.Ge, operator.ge)
    __hash__ = None  # type: ignore[assignment] - as a SymInt: no dictionary key
    __float__ = __round__ = __trunc__ = __floor__ = __ceil__ = __complex__ = _beyond("the number value")
    __truediv__ = __rtruediv__ = __pow__ = __rpow__ = _beyond("a true division or a power")
    __invert__ = _beyond("the bitwise inverse")
    __divmod__ = __rdivmod__ = _beyond("divmod")

    def __index__(self) -> int:
        """`int(n)`, `range(n)`: a ShapeEnv specialises the size to its hint, a guard."""
        raise BranchesOnSizes(sympy.Eq(self.expr, self.hint))

    __int__ = __index__

    def __neg__(self) -> Any:
        return sized(-self.expr, -self.hint)

    def __pos__(self) -> Size:
        return self

    def __abs__(self) -> Any:
        raise BeyondShapes(f"abs({self})")

    def __bool__(self) -> bool:
        return decide(sympy.Ne(self.expr, 0), self.hint != 0)

    def __repr__(self) -> str:
        return str(self.expr)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if spec:
            raise BeyondShapes(f"a size formatted as `{spec}`")
        return str(self.expr)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """A size among a torch function's arguments (`torch.empty((n, 4))`): `shape_mode` takes the
        calls it models; a shape tensor's method (`x.reshape(n, 4)`) is the tensor's to answer."""
        if any(issubclass(kind, ShapeTensor) for kind in types):
            return NotImplemented
        raise BeyondShapes(f"`{_name(func)}` on a size")


def smallest(a: Any, b: Any) -> Any:
    """min(a, b) of sizes, kept symbolic as torch.sym_min keeps it (`Min`)."""
    return _extreme(Min, min, a, b)


def largest(a: Any, b: Any) -> Any:
    return _extreme(Max, max, a, b)


def _extreme(kind, builtin, a: Any, b: Any) -> Any:
    left, right = _operand(a), _operand(b)
    if left is None or right is None:
        raise BeyondShapes(f"min or max of a size and a {type(b if left else a).__name__}")
    return sized(kind(left[0], right[0]), builtin(left[1], right[1]))


def is_size(value: Any) -> bool:
    """A size or a condition on sizes: what a SymInt or a SymBool is to a ShapeEnv."""
    return isinstance(value, (Size, SizeCondition))


# --- tensors ---------------------------------------------------------------------------------


def _product(values: tuple) -> Any:
    result: Any = 1
    for value in values:
        result = result * value
    return result


def contiguous_strides(shape: tuple) -> tuple:
    """Row-major strides, as torch computes them (a dimension of size 1 does not count)."""
    strides: list[Any] = []
    step: Any = 1
    for extent in reversed(shape):
        strides.append(step)
        step = step * _at_least_one(extent)
    return tuple(reversed(strides))


def _at_least_one(extent: Any) -> Any:
    """max(extent, 1), as torch's stride computation takes it; a size is at least 2."""
    if isinstance(extent, Size):
        return extent
    return max(int(extent), 1)


class Shape(tuple):
    """A shape of sizes (torch.Size holds only ints and SymInts): a tuple with `numel`."""

    def numel(self) -> Any:
        return _product(tuple(self))


def _checked_extent(value: Any, where: str) -> Any:
    if isinstance(value, Size):
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise BeyondShapes(f"{where}: an extent of type {type(value).__name__}")
    if value < 0:
        raise BeyondShapes(f"{where}: a negative extent")
    return value


def _shape_of(args: tuple, where: str) -> tuple:
    """`torch.empty(n, 4)` and `torch.empty((n, 4))` alike."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return tuple(_checked_extent(a, where) for a in args)


def _device(device: Any) -> torch.device:
    """The device a shape tensor reports: a CUDA one becomes the CPU (`cuda_on_cpu`, as a fake
    tensor's), the CPU and meta stay; anything else is beyond the capture."""
    if device is None:
        return torch.device("cpu")
    if isinstance(device, int) and not isinstance(device, bool):
        return torch.device("cpu")
    try:
        device = torch.device(device)
    except (TypeError, RuntimeError):
        raise BeyondShapes(f"the device {device!r}") from None
    if device.type in ("cuda", "cpu"):
        return torch.device("cpu")
    if device.type == "meta":
        return device
    raise BeyondShapes(f"the device {device}")


class ShapeTensor(torch.Tensor):
    """A tensor that is only a shape, strides, an offset into its base's storage, a dtype and a
    device: what a wrapper reads of its tensors before launching."""

    lc_shape: tuple
    lc_strides: tuple
    lc_offset: Any
    lc_base: ShapeTensor | None
    lc_device: torch.device

    @staticmethod
    def __new__(cls, shape: tuple, dtype: torch.dtype, device: torch.device | None = None, strides: tuple | None = None,
                offset: Any = 0, base: ShapeTensor | None = None) -> ShapeTensor:
        tensor = torch.Tensor._make_wrapper_subclass(cls, (0,), dtype=dtype, device="meta")
        tensor.lc_shape = Shape(shape)
        tensor.lc_strides = tuple(strides) if strides is not None else contiguous_strides(tuple(shape))
        tensor.lc_offset = offset
        tensor.lc_base = base
        tensor.lc_device = device if device is not None else torch.device("cpu")
        return tensor

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        return f"ShapeTensor({list(self.lc_shape)}, {self.dtype})"

    # --- what wrappers read --------------------------------------------------------------------

    @property
    def shape(self) -> Shape:  # type: ignore[override]
        return self.lc_shape

    @property
    def ndim(self) -> int:  # type: ignore[override]
        return len(self.lc_shape)

    @property
    def device(self) -> torch.device:  # type: ignore[override]
        return self.lc_device

    @property
    def _base(self) -> ShapeTensor | None:  # type: ignore[override]
        return self.lc_base

    @property
    def is_meta(self) -> bool:  # type: ignore[override]
        return self.lc_device.type == "meta"

    def size(self, dim: int | None = None) -> Any:  # type: ignore[override]
        return self.lc_shape if dim is None else self.lc_shape[self._dim(dim)]

    def stride(self, dim: int | None = None) -> Any:  # type: ignore[override]
        return self.lc_strides if dim is None else self.lc_strides[self._dim(dim)]

    def storage_offset(self) -> Any:  # type: ignore[override]
        return self.lc_offset

    def dim(self) -> int:  # type: ignore[override]
        return len(self.lc_shape)

    ndimension = dim

    def numel(self) -> Any:  # type: ignore[override]
        return _product(tuple(self.lc_shape))

    nelement = numel

    def element_size(self) -> int:  # type: ignore[override]
        return self.dtype.itemsize

    def is_contiguous(self, memory_format: Any = torch.contiguous_format) -> bool:  # type: ignore[override]
        if memory_format is not torch.contiguous_format:
            raise BeyondShapes(f"is_contiguous({memory_format})")
        return self._contiguous()

    def _contiguous(self) -> bool:
        """As torch decides it: each dimension of more than one element at the row-major stride."""
        expected: Any = 1
        for extent, stride in zip(reversed(self.lc_shape), reversed(self.lc_strides), strict=True):
            if isinstance(extent, int) and extent == 1:
                continue
            if isinstance(extent, int) and extent == 0:
                return True
            if not _same(stride, expected):
                return False
            expected = expected * extent
        return True

    def _contiguous_tensor(self, memory_format: Any = torch.contiguous_format) -> ShapeTensor:
        if memory_format is not torch.contiguous_format or not self._contiguous():
            raise BeyondShapes("a copy to a contiguous tensor")
        return self

    def _dim(self, dim: int) -> int:
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise BeyondShapes(f"a dimension of type {type(dim).__name__}")
        rank = len(self.lc_shape)
        if not -rank <= dim < rank:
            raise BeyondShapes(f"dimension {dim} of a {rank}-dimensional tensor")
        return dim % rank

    # --- views: reached through `__torch_function__` (`_METHODS`), so that the capture's modes see
    # them as they see a fake tensor's (`capture._computed_tensors`) -----------------------------

    def _view_of(self, shape: tuple, strides: tuple, offset: Any = None) -> ShapeTensor:
        root = self.lc_base if self.lc_base is not None else self
        return ShapeTensor(shape, self.dtype, self.lc_device, strides,
                           self.lc_offset if offset is None else offset, root)

    def _view(self, *shape: Any) -> ShapeTensor:
        if len(shape) == 1 and isinstance(shape[0], torch.dtype):
            raise BeyondShapes("a view as another dtype")
        if not self._contiguous():
            raise BeyondShapes("a view of a non-contiguous tensor")
        wanted = _inferred(_shape_with_minus_one(shape), self.numel())
        return self._view_of(wanted, contiguous_strides(wanted))

    def _reshape(self, *shape: Any) -> ShapeTensor:
        if not self._contiguous():
            raise BeyondShapes("a reshape of a non-contiguous tensor")
        return self._view(*shape)

    def _flatten(self, start_dim: int = 0, end_dim: int = -1) -> ShapeTensor:
        if not self.lc_shape:
            return self._view(1)
        start, end = self._dim(start_dim), self._dim(end_dim)
        if start == end:
            return self
        shape = (*self.lc_shape[:start], _product(tuple(self.lc_shape[start:end + 1])), *self.lc_shape[end + 1:])
        return self._view(*shape)

    def _view_as(self, other: Any) -> ShapeTensor:
        return self._view(*other.shape)

    def _unsqueeze(self, dim: int) -> ShapeTensor:
        rank = len(self.lc_shape) + 1
        if isinstance(dim, bool) or not isinstance(dim, int) or not -rank <= dim < rank:
            raise BeyondShapes(f"unsqueeze({dim!r})")
        dim %= rank
        inner = self.lc_strides[dim] * self.lc_shape[dim] if dim < len(self.lc_shape) else 1
        return self._view_of((*self.lc_shape[:dim], 1, *self.lc_shape[dim:]),
                             (*self.lc_strides[:dim], inner, *self.lc_strides[dim:]))

    # --- allocation like this one, and in-place fills (values are never read here) ---------------

    def _new_empty(self, *size: Any, dtype: Any = None, device: Any = None, **kwargs: Any) -> ShapeTensor:
        _only_layout_options(kwargs, "new_empty")
        return ShapeTensor(_shape_of(size, "new_empty"), dtype or self.dtype,
                           self.lc_device if device is None else _device(device))

    def _new_full(self, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
                 **kwargs: Any) -> ShapeTensor:
        _only_layout_options(kwargs, "new_full")
        return ShapeTensor(_shape_of((size,), "new_full"), dtype or self.dtype,
                           self.lc_device if device is None else _device(device))

    def _filled(self, *args: Any, **kwargs: Any) -> ShapeTensor:
        return self

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = _name(func)
        if name in ("dtype.__get__", "layout.__get__", "requires_grad.__get__", "is_sparse.__get__",
                    "is_quantized.__get__", "is_nested.__get__"):
            with torch._C.DisableTorchFunctionSubclass():
                return func(*args, **kwargs)
        method = _METHODS.get(func)
        if method is not None and args and isinstance(args[0], ShapeTensor):
            return getattr(args[0], method)(*args[1:], **kwargs)
        allocate = _ALLOCATE_LIKE.get(func)
        if allocate is not None:
            return allocate(*args, **kwargs)
        raise BeyondShapes(f"`{name}` on a tensor")

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        raise BeyondShapes(f"the operator `{func}` on a tensor")


def _same(a: Any, b: Any) -> bool:
    """Whether two sizes are equal for every value of the symbols (not just where ranges decide)."""
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    ea, eb = _operand(a), _operand(b)
    if ea is None or eb is None:
        return False
    return sympy.expand(ea[0] - eb[0]) == 0


def _shape_with_minus_one(shape: tuple) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    for extent in shape:
        if isinstance(extent, bool) or not isinstance(extent, (int, Size)):
            raise BeyondShapes(f"a view to an extent of type {type(extent).__name__}")
    return tuple(shape)


def _inferred(shape: tuple, numel: Any) -> tuple:
    """The view's shape with its -1 inferred as torch's `infer_size` does (`numel // known`); a
    shape whose element count is not the tensor's for every size is beyond the capture."""
    free = [i for i, extent in enumerate(shape) if isinstance(extent, int) and extent == -1]
    if len(free) > 1 or any(isinstance(e, int) and e < -1 for e in shape):
        raise BeyondShapes("a view with several -1")
    known = _product(tuple(e for i, e in enumerate(shape) if i not in free))
    if free:
        if isinstance(known, int) and known == 0:
            raise BeyondShapes("a view inferring an extent beside a zero one")
        missing = numel // known
        shape = tuple(missing if i in free else e for i, e in enumerate(shape))
    if not _same(_product(shape), numel):
        raise BeyondShapes("a view whose element count is not the tensor's for every size")
    return shape


def _only_layout_options(kwargs: dict, what: str) -> None:
    unknown = set(kwargs) - {"layout", "requires_grad", "pin_memory", "memory_format"}
    if unknown:
        raise BeyondShapes(f"{what} with {', '.join(sorted(unknown))}")
    if kwargs.get("memory_format", torch.contiguous_format) not in (torch.contiguous_format, torch.preserve_format):
        raise BeyondShapes(f"{what} in another memory format")
    if kwargs.get("layout", torch.strided) is not torch.strided:
        raise BeyondShapes(f"{what} in another layout")


def _like(template: Any, *args: Any, dtype: Any = None, device: Any = None, **kwargs: Any) -> ShapeTensor:
    """`torch.empty_like(x)` and the like: x's shape, contiguous (a contiguous input's strides
    are the contiguous ones, so `preserve_format` is the same); a fill value is no concern."""
    if not isinstance(template, ShapeTensor):
        raise BeyondShapes("an allocation like a tensor the capture did not make")
    if len(args) > 1:
        raise BeyondShapes("an allocation like a tensor with more arguments")
    if not template._contiguous():
        raise BeyondShapes("an allocation like a non-contiguous tensor")
    _only_layout_options(kwargs, "an allocation like a tensor")
    return ShapeTensor(template.lc_shape, dtype or template.dtype,
                       template.lc_device if device is None else _device(device))


# torch functions that make a tensor like a shape tensor (`torch.empty_like(x)`).
_ALLOCATE_LIKE = {
    torch.empty_like: _like, torch.zeros_like: _like, torch.ones_like: _like, torch.rand_like: _like,
    torch.randn_like: _like, torch.full_like: lambda template, fill, **kwargs: _like(template, **kwargs),
}

# Tensor methods that give a tensor, and the shape tensor's method that models each.
_METHODS = {
    torch.Tensor.view: "_view", torch.Tensor.reshape: "_reshape", torch.Tensor.flatten: "_flatten",
    torch.Tensor.view_as: "_view_as", torch.Tensor.unsqueeze: "_unsqueeze",
    torch.Tensor.contiguous: "_contiguous_tensor",
    torch.Tensor.new_empty: "_new_empty", torch.Tensor.new_zeros: "_new_empty", torch.Tensor.new_ones: "_new_empty",
    torch.Tensor.new_full: "_new_full", torch.Tensor.zero_: "_filled", torch.Tensor.fill_: "_filled",
}


def _allocate(*size: Any, dtype: Any = None, device: Any = None, out: Any = None, **kwargs: Any) -> ShapeTensor:
    if out is not None:
        raise BeyondShapes("an allocation into `out`")
    _only_layout_options(kwargs, "an allocation")
    return ShapeTensor(_shape_of(size, "an allocation"), dtype or torch.get_default_dtype(), _device(device))


def _allocate_strided(size: Any, stride: Any, *, dtype: Any = None, device: Any = None, **kwargs: Any) -> ShapeTensor:
    _only_layout_options(kwargs, "empty_strided")
    shape = _shape_of((size,), "empty_strided")
    strides = tuple(_checked_extent(s, "empty_strided") for s in stride)
    if len(strides) != len(shape):
        raise BeyondShapes("empty_strided with as many strides as dimensions")
    return ShapeTensor(shape, dtype or torch.get_default_dtype(), _device(device), strides)


# torch functions that allocate without a tensor argument (`torch.empty((n, 4), device="cuda")`).
_ALLOCATE = {
    torch.empty: _allocate, torch.zeros: _allocate, torch.ones: _allocate, torch.rand: _allocate,
    torch.randn: _allocate, torch.full: lambda size, fill_value, **kwargs: _allocate(size, **kwargs),
    torch.empty_strided: _allocate_strided,
}


def _name(func: Any) -> str:
    """`Tensor.view`, `empty_like`, `dtype.__get__`: a torch function as messages name it."""
    name = getattr(func, "__name__", repr(func))
    owner = getattr(func, "__self__", None)
    if name == "__get__" and owner is not None:  # a property of Tensor: `Tensor.dtype.__get__`
        return f"{getattr(owner, '__name__', '?')}.__get__"
    qualified = getattr(func, "__qualname__", "")
    if qualified.startswith(("Tensor.", "TensorBase.")):
        return "Tensor." + name
    return name


class ShapeMode(TorchFunctionMode):
    """While the wrapper runs, its allocations are shape tensors; any other torch function that
    receives a size is beyond the capture (one that receives a shape tensor: the tensor's own
    `__torch_function__` says which it models). torch's argument parser refuses `torch.empty(n, m)`
    with a size first before any mode sees the call, so the allocating functions are also replaced
    in the `torch` namespace while the mode is on. It may be entered again after each exit."""

    entered = False  # the first entry of this capture: what it saw is forgotten then

    def __enter__(self) -> ShapeMode:
        self._saved = {func.__name__: func for func in _ALLOCATE}
        if not self.entered:  # the capture enters it again to run the wrapper: what it saw stays
            _TRIPPED.clear()
        self.entered = True
        for func, make in _ALLOCATE.items():
            setattr(torch, func.__name__, _allocating(make))
        try:
            return super().__enter__()
        except BaseException:
            self._restore()
            raise

    def __exit__(self, *exc: Any) -> None:
        try:
            super().__exit__(*exc)
        finally:
            self._restore()

    def _restore(self) -> None:
        for name, func in self._saved.items():
            setattr(torch, name, func)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        make = _ALLOCATE.get(func) or _ALLOCATE_LIKE.get(func)
        if make is not None:
            return make(*args, **kwargs)
        leaves = list(_leaves((args, kwargs)))
        if any(isinstance(a, Size) for a in leaves) and not any(isinstance(a, ShapeTensor) for a in leaves):
            raise BeyondShapes(f"`{_name(func)}` on a size")
        return func(*args, **kwargs)


def _allocating(make):
    def allocate(*args: Any, **kwargs: Any) -> ShapeTensor:
        return make(*args, **kwargs)

    return allocate


def check_made(values: list) -> None:
    """After the wrapper ran: every tensor its launches receive or it returns (in lists, tuples,
    dicts and Triton's host tensor descriptors too) is a shape tensor, every number a Python number
    or a size. One made where this module did not look (a C function that read the shape tensor's
    placeholder storage) is beyond the capture, never lowered."""
    for value in _leaves(values):
        base = getattr(value, "base", None) if type(value).__name__ == "TensorDescriptor" else None
        for item in (value, base):
            if isinstance(item, torch.Tensor) and not isinstance(item, ShapeTensor):
                raise BeyondShapes(f"a {type(item).__name__} the capture did not make reaches a launch or the result")
            if isinstance(item, (torch.SymInt, torch.SymFloat, torch.SymBool)):
                raise BeyondShapes("a torch symbol reaches a launch")


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, (tuple, list)):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    else:
        yield value


