"""Read a host launcher: its parameters and each `kernel<<<grid, block>>>(args)` as index expressions.

The host function runs symbolically: integer parameters are `symbolic.var(name)`, locals (`int blocks
= (n + 255) / 256;`, `dim3 g(..., m)`) hold expressions, and a launch records grid, block and
arguments over the parameters. C's integer division of sizes becomes `floor(a/b)` and `%` becomes
`Mod`: exact for the non-negative sizes launchers compute with. Local buffers from `cudaMalloc` are
`temp` parameters whose shape is the allocation's byte count over the element size.

KernelBench-style host functions take and return `torch::Tensor`s (the ATen subset in shim.h): a
tensor parameter is a buffer whose shape is the binding's, else one size name per dimension its
`size(i)` uses reach (`x_size0`, `x_size1`; `x_numel` when only `numel()` is used), its element type
from `data_ptr<T>()`; `numel()` and `stride(i)` (contiguous) are products of those sizes. A returned
local tensor (`auto out = torch::empty_like(x); ...; return out;`) is the parameter `return0`
(role out); other allocated tensors are temps.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import clang.cindex as ci
import sympy

from lowercheck import symbolic
from lowercheck.errors import Unsupported
from lowercheck.frontends.base import NeedsConcreteSizes
from lowercheck.frontends.cuda import aten
from lowercheck.frontends.cuda import ctype as ct
from lowercheck.frontends.cuda.ctype import CType
from lowercheck.frontends.cuda.parse import (
    assigned_decl,
    children,
    decl_key,
    evaluate,
    is_device_only,
    is_kernel,
    is_null_pointer,
    location,
    member_name,
    unary_operator,
    walk,
)

K = ci.CursorKind
B = ci.BinaryOperator
Dim3 = tuple[sympy.Expr, sympy.Expr, sympy.Expr]


NULL = object()  # the value of a pointer parameter the spec gives as none (`[args.residual] none = true`)


@dataclass
class Buffer:
    """A buffer the launcher passes to kernels: a pointer parameter or a `cudaMalloc`ed local."""

    name: str
    ctype: CType
    temp: bool = False
    shape: tuple[sympy.Expr, ...] = ()
    tensor: bool = False  # a torch::Tensor (its shape is known, its element type once typed)
    typed: bool = True  # False until a `data_ptr<T>()` or a dtype says the tensor's element type


@dataclass(frozen=True)
class View:
    """A buffer from an element on (`data + offset`, in the buffer's elements): passed to a kernel
    as `name[offset:]` (`kernel.split_view`)."""

    base: Buffer
    offset: sympy.Expr

    @property
    def name(self) -> str:
        return self.base.name

    @property
    def ctype(self) -> CType:
        return self.base.ctype

    @property
    def shown(self) -> str:
        return f"{self.base.name}[{symbolic.format(self.offset)}:]"


@dataclass
class Bundle:
    """A struct the launcher receives by value and passes on to kernels (`BatchWrapperCPP`): the
    value of each member it bundles (`ctype.struct_leaves`), a buffer or an expression."""

    values: dict[tuple[str, ...], object]


@dataclass
class Launch:
    cursor: ci.Cursor
    kernel: ci.Cursor  # the kernel's definition
    grid: Dim3
    block: Dim3
    args: list[str]  # a buffer's name, or an expression over the parameters
    shared_bytes: sympy.Expr | None = None  # the dynamic shared memory (3rd <<<>>> argument)
    # The kernel's pointer parameters this launch passes a null pointer: the kernel is lowered for
    # them (`p != nullptr` false there), a variant of its own.
    nulls: frozenset[str] = frozenset()

    @property
    def symbol(self) -> str:
        base = kernel_symbol(self.kernel)
        return base if not self.nulls else f"{base}_without_{'_'.join(sorted(self.nulls))}"


def kernel_symbol(kernel: ci.Cursor) -> str:
    """The kernel's function name; a template instance adds its arguments (`k<float, 4>`: `k_float_4`)."""
    parts = [kernel.spelling]
    for i in range(max(kernel.get_num_template_arguments(), 0)):
        if kernel.get_template_argument_kind(i) == ci.TemplateArgumentKind.TYPE:
            parts.append(kernel.get_template_argument_type(i).spelling)
        else:
            parts.append(str(kernel.get_template_argument_value(i)))
    return "_".join(re.sub(r"\W+", "_", p).strip("_") for p in parts)


def is_stream(t: ci.Type) -> bool:
    """`cudaStream_t`: a launcher parameter that orders work but changes no result, so not an entry
    parameter."""
    canon = t.get_canonical()
    if canon.kind in (ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE):  # `cudaStream_t&`
        canon = canon.get_pointee().get_canonical()
    if canon.kind == ci.TypeKind.CONSTANTARRAY:  # `cudaStream_t streams[2]`
        canon = canon.element_type.get_canonical()
    return canon.kind == ci.TypeKind.POINTER and canon.get_pointee().get_declaration().spelling == "CUstream_st"


@dataclass
class HostFunction:
    cursor: ci.Cursor
    params: list[tuple[str, CType, ci.Cursor]]
    launches: list[Launch] = field(default_factory=list)
    temps: list[Buffer] = field(default_factory=list)
    returned: list[Buffer] = field(default_factory=list)  # torch host functions: `return0`
    shapes: dict[str, tuple[sympy.Expr, ...]] = field(default_factory=dict)  # tensor parameters
    symbols: dict[str, str] = field(default_factory=dict)  # `__constant__` -> the buffer copied to it
    operators: list[HostOp] = field(default_factory=list)  # ATen calls between the launches, in order


@dataclass
class HostOp:
    """An ATen operator the host function runs between its launches (`aten.py`): torch computes
    `result` from `args` (buffers by name, constants as text) after `after` launches."""

    cursor: ci.Cursor
    target: str
    args: list[str]
    result: Buffer
    after: int


def launch_calls(fn: ci.Cursor) -> list[ci.Cursor]:
    """The `k<<<...>>>(...)` calls in a function body, in source order."""
    return [c for c in walk(fn) if c.kind == K.CALL_EXPR and launched_kernel(c) is not None]


# How deep launchers that call launchers are followed (`launch` -> `launch_impl<T>` -> `k<<<...>>>`).
_CALL_DEPTH = 4


def host_callee(call: ci.Cursor) -> ci.Cursor | None:
    """The definition of the host function a call calls (not a kernel, not a device function)."""
    if call.kind != K.CALL_EXPR or launched_kernel(call) is not None:
        return None
    ref = call.referenced
    definition = ref.get_definition() if ref is not None and ref.kind == K.FUNCTION_DECL else None
    if definition is None or is_kernel(definition) or is_device_only(definition):
        return None
    return definition


def launches_reached(fn: ci.Cursor, depth: int = _CALL_DEPTH) -> list[ci.Cursor]:
    """The launches `fn` makes, itself or through the host functions it calls (a dispatcher that
    calls `launch_impl<T>`), in source order."""
    found = list(launch_calls(fn))
    if depth > 0:
        for c in walk(fn):
            callee = host_callee(c)
            if callee is not None and callee != fn:
                found += launches_reached(callee, depth - 1)
    return found


def launched_kernel(call: ci.Cursor) -> ci.Cursor | None:
    ref = call.referenced
    if ref is None or ref.kind != K.FUNCTION_DECL:
        return None
    definition = ref.get_definition() or ref
    if not (is_kernel(ref) or is_kernel(definition)):
        return None
    has_config = any(c.kind == K.CALL_EXPR and c.spelling == "cudaConfigureCall" for c in children(call))
    return definition if has_config else None


def called_function(call: ci.Cursor) -> ci.Cursor | None:
    """The function a call calls. clang leaves `referenced` empty when the callee is parenthesised
    (`(std::min)(a, b)`, written so to dodge a `min` macro): then the name inside the parentheses."""
    if call.referenced is not None:
        return call.referenced
    kids = children(call)
    callee = kids[0] if kids else None
    while callee is not None and callee.kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR) and len(children(callee)) == 1:
        callee = children(callee)[0]
    if callee is not None and callee.kind == K.DECL_REF_EXPR and callee.referenced is not None \
            and callee.referenced.kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE):
        return callee.referenced
    return None


def _strip(c: ci.Cursor) -> ci.Cursor:
    while c.kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR,
                     K.CXX_FUNCTIONAL_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR, K.CXX_CONST_CAST_EXPR) and [k for k in children(c) if k.kind.is_expression()]:
        c = [k for k in children(c) if k.kind.is_expression()][-1]
    return c


def _lambda_called(call: ci.Cursor) -> ci.Cursor | None:
    """The lambda a call calls right where it is written (`[&] { ... }()`, `([&] { ... })()`)."""
    kids = children(call)
    callee = kids[0] if kids else None
    while callee is not None and callee.kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR, K.CALL_EXPR) and \
            callee.kind != K.LAMBDA_EXPR and children(callee):
        callee = children(callee)[0]
    return callee if callee is not None and callee.kind == K.LAMBDA_EXPR else None


def _is_dim3(t: ci.Type) -> bool:
    return t.get_canonical().get_declaration().spelling == "dim3"


def _is_optional_tensor(t: ci.Type) -> bool:
    """`c10::optional<torch::Tensor>` (std::optional of at::Tensor), by value or reference."""
    spelled = t.get_canonical().spelling
    return "optional<at::Tensor>" in spelled.replace(" ", "")


def is_tensor(t: ci.Type) -> bool:
    """`torch::Tensor` (at::Tensor), by value or reference."""
    canon = t.get_canonical()
    if canon.kind in (ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE):
        canon = canon.get_pointee().get_canonical()
    decl = canon.get_declaration()
    return decl.spelling == "Tensor" and decl.semantic_parent is not None and decl.semantic_parent.spelling == "at"


# ATen dtype constants (shim.h) -> element types
_DTYPES = {"kFloat": ct.FLOAT, "kFloat32": ct.FLOAT, "kDouble": ct.DOUBLE, "kFloat64": ct.DOUBLE,
           "kHalf": CType("float", 16), "kFloat16": CType("float", 16), "kBFloat16": CType("bfloat", 16),
           "kInt": ct.INT, "kInt32": ct.INT, "kLong": ct.INT64, "kInt64": ct.INT64, "kBool": ct.BOOL}
# element types -> the ATen ScalarType enumerator (shim.h, c10's names)
_SCALAR_TYPES = {"uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
                 "float16": "Half", "float32": "Float", "float64": "Double", "bool": "Bool", "bfloat16": "BFloat16"}
_ALLOCATE_LIKE = ("empty_like", "zeros_like", "ones_like", "full_like")
_ALLOCATE = ("empty", "zeros", "ones", "full")
# Allocations torch fills: the value (for `full`, its argument).
_FILLS = {"zeros": "0", "zeros_like": "0", "ones": "1", "ones_like": "1", "full": "full", "full_like": "full"}
_SAME_TENSOR = ("contiguous",)  # methods that return the tensor itself (as far as memory goes)


def _method_object(call: ci.Cursor) -> ci.Cursor | None:
    """`x` in `x.size(0)`."""
    kids = children(call)
    if kids and kids[0].kind == K.MEMBER_REF_EXPR and children(kids[0]):
        return children(kids[0])[0]
    return None


class HostReader:
    """Runs one host function symbolically and collects its launches."""

    def __init__(self, fn: ci.Cursor, shown: str, shapes: dict[str, tuple[str | int, ...]] | None = None,
                 sizes: dict[str, int] | None = None, fixed: dict[str, int | bool | None] | None = None,
                 dtypes: dict[str, str] | None = None):
        self.fn = fn
        self.shown = shown
        # Concrete sizes: values stay expressions over the parameters (a launch passes `n`, not 1000),
        # but each condition is decided at these sizes (a launch chosen by an `if`, a loop of launches,
        # a helper with a loop), and so is what only a number can be (`v | v >> 1`); None: symbolic.
        self.sizes = {symbolic.var(name): sympy.Integer(v) for name, v in sizes.items()} if sizes is not None else None
        # of the last `return` run (a host helper's result: a number, or a Dim3 for a helper returning dim3)
        self.return_value: sympy.Expr | Dim3 | None = None
        self.calls: list[ci.Cursor] = []  # the launchers this one is reading inside, innermost last
        # declaration -> expression | Dim3 | Buffer | None (unknown)
        self.values: dict[tuple[int, int], object] = {}
        self.returns = self._returned_locals()
        ranks = self._ranks()
        params = []
        self.tensor_params: list[Buffer] = []
        for p in (c for c in children(fn) if c.kind == K.PARM_DECL):
            if is_stream(p.type):
                continue
            if _is_optional_tensor(p.type) and p.spelling in (fixed or {}) and fixed[p.spelling] is None:
                self.values[decl_key(p)] = NULL  # `c10::optional<torch::Tensor> bias` given none
                continue
            if is_tensor(p.type) or _is_optional_tensor(p.type):
                given = (shapes or {}).get(p.spelling)
                if given is not None:
                    shape = tuple(symbolic.var(d) if isinstance(d, str) else sympy.Integer(d) for d in given)
                elif decl_key(p) in ranks:
                    shape = tuple(symbolic.var(f"{p.spelling}_size{k}") for k in range(ranks[decl_key(p)]))
                else:
                    shape = (symbolic.var(f"{p.spelling}_numel"),)
                # the binding's dtype (the spec's, or float32) until a `data_ptr<T>()` says otherwise
                given_dtype = ct.from_dtype((dtypes or {}).get(p.spelling, "")) or ct.FLOAT
                buffer = Buffer(p.spelling, CType("ptr", 64, False, given_dtype), shape=shape, tensor=True, typed=False)
                self.values[decl_key(p)] = buffer
                self.tensor_params.append(buffer)
                params.append((p.spelling, buffer.ctype, p))
                continue
            if ct.is_bundle(p.type):  # a struct of pointers and sizes: one entry parameter per member
                bundle = Bundle({})
                for leaf, path, t in ct.struct_leaves(p.type, p.spelling):
                    if t is None:
                        continue
                    params.append((leaf, t, p))
                    bundle.values[path] = Buffer(leaf, t) if t.kind == "ptr" else symbolic.var(leaf)
                self.values[decl_key(p)] = bundle
                continue
            t = ct.from_clang(p.type)
            if t is None or t.kind == "void" or (t.kind == "ptr" and t.elem is not None and t.elem.kind == "void"):
                raise self.unsupported(f"the launcher parameter `{p.spelling}` of type `{p.type.spelling}`", p)
            if t.kind == "ptr" and p.spelling in (fixed or {}) and fixed[p.spelling] is None:
                self.values[decl_key(p)] = NULL  # the spec's `none = true`: this launch goes without it
                continue
            params.append((p.spelling, t, p))
            if t.kind == "ptr":
                self.values[decl_key(p)] = Buffer(p.spelling, t)
            elif p.spelling in (fixed or {}):  # a spec's `value`: a flag that picks the launch, a mode
                self.values[decl_key(p)] = sympy.Integer(int(fixed[p.spelling]))
            else:
                self.values[decl_key(p)] = symbolic.var(p.spelling)
        self.result = HostFunction(fn, params)
        self.symbols = self.result.symbols
        # buffer name -> the buffer with the shape its parameter has (a view's operand text says its own)
        self.declared: dict[str, Buffer] = {b.name: b for b in self.tensor_params}

    def unsupported(self, what: str, cursor: ci.Cursor) -> Unsupported:
        return Unsupported(f"{what} is not supported in a CUDA host launcher", location(cursor, self.shown))

    def undecided(self, what: str, cursor: ci.Cursor) -> Exception:
        """`what` depends on the sizes: symbolically, lower again at concrete sizes (NeedsConcreteSizes);
        at concrete sizes it depends on something else lowercheck does not model (LC901)."""
        if self.sizes is None:
            where = location(cursor, self.shown)
            return NeedsConcreteSizes(f"{what} at {where.file}:{where.line} depends on the sizes")
        return self.unsupported(f"{what} (it depends on something lowercheck does not model)", cursor)

    def read(self) -> HostFunction:
        body = next((c for c in children(self.fn) if c.kind == K.COMPOUND_STMT), None)
        if body is not None:
            self.stmts(children(body))
        by_name = {b.name: b for b in self.tensor_params}
        self.result.params = [(name, by_name[name].ctype if name in by_name else t, cursor)
                              for name, t, cursor in self.result.params]
        self.result.shapes = {b.name: b.shape for b in self.tensor_params}
        self.result.returned.sort(key=lambda b: int(b.name.removeprefix("return")))
        return self.result

    # ------------------------------------------------------------ torch::Tensor
    def _returned_locals(self) -> dict[tuple[int, int], int]:
        """The local tensors a `return` statement returns, each with its position in what it returns
        (`return {out, stats};`: out is the first, stats the second)."""
        found: dict[tuple[int, int], int] = {}
        for c in walk(self.fn):
            if c.kind == K.RETURN_STMT and children(c):
                for position, item in enumerate(_returned_items(children(c)[0])):
                    target = _strip(item)
                    while target.kind == K.CALL_EXPR and len(children(target)) == 1:  # copy/move construction
                        target = _strip(children(target)[0])
                    if target.kind == K.DECL_REF_EXPR and target.referenced is not None and \
                            target.referenced.kind == K.VAR_DECL:
                        found.setdefault(decl_key(target.referenced), position)
        return found

    def _ranks(self) -> dict[tuple[int, int], int]:
        """For each tensor parameter, 1 + the largest dimension its `size(i)`/`stride(i)` uses name."""
        ranks: dict[tuple[int, int], int] = {}
        for c in walk(self.fn):
            if c.kind != K.CALL_EXPR or c.spelling not in ("size", "stride"):
                continue
            obj = _method_object(c)
            args = list(c.get_arguments())
            if obj is None or not args:
                continue
            obj = _strip(obj)
            k = evaluate(args[0])
            if obj.kind == K.DECL_REF_EXPR and obj.referenced is not None and isinstance(k, int) and k >= 0:
                key = decl_key(obj.referenced)
                ranks[key] = max(ranks.get(key, 0), k + 1)
        return ranks

    def tensor(self, e: ci.Cursor, name: str | None = None) -> Buffer:
        """The tensor an expression denotes: a tensor variable, a view of one (`x.contiguous()`,
        `x.view({n, -1})`), or the result of an ATen operator (`torch::mm(a, b)`: a step of the entry,
        its result a new buffer named `name` where given)."""
        c = _strip(e)
        while c.kind == K.CALL_EXPR and len(children(c)) == 1 and c.referenced is not None and \
                c.referenced.kind == K.CONSTRUCTOR:
            c = _strip(children(c)[0])
        if c.kind == K.DECL_REF_EXPR and c.referenced is not None:
            value = self.values.get(decl_key(c.referenced))
            if isinstance(value, Buffer) and value.tensor:
                return value
        if c.kind == K.CALL_EXPR and c.spelling in _SAME_TENSOR:
            obj = _method_object(c)
            if obj is not None:
                return self.tensor(obj)
        optional = _optional_held(c)
        if optional is not None:  # `bias.value()`, `*bias` of a `c10::optional<torch::Tensor>`
            return self.tensor(optional)
        if c.kind == K.CALL_EXPR and self.aten_name(c) is not None:
            return self.aten_call(c, name)
        raise self.unsupported(f"the tensor expression `{_text(e)}`", e)

    # ------------------------------------------------------------ ATen operators (aten.py)
    def aten_name(self, c: ci.Cursor) -> str | None:
        """The ATen function, Tensor method or operator a call names (`torch::mm`, `x.t()`, `a + b`)."""
        callee = called_function(c)
        if callee is None:
            return None
        obj = _method_object(c)
        if callee.kind == K.CXX_METHOD and obj is not None and is_tensor(obj.type):
            return c.spelling
        parent = callee.semantic_parent
        if callee.kind == K.FUNCTION_DECL and parent is not None and parent.spelling in ("at", "torch"):
            return c.spelling
        return None

    def _operands(self, c: ci.Cursor) -> list[tuple[object, str, aten.Shape | None]]:
        """(value, text, shape) of each operand of an ATen call, the tensor of a method call first;
        a defaulted argument and those after it are left to torch's defaults."""
        obj = _method_object(c)
        callee = called_function(c)
        found: list[tuple[object, str, aten.Shape | None]] = []
        if obj is not None and callee is not None and callee.kind == K.CXX_METHOD:
            buffer = self.tensor(obj)
            found.append((buffer, self._tensor_text(buffer), buffer.shape))
        for a in c.get_arguments():
            if self._default(a):
                break
            found.append(self._operand(a))
        return found

    def _operand(self, a: ci.Cursor) -> tuple[object, str, aten.Shape | None]:
        if is_tensor(a.type) or _is_optional_tensor(a.type):
            inner = _strip(a)
            if _is_optional_tensor(a.type) and (inner.kind in (K.INIT_LIST_EXPR,) and not children(inner)
                                               or "nullopt" in _text(a)):
                return None, "None", None
            buffer = self.tensor(a)
            return buffer, self._tensor_text(buffer), buffer.shape
        lists = [k for k in walk(a) if k.kind == K.INIT_LIST_EXPR]
        if lists and any(is_tensor(k.type) for k in children(lists[0])):  # `{a, b}`: a list of tensors
            buffers = [self.tensor(k) for k in children(lists[0])]
            return buffers, "[" + ", ".join(self._tensor_text(b) for b in buffers) + "]", None
        dtype = next((_DTYPES[k.spelling] for k in walk(a) if k.kind == K.DECL_REF_EXPR and k.spelling in _DTYPES), None)
        if dtype is not None and "ScalarType" in a.type.get_canonical().spelling:
            return dtype, f"torch.{dtype.dtype}", None
        if lists or _is_int_list(a.type):
            sizes = self.int_list(a)
            if sizes is None:  # one integer where a list is taken (`x.sum(0)`): IntArrayRef's constructor
                inner = _strip(a)
                while inner.kind == K.CALL_EXPR and inner.referenced is not None and \
                        inner.referenced.kind == K.CONSTRUCTOR and len(list(inner.get_arguments())) == 1:
                    inner = _strip(next(iter(inner.get_arguments())))
                sizes = [self.at_sizes(self.expr(inner))]
            values = aten.constant_list(sizes)
            return values, aten.operand_text(values), None
        if "TensorOptions" in a.type.get_canonical().spelling:
            return None, "None", None
        inner = _strip(a)
        while inner.kind == K.CALL_EXPR and inner.referenced is not None and \
                inner.referenced.kind == K.CONSTRUCTOR and len(list(inner.get_arguments())) == 1:
            inner = _strip(next(iter(inner.get_arguments())))  # `x.pow(2)`: c10::Scalar's constructor of 2
        value = self.at_sizes(self.expr(inner))
        if inner.type.get_canonical().kind == ci.TypeKind.BOOL and isinstance(value, sympy.Basic) and value.is_number:
            flag = bool(value)  # `mean({-1}, true)`: keepdim a bool, as torch takes it
            return flag, aten.operand_text(flag), None
        return aten.constant_list([value])[0], aten.operand_text(value), None

    def _tensor_text(self, buffer: Buffer) -> str:
        """A tensor operand: its buffer's name, with its shape where it is a view of other extents."""
        declared = self.declared.get(buffer.name)
        if declared is None or tuple(declared.shape) == tuple(buffer.shape):
            return buffer.name
        return f"{buffer.name}@{aten.operand_text(list(buffer.shape))}"

    def aten_call(self, c: ci.Cursor, name: str | None = None) -> Buffer:
        """An ATen call on tensors (`aten.py`): a view, a cast, an operator or an in-place operator."""
        spelled = self.aten_name(c) or ""
        op = spelled.removeprefix("operator").strip()
        method = aten.BINARY_OPERATORS.get(op) or aten.COMPOUND_OPERATORS.get(op) or spelled
        operands = self._operands(c)
        values = [v for v, _, _ in operands]
        shapes = [s for _, _, s in operands]
        texts = [t for _, t, _ in operands]
        first = next((v for v in values if isinstance(v, Buffer)), None)
        try:
            if method in aten.VIEWS and isinstance(first, Buffer):
                shape = aten.VIEWS[method](shapes, values)
                return Buffer(first.name, first.ctype, first.temp, tuple(shape), True, first.typed)
            if method in aten.CASTS and isinstance(first, Buffer):
                dtype = next((v for v in values[1:] if isinstance(v, CType)), None)
                if dtype is None and len(values) > 1 and isinstance(values[1], Buffer):
                    dtype = values[1].ctype.elem  # `type_as(y)`, `to(y)`
                if dtype is None and method in ("half", "bfloat16", "float_"):
                    dtype = {"half": CType("float", 16), "bfloat16": CType("bfloat", 16), "float_": ct.FLOAT}[method]
                if dtype is None or dtype == first.ctype.elem:  # `to(x.device())`, or its own type: itself
                    return first
                return self._step(c, "to", [texts[0], f"torch.{dtype.dtype}"], first.shape, dtype, name)
            if method in aten.IN_PLACE and isinstance(first, Buffer):
                self.result.operators.append(HostOp(c, aten.IN_PLACE[method], texts, first, len(self.result.launches)))
                return first
            if method in aten.OPERATORS:
                operator = aten.OPERATORS[method]
                shape = operator.shape(shapes, values)
                elem = first.ctype.elem if isinstance(first, Buffer) else ct.FLOAT
                return self._step(c, operator.target, texts, shape, elem, name)
        except aten.NotModelled as why:
            raise self.unsupported(f"the ATen call `{_text(c)}` ({why})", c) from None
        raise self.unsupported(f"the ATen call `{_text(c)}` (lowercheck models no `{spelled}` on tensors)", c)

    def _step(self, c: ci.Cursor, target: str, texts: list[str], shape: aten.Shape, elem: CType | None,
              name: str | None) -> Buffer:
        """A new tensor that torch computes (`kernel.aten` of the entry): a temporary until returned."""
        assert elem is not None
        taken = {b.name for b in (*self.result.temps, *self.result.returned, *self.tensor_params)}
        base = name or f"{target.rstrip('_')}_result"
        result_name = base if base not in taken else next(f"{base}_{k}" for k in range(1, 10**6)
                                                           if f"{base}_{k}" not in taken)
        buffer = Buffer(result_name, CType("ptr", 64, False, elem), temp=True, shape=tuple(shape), tensor=True)
        self.declared[result_name] = buffer
        self.result.temps.append(buffer)
        self.result.operators.append(HostOp(c, target, texts, buffer, len(self.result.launches)))
        return buffer

    def returned(self, buffer: Buffer, position: int) -> Buffer:
        """`buffer` as the function's result at `position` (`return0`, ...): a tensor it computed."""
        if not buffer.temp:
            if buffer in self.result.returned:
                return buffer
            raise self.unsupported(f"returning the tensor `{buffer.name}` it was given", self.fn)
        old = buffer.name
        buffer.name, buffer.temp = f"return{position}", False
        self.declared[buffer.name] = self.declared.pop(old, buffer)
        if buffer in self.result.temps:
            self.result.temps.remove(buffer)
        self.result.returned.append(buffer)
        return buffer

    def allocation(self, var: ci.Cursor, init: ci.Cursor) -> Buffer:
        """`torch::empty_like(x)`, `torch::zeros({n, m}, x.options())`, ...: a new tensor, named
        `return0` when the function returns it."""
        c = _strip(init)
        while c.kind == K.CALL_EXPR and len(children(c)) == 1 and c.referenced is not None and \
                c.referenced.kind == K.CONSTRUCTOR:
            c = _strip(children(c)[0])
        returned = decl_key(var) in self.returns
        name = f"return{self.returns[decl_key(var)]}" if returned else var.spelling
        args = list(c.get_arguments()) if c.kind == K.CALL_EXPR else []
        if c.kind == K.CALL_EXPR and c.spelling in _ALLOCATE_LIKE and args:
            like = self.tensor(args[0])
            options = 2 if c.spelling == "full_like" else 1  # `full_like(x, value, options)`
            dtype = self._dtype(args[options]) if len(args) > options else None
            shape, elem, typed = like.shape, dtype or like.ctype.elem, dtype is not None or like.typed
        elif c.kind == K.CALL_EXPR and c.spelling in _ALLOCATE and args:
            shape = self._sizes(args[0])
            options = 2 if c.spelling == "full" else 1  # `full(sizes, value, options)`
            dtype = self._dtype(args[options]) if len(args) > options else None
            like = self._options_of(args[options]) if len(args) > options else None
            elem = dtype or (like.ctype.elem if like is not None else ct.FLOAT)
            typed = dtype is not None or (like is not None and like.typed)
        else:
            # `auto y = x;`, `x.contiguous()`: the same memory; `torch::mm(a, b)`: a new tensor
            existing = self.tensor(init, var.spelling)
            return self.returned(existing, self.returns[decl_key(var)]) if returned and existing.temp else existing
        assert elem is not None
        buffer = Buffer(name, CType("ptr", 64, False, elem), temp=not returned, shape=tuple(shape),
                        tensor=True, typed=typed)
        self.declared.setdefault(name, buffer)
        if returned:
            self.result.returned.append(buffer)
        fill = _FILLS.get(c.spelling)
        if fill is not None:  # torch fills it before any launch reads it: a step of the entry
            value = fill if fill != "full" else aten.operand_text(self.at_sizes(self.expr(args[1])))
            if buffer.temp and buffer not in self.result.temps:
                self.result.temps.append(buffer)
            self.result.operators.append(HostOp(c, "fill_", [buffer.name, value], buffer, len(self.result.launches)))
        return buffer

    def _sizes(self, e: ci.Cursor) -> list[sympy.Expr]:
        """`{n, m}` (an IntArrayRef from a braced list), `x.sizes()`, or a list of sizes the host
        function built (`std::vector<int64_t> shape = x.sizes().vec(); shape[1] = 1;`)."""
        found = self.int_list(e)
        if found is not None:
            return found
        raise self.unsupported(f"the tensor sizes `{_text(_strip(e))}`", e)

    def int_list(self, e: ci.Cursor) -> list[sympy.Expr] | None:
        """The integers a list expression holds: a braced list, `x.sizes()` (`.vec()`), a local
        `std::vector<int64_t>` or `IntArrayRef`; None for anything else."""
        c = _strip(e)
        while c.kind == K.CALL_EXPR and len(children(c)) == 1 and c.referenced is not None and \
                c.referenced.kind == K.CONSTRUCTOR:
            c = _strip(children(c)[0])
        if c.kind == K.INIT_LIST_EXPR:
            return [self.expr(k) for k in children(c) if k.kind.is_expression()]
        if c.kind == K.DECL_REF_EXPR and c.referenced is not None:
            value = self.values.get(decl_key(c.referenced))
            return list(value) if isinstance(value, list) else None
        if c.kind == K.CALL_EXPR and c.spelling in ("vec", "sizes", "strides") and _method_object(c) is not None:
            obj = _method_object(c)
            if c.spelling == "vec":
                return self.int_list(obj)
            buffer = self.tensor(obj)
            if c.spelling == "sizes":
                return list(buffer.shape)
            return [sympy.Mul(*buffer.shape[k + 1:]) for k in range(len(buffer.shape))]  # contiguous strides
        lists = [k for k in walk(e) if k.kind == K.INIT_LIST_EXPR]
        if lists and _is_int_list(e.type):
            return [self.expr(k) for k in children(lists[0]) if k.kind.is_expression()]
        return None

    def scalar_type(self, e: ci.Cursor, buffer: Buffer) -> sympy.Expr:
        buffer.typed = True  # what the dispatch chose it as, from here on
        elem = buffer.ctype.elem
        enum = e.type.get_canonical().get_declaration()
        values = {c.spelling: c.enum_value for c in children(enum) if c.kind == K.ENUM_CONSTANT_DECL}
        wanted = _SCALAR_TYPES.get(elem.dtype if elem is not None else "")
        if wanted not in values:
            raise self.unsupported(f"the element type of `{buffer.name}` as an ATen ScalarType", e)
        return sympy.Integer(values[wanted])

    def _dtype(self, e: ci.Cursor) -> CType | None:
        """The element type an options expression names (`torch::kFloat32`, `.dtype(torch::kHalf)`)."""
        for c in walk(e):
            if c.kind == K.DECL_REF_EXPR and c.spelling in _DTYPES:
                return _DTYPES[c.spelling]
        return None

    def _options_of(self, e: ci.Cursor) -> Buffer | None:
        """The tensor in `x.options()`, whose dtype a new tensor takes."""
        for c in walk(e):
            obj = _method_object(c) if c.kind == K.CALL_EXPR else None
            if obj is not None and c.spelling in ("options", "dtype", "scalar_type") and is_tensor(obj.type):
                return self.tensor(obj)
        return None

    def tensor_method(self, e: ci.Cursor, buffer: Buffer) -> sympy.Expr:
        """`x.size(i)`, `x.numel()`, `x.stride(i)` (contiguous), `x.dim()`; `x.scalar_type()` (what
        `AT_DISPATCH_*` switches on): the ScalarType of its element type, a tensor not typed yet
        being the binding's dtype (the spec's, else float32), and typed so from here on."""
        name = e.spelling
        args = list(e.get_arguments())
        rank = len(buffer.shape)
        if name in ("scalar_type", "dtype"):
            return self.scalar_type(e, buffer)
        if name == "numel":
            return sympy.Mul(*buffer.shape)
        if name in ("dim", "ndimension"):
            return sympy.Integer(rank)
        if name in ("defined", "is_cuda", "is_contiguous"):  # what lowercheck passes: defined, contiguous, on the GPU
            return sympy.Integer(1)
        if name == "requires_grad":
            return sympy.Integer(0)
        if name == "is_floating_point":
            return sympy.Integer(int(buffer.ctype.elem is not None and buffer.ctype.elem.is_float))
        if name in ("element_size", "itemsize"):
            return sympy.Integer(max((buffer.ctype.elem.bits if buffer.ctype.elem is not None else 32) // 8, 1))
        if name == "nbytes":
            return sympy.Mul(*buffer.shape) * max((buffer.ctype.elem.bits if buffer.ctype.elem is not None else 32) // 8, 1)
        if name in ("size", "stride") and args:
            k = evaluate(args[0])
            if not isinstance(k, int) or not -rank <= k < rank:
                raise self.unsupported(f"`{_text(e)}` (dimension out of the {rank} known)", e)
            k %= rank
            return buffer.shape[k] if name == "size" else sympy.Mul(*buffer.shape[k + 1:])
        raise self.unsupported(f"the tensor method `{name}` here", e)

    def _launch_arg(self, a: ci.Cursor, param: ci.Cursor | None = None) -> str:
        t = ct.from_clang(a.type)
        to_pointer = param is None or param.type.get_canonical().kind == ci.TypeKind.POINTER
        if to_pointer and self._null(a):  # `nullptr` for an optional input the kernel does not read
            return self._null_buffer(a, param).name
        if (t is not None and t.kind == "ptr") or a.type.get_canonical().kind == ci.TypeKind.POINTER:
            buffer = self.buffer(a)  # a pointer to structs too (`(const Row*)rows`): the same buffer
            base = buffer.base if isinstance(buffer, View) else buffer
            if base.temp and base not in self.result.temps:
                self.result.temps.append(base)
            if isinstance(buffer, View):
                formal = ct.from_clang(param.type) if param is not None else None
                if formal is None or formal.elem is None or base.ctype.elem is None \
                        or formal.elem.scalar.ir != base.ctype.elem.ir:
                    raise self.unsupported(f"passing `{_text(a)}` (a part of `{base.name}`) as a pointer of "
                                           "another element type", a)
                return buffer.shown
            return buffer.name
        return symbolic.format(self.expr(a))

    # ------------------------------------------------------------ statements
    def stmts(self, stmts: list[ci.Cursor]) -> bool:
        """Returns False after a `return` (what follows does not run; `return_value` holds its value).

        An `if` whose condition is decided (a constant, or concrete sizes) runs its chosen arm, launches
        and all; one that is not merges what the arms assign (`branch`), and if it launches, it needs
        concrete sizes. A loop whose conditions are decided is run trip by trip (`loop`)."""
        for s in stmts:
            if s.kind == K.RETURN_STMT:
                value = [k for k in children(s) if k.kind.is_expression()]
                if value and _strip(value[0]).kind == K.CALL_EXPR and (
                        _lambda_called(_strip(value[0])) is not None or launched_kernel(_strip(value[0])) is not None):
                    self.effect(value[0])  # `return __VA_ARGS__();` of AT_DISPATCH: the lambda runs
                if value and not self.calls and _returned_items(value[0]) and \
                        all(is_tensor(item.type) for item in _returned_items(value[0])):
                    for position, item in enumerate(_returned_items(value[0])):
                        buffer = self.tensor(item, "result")
                        if buffer.temp:  # `return torch::mm(a, b);`, `return {y, z};` of computed tensors
                            self.returned(buffer, position)
                self.return_value = self.try_value(value[0]) if value else None
                return False
            if s.kind == K.COMPOUND_STMT:
                if not self.stmts(children(s)):
                    return False
            elif s.kind == K.DECL_STMT:
                for var in children(s):
                    if var.kind == K.VAR_DECL:
                        self.declare(var)
            elif s.kind.is_expression():
                self.effect(s)
            elif s.kind == K.IF_STMT and len(children(s)) in (2, 3):
                cond, *arms = children(s)
                decided = self.condition(cond)
                if decided is not None:
                    chosen = arms[0] if decided else arms[1] if len(arms) > 1 else None
                    if chosen is not None and not self.stmts([chosen]):
                        return False
                elif launches_reached(s):
                    raise self.undecided("the launch an `if` chooses", s)
                elif not self.branch(s):
                    return False
            elif s.kind in (K.FOR_STMT, K.WHILE_STMT):
                if not self.loop(s):
                    return False
            elif s.kind == K.SWITCH_STMT:
                if not self.switch(s):
                    return False
            elif launches_reached(s):
                raise self.unsupported(f"a kernel launch inside `{s.kind.name.lower()}`", s)
            else:
                self.forget(s)
        return True

    def switch(self, s: ci.Cursor) -> bool:
        """`switch (v) { case A: ...; break; default: ... }` where `v` is decided (a constant, a spec's
        value, concrete sizes): the statements from the matching label (else `default`) up to the
        first `break`, falling through other labels, as C runs them. Undecided: what it assigns
        becomes unknown, and if it launches, it needs concrete sizes. False after a `return`."""
        cond, body = children(s)[-2:]
        value = self.try_expr(cond)
        value = self.at_sizes(value) if value is not None else None
        flat = _switch_body(body)
        start = None
        if isinstance(value, sympy.Basic) and value.is_number and flat is not None:
            labels = {i: "default" if label == "default" else self.try_expr(label)
                      for i, (label, _) in enumerate(flat) if label is not None}
            if None not in labels.values():
                chosen = [i for i, v in labels.items() if v == value] or \
                         [i for i, v in labels.items() if v == "default"]
                start = chosen[0] if chosen else len(flat)
        if start is None:
            if launches_reached(s):
                raise self.undecided("the launch a `switch` chooses", s)
            self.forget(s)
            return True
        for _, stmt in flat[start:]:
            if stmt is not None and stmt.kind == K.BREAK_STMT:
                break
            if stmt is not None and not self.stmts([stmt]):
                return False
        return True

    # More trips than any launcher's loop of launches makes: a longer loop is not followed.
    _MAX_TRIPS = 4096

    def loop(self, s: ci.Cursor) -> bool:
        """`for (init; cond; step) body` / `while (cond) body`, run trip by trip while each condition is
        decided (a loop of launches, a helper's `while (p < n) p *= 2;`). A loop whose condition is not
        decided: what it assigns becomes unknown, and if it launches, it needs concrete sizes."""
        kids = children(s)
        if s.kind == K.FOR_STMT and len(kids) == 4:
            init, cond, step, body = kids
        elif s.kind == K.WHILE_STMT and len(kids) == 2:
            init, step, (cond, body) = None, None, kids
        else:
            init = cond = step = body = None
        jumps = body is not None and any(c.kind in (K.BREAK_STMT, K.CONTINUE_STMT, K.GOTO_STMT) for c in walk(body))
        before = self.values
        if cond is not None and not jumps:
            self.values = dict(before)
            if init is not None:
                self.stmts([init])
            for _ in range(self._MAX_TRIPS):
                decided = self.condition(cond)
                if decided is None:
                    break
                if not decided:
                    return True
                if not self.stmts([body]):
                    return False
                if step is not None:
                    self.effect(step)
        self.values = before
        if launches_reached(s):
            raise self.undecided("the number of launches a loop makes", s)
        self.forget(s)  # what the loop assigns becomes unknown
        return True

    def at_sizes(self, value: sympy.Expr) -> sympy.Expr:
        """`value` at the concrete sizes (itself when lowering symbolically)."""
        return value.subs(self.sizes) if self.sizes and isinstance(value, sympy.Basic) else value

    def condition(self, cond: ci.Cursor) -> bool | None:
        """The truth of a condition where it is decided (constants, concrete sizes), else None. A
        buffer is never null (lowercheck passes one for each pointer parameter): `if (bias)` holds."""
        if self._is_buffer(cond):
            return True
        value = self.try_expr(cond)
        if isinstance(value, sympy.Basic) and self.sizes:
            value = value.subs(self.sizes)
        if value is sympy.true or value is sympy.false:
            return bool(value)
        if isinstance(value, sympy.Basic) and value.is_number:
            return bool(value != 0)
        return None

    def branch(self, s: ci.Cursor) -> bool:
        """An `if` without launches: a branch that returns leaves the other's values (`if (n == 0)
        return;`); a variable both paths set is their Min/Max where the condition compares the two
        values (`if (grid > 16) grid = 16;`), unknown otherwise. False when both branches return."""
        cond, *arms = children(s)
        before = self.values
        outcomes = []
        for arm in arms + [None] * (2 - len(arms)):
            self.values = dict(before)
            falls_through = self.stmts([arm]) if arm is not None else True
            outcomes.append((falls_through, self.values))
        (then_falls, then_values), (else_falls, else_values) = outcomes
        if not (then_falls or else_falls):
            self.values = before
            return False
        if not then_falls or not else_falls:
            self.values = then_values if then_falls else else_values
            return True
        self.values = before  # the condition reads the values from before the `if`
        merged = {}
        for key, old in before.items():
            yes, no = then_values.get(key, old), else_values.get(key, old)
            merged[key] = yes if yes is no or yes == no else self.select(cond, yes, no)
        self.values = merged
        return True

    def select(self, cond: ci.Cursor, yes: object, no: object) -> sympy.Expr | None:
        """`cond ? yes : no` as Max(yes, no) when `cond` holds exactly when yes >= no (or yes > no,
        the same where they are equal) over the integers, Min when it holds exactly when yes <= no;
        else None. `if (grid > 16) grid = 16` is Min(grid, 16); `n > 0 ? n : 1` is Max(n, 1)."""
        c = _strip(cond)
        if not (isinstance(yes, sympy.Basic) and isinstance(no, sympy.Basic)) or \
                c.kind != K.BINARY_OPERATOR or c.binary_operator not in _AT_LEAST_ZERO:
            return None
        lhs, rhs = (self.try_expr(k) for k in children(c))
        if lhs is None or rhs is None:
            return None
        holds = _AT_LEAST_ZERO[c.binary_operator](lhs, rhs)  # cond  <=>  holds >= 0
        for rule, pick in ((B.GE, sympy.Max), (B.GT, sympy.Max), (B.LE, sympy.Min), (B.LT, sympy.Min)):
            if sympy.expand(holds - _AT_LEAST_ZERO[rule](yes, no)) == 0:
                return pick(yes, no)
        return None

    def forget(self, s: ci.Cursor) -> None:
        """What `s` assigns becomes unknown."""
        for c in walk(s):
            decl = assigned_decl(c, self.shown)
            if decl is not None and decl_key(decl) in self.values:
                self.values[decl_key(decl)] = None

    def declare(self, var: ci.Cursor) -> None:
        init = [c for c in children(var) if c.kind.is_expression()]
        if is_tensor(var.type):
            if not init:
                raise self.unsupported(f"the tensor `{var.spelling}` declared without a value", var)
            self.values[decl_key(var)] = self.allocation(var, init[-1])
            return
        if _is_dim3(var.type):
            self.values[decl_key(var)] = self.dim3(init[-1]) if init else (sympy.Integer(1),) * 3
            return
        if _is_int_list(var.type):  # `std::vector<int64_t> shape = x.sizes().vec();`, `auto sizes = x.sizes();`
            self.values[decl_key(var)] = self.int_list(init[-1]) if init else []
            return
        if ct.is_bundle(var.type) and init:
            self.values[decl_key(var)] = self._local_bundle(var, init[-1])
            return
        t = ct.from_clang(var.type)
        if t is None:
            self.values[decl_key(var)] = None
            return
        if t.kind == "ptr":
            if init and self._null(init[-1]):  # `float* workspace = nullptr;` (set later, or passed as null)
                self.values[decl_key(var)] = NULL
                return
            self.values[decl_key(var)] = self.buffer(init[-1]) if init else Buffer(var.spelling, t, temp=True)
            return
        self.values[decl_key(var)] = self.try_expr(init[-1]) if init else None

    def effect(self, e: ci.Cursor) -> None:
        c = _strip(e)
        if c.kind == K.CALL_EXPR:
            kernel = launched_kernel(c)
            if kernel is not None:
                return self.launch(c, kernel)
            lam = _lambda_called(c)
            if lam is not None:  # `[&] { ... }()` (AT_DISPATCH_*'s body): its statements, in place
                body = next((k for k in children(lam) if k.kind == K.COMPOUND_STMT), None)
                if body is not None:
                    saved = self.return_value
                    self.stmts(children(body))  # its `return` ends the lambda, not the launcher
                    self.return_value = saved
                return None
            if c.spelling == "operator=" and children(c) and is_tensor(c.type):  # `x = x.contiguous();`
                target = _strip(list(c.get_arguments())[0]) if list(c.get_arguments()) else None
                kids = [k for k in children(c) if k.kind.is_expression()]
                target = _strip(kids[0]) if kids else target
                if target is not None and target.kind == K.DECL_REF_EXPR and target.referenced is not None:
                    self.values[decl_key(target.referenced)] = self.tensor(kids[-1], target.spelling)
                    return None
            if self.aten_name(c) is not None and not launches_reached(c):  # `out.zero_()`, `y += b`
                self.aten_call(c)
                return None
            if c.spelling in ("cudaMalloc", "cudaMallocManaged"):
                return self.malloc(c)
            if c.spelling in ("cudaMemcpyToSymbol", "cudaMemcpyToSymbolAsync"):
                return self.to_symbol(c)
            callee = host_callee(c)
            if callee is not None and len(self.calls) < _CALL_DEPTH and callee not in self.calls \
                    and launches_reached(callee):
                return self.call_launcher(c, callee)
            return None
        if c.kind == K.CALL_EXPR and c.spelling in ("push_back", "emplace_back") and _method_object(c) is not None \
                and _is_int_list(_method_object(c).type):  # `shape.push_back(n);`
            held = _strip(_method_object(c))
            listed = self.int_list(held)
            if listed is not None and held.kind == K.DECL_REF_EXPR:
                self.values[decl_key(held.referenced)] = listed + [self.expr(next(iter(c.get_arguments())))]
                return None
        if c.kind == K.BINARY_OPERATOR and c.binary_operator == B.Assign and \
                _strip(children(c)[0]).kind == K.CALL_EXPR and _strip(children(c)[0]).spelling == "operator[]":
            element = _strip(children(c)[0])  # `shape[1] = 1;` of an integer list
            listed, index = self._list_item(element)
            kids = [k for k in children(element) if k.kind.is_expression()]
            holder = _strip(kids[0]) if kids else None
            if listed is not None and holder is not None and holder.kind == K.DECL_REF_EXPR:
                listed[index] = self.expr(children(c)[1])
                self.values[decl_key(holder.referenced)] = listed
                return None
        if c.kind == K.BINARY_OPERATOR and c.binary_operator == B.Assign:
            target, value = children(c)
            target = _strip(target)
            if target.kind == K.DECL_REF_EXPR and target.referenced is not None:
                if _is_dim3(target.type):
                    self.values[decl_key(target.referenced)] = self.dim3(value)
                else:
                    self.values[decl_key(target.referenced)] = self.try_expr(value)
            return None
        if self._update_extent(c):  # `block.x >>= 1`, `grid.y = m`
            return None
        updated = self._update(c)
        if updated is not None:  # `x += e`, `++i`: the variable's new value
            decl, value = updated
            self.values[decl_key(decl)] = value
            return None
        self.forget(c)
        return None

    def _update_extent(self, c: ci.Cursor) -> bool:
        """`d.x = e` / `d.x OP= e` on a local dim3: that extent's new value (unknown if not known)."""
        if c.kind not in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR) or len(children(c)) != 2:
            return False
        target, value = children(c)
        target = _strip(target)
        if target.kind != K.MEMBER_REF_EXPR or not children(target) or not _is_dim3(children(target)[0].type):
            return False
        base = _strip(children(target)[0])
        axis = "xyz".find(member_name(target))
        if base.kind != K.DECL_REF_EXPR or base.referenced is None or axis < 0:
            return False
        key = decl_key(base.referenced)
        extents = self.values.get(key)
        if not isinstance(extents, tuple):
            return False
        new = self.try_expr(value)
        if c.kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
            op = next((_COMPOUND[t.spelling] for t in c.get_tokens() if t.spelling in _COMPOUND), None)
            new = _HOST_BINARY[op](extents[axis], new, True) if op is not None and new is not None else None
        elif c.binary_operator != B.Assign:
            return False
        if new is None:
            self.values[key] = None
        else:
            self.values[key] = tuple(new if k == axis else e for k, e in enumerate(extents))
        return True

    def _update(self, c: ci.Cursor) -> tuple[ci.Cursor, sympy.Expr | None] | None:
        """`x OP= e`, `++x`, `x--` on a local integer: the variable and its new value (None: unknown)."""
        decl = assigned_decl(c, self.shown)
        if decl is None or decl_key(decl) not in self.values or isinstance(self.values[decl_key(decl)], (Buffer, tuple)):
            return None
        old = self.values[decl_key(decl)]
        integer = ct.from_clang(decl.type) is not None and ct.from_clang(decl.type).is_int
        if c.kind == K.UNARY_OPERATOR:
            step = sympy.Integer(1 if unary_operator(c, self.shown).endswith("++") else -1)
            return decl, (old + step if isinstance(old, sympy.Basic) else None)
        op = next((_COMPOUND[t.spelling] for t in c.get_tokens() if t.spelling in _COMPOUND), None)
        value = self.try_expr(children(c)[1])
        if op is None or not isinstance(old, sympy.Basic) or value is None:
            return decl, None
        return decl, self.arithmetic(op, old, value, integer, c)

    def call_launcher(self, call: ci.Cursor, callee: ci.Cursor) -> None:
        """A host function that launches, called from this one (`launch(...)` calling
        `launch_impl<T>(...)`): read in place, its parameters bound to the caller's buffers and
        values; its locals end with it, its launches are this launcher's."""
        params = [p for p in children(callee) if p.kind == K.PARM_DECL]
        args = list(call.get_arguments())
        if len(params) != len(args):
            raise self.unsupported(f"calling `{callee.spelling}` with default arguments", call)
        bound: dict[tuple[int, int], object] = {}
        for p, a in zip(params, args, strict=True):
            t = ct.from_clang(p.type)
            if is_stream(p.type):
                continue
            if is_tensor(p.type):
                bound[decl_key(p)] = self.tensor(a)
            elif t is not None and t.kind == "ptr":
                bound[decl_key(p)] = NULL if self._null(a) else self.buffer(a)
            elif _is_dim3(p.type):
                bound[decl_key(p)] = self.dim3(a)
            elif ct.is_bundle(p.type):
                bound[decl_key(p)] = self._bundle(a)
            else:
                bound[decl_key(p)] = self.try_expr(a)
        body = next((c for c in children(callee) if c.kind == K.COMPOUND_STMT), None)
        saved, saved_return = dict(self.values), self.return_value
        self.values.update(bound)
        self.calls.append(callee)
        try:
            if body is not None:
                self.stmts(children(body))
        finally:
            self.calls.pop()
            self.values, self.return_value = saved, saved_return

    def malloc(self, call: ci.Cursor) -> None:
        args = list(call.get_arguments())
        if len(args) < 2:
            return
        target = _strip(args[0])
        if target.kind == K.UNARY_OPERATOR:
            target = _strip(children(target)[0])
        if target.kind != K.DECL_REF_EXPR or target.referenced is None:
            return
        buffer = self.values.get(decl_key(target.referenced))
        if not isinstance(buffer, Buffer):
            return
        bytes_ = self.try_expr(args[1])
        assert buffer.ctype.elem is not None
        size = max(buffer.ctype.elem.bits // 8, 1)
        buffer.temp = True
        buffer.shape = (sympy.floor(bytes_ / size),) if bytes_ is not None else ()

    def to_symbol(self, call: ci.Cursor) -> None:
        """`cudaMemcpyToSymbol(coeffs, src, bytes)`: the kernels' `__constant__` `coeffs` holds the
        buffer `src` (a parameter or an allocation of the launcher); from elsewhere (a host array):
        the constant stays an input of its own."""
        args = list(call.get_arguments())
        if len(args) < 2:
            return
        symbol = _strip(args[0])
        if symbol.kind != K.DECL_REF_EXPR or symbol.referenced is None:
            return
        try:
            source = self.buffer(args[1])
        except Unsupported:
            return
        self.symbols[symbol.referenced.spelling] = source.name

    def buffer(self, e: ci.Cursor) -> Buffer:
        c = _strip(e)
        if c.kind == K.CALL_EXPR and c.spelling in ("data_ptr", "data") and _method_object(c) is not None:
            buffer = self.tensor(_method_object(c))
            t = ct.from_clang(e.type)  # `x.data_ptr<float>()`, or `(float*)x.data_ptr()`
            if t is not None and t.kind == "ptr" and t.elem is not None and t.elem.kind != "void":
                if not buffer.typed:
                    buffer.ctype, buffer.typed = CType("ptr", 64, False, t.elem.scalar), True
                elif buffer.ctype.elem != t.elem.scalar:
                    held = buffer.ctype.elem.dtype if buffer.ctype.elem is not None else "?"
                    raise self.unsupported(f"reading the {held} tensor `{buffer.name}` as {t.elem.dtype}", e)
            return buffer
        if c.kind == K.DECL_REF_EXPR and isinstance(self.values.get(decl_key(c.referenced)), (Buffer, View)):
            return self.values[decl_key(c.referenced)]
        if c.kind == K.BINARY_OPERATOR and c.binary_operator in (B.Add, B.Sub):
            view = self._view(c)
            if view is not None:
                return view
        if self._null(c):
            raise self.unsupported(f"passing the null pointer `{_text(e)}` to a kernel", e)
        raise self.unsupported(f"the pointer expression `{_text(e)}` (pass a parameter or a cudaMalloc'ed buffer)", e)

    def _local_bundle(self, var: ci.Cursor, init: ci.Cursor) -> Bundle:
        """A struct of values the launcher gets from elsewhere (`std::pair<uint64_t, uint64_t> seed =
        TrainingContext::Instance().IncrementOffset(inc)`: a generator's seed and offset): a copy of
        another bundle is that bundle; otherwise each scalar member is an input of the entry of its
        own (`seed_first`, `seed_second`), drawn like any input, the same for both sides of a diff."""
        try:
            return self._bundle(init)
        except Unsupported:
            pass
        bundle = Bundle({})
        for leaf, path, t in ct.struct_leaves(var.type, var.spelling):
            if t is None or t.kind == "ptr":
                continue  # a pointer from elsewhere is no buffer here: a kernel reading it is not lowered
            if any(name == leaf for name, _, _ in self.result.params):
                raise self.unsupported(f"the struct `{var.spelling}` (its member `{leaf}` names a parameter)", var)
            self.result.params.append((leaf, t, var))
            bundle.values[path] = symbolic.var(leaf)
        return bundle

    def _view(self, e: ci.Cursor) -> View | None:
        """`p + k` (`k + p`, `p - k`) of a buffer `p`: the buffer from element k on, k counted in
        elements of `p`'s pointee (`(const uint4*)w + k`: 4k of the int buffer w)."""
        lhs, rhs = children(e)
        pointer, count = (lhs, rhs) if lhs.type.get_canonical().kind == ci.TypeKind.POINTER else (rhs, lhs)
        if pointer.type.get_canonical().kind != ci.TypeKind.POINTER or (pointer is rhs and e.binary_operator == B.Sub):
            return None
        inner = self.buffer(pointer)
        base, start = (inner.base, inner.offset) if isinstance(inner, View) else (inner, sympy.Integer(0))
        pointee, elem = ct.from_clang(pointer.type), base.ctype.elem
        if pointee is None or pointee.elem is None or elem is None or pointee.elem.width % elem.width:
            raise self.unsupported(f"the pointer arithmetic `{_text(e)}`", e)
        step = self.expr(count) * (pointee.elem.width // elem.width)
        return View(base, sympy.expand(start + step if e.binary_operator == B.Add else start - step))

    def _bundle(self, e: ci.Cursor) -> Bundle:
        c = _strip(e)
        while c.kind == K.CALL_EXPR and c.referenced is not None and c.referenced.kind == K.CONSTRUCTOR \
                and len(list(c.get_arguments())) == 1:  # the implicit copy of a struct passed by value
            c = _strip(next(iter(c.get_arguments())))
        value = self.values.get(decl_key(c.referenced)) if c.kind == K.DECL_REF_EXPR and c.referenced else None
        if not isinstance(value, Bundle):
            raise self.unsupported(f"the struct argument `{_text(e)}` (pass the launcher's own parameter)", e)
        return value

    def launch(self, call: ci.Cursor, kernel: ci.Cursor) -> None:
        config = next(c for c in children(call) if c.kind == K.CALL_EXPR and c.spelling == "cudaConfigureCall")
        config_args = list(config.get_arguments())
        grid, block = self.dim3(config_args[0]), self.dim3(config_args[1])
        params = [c for c in children(kernel) if c.kind == K.PARM_DECL]
        args: list[str] = []
        nulls: set[str] = set()
        for i, a in enumerate(call.get_arguments()):
            if i < len(params) and ct.is_bundle(params[i].type):  # a struct by value: each member it bundles
                bundle = self._bundle(a)
                for _, path, t in ct.struct_leaves(params[i].type, params[i].spelling):
                    if t is not None:
                        value = bundle.values.get(path)
                        if value is None:
                            raise self.unsupported(f"the member `{'.'.join(path)}` of `{_text(a)}`", a)
                        args.append(value.name if isinstance(value, Buffer) else symbolic.format(value))
                continue
            param = params[i] if i < len(params) else None
            if param is not None and param.type.get_canonical().kind == ci.TypeKind.POINTER and self._null(a):
                nulls.add(param.spelling)
            args.append(self._launch_arg(a, param))
        shared = None
        if len(config_args) > 2 and not self._default(config_args[2]):
            shared = self.expr(config_args[2])
            shared = None if shared == 0 else shared  # `<<<g, b, 0, stream>>>`: none
        self.result.launches.append(Launch(call, kernel, grid, block, args, shared, frozenset(nulls)))

    # ------------------------------------------------------------ expressions
    def dim3(self, e: ci.Cursor) -> Dim3:
        c = e
        while c.kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR) and len(children(c)) == 1:
            c = children(c)[0]
        if c.kind == K.DECL_REF_EXPR and c.referenced is not None and _is_dim3(c.type):
            value = self.values.get(decl_key(c.referenced))
            if value is None:
                raise self.undecided(f"the launch extent `{c.spelling}`, computed under control flow", e)
            return value  # type: ignore[return-value]  # a dim3 local holds a Dim3
        callee = called_function(c) if c.kind == K.CALL_EXPR else None
        if callee is not None and callee.kind == K.FUNCTION_DECL and _is_dim3(c.type):  # `dim3 g = grid_of(n);`
            value = self.helper(c, callee)
            if not isinstance(value, tuple):
                raise self.unsupported(f"the launch extent `{_text(e)}`", e)
            return value
        if c.kind in (K.CALL_EXPR, K.INIT_LIST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR) and _is_dim3(c.type):
            kids = [k for k in children(c) if k.kind.is_expression()]
            if len(kids) == 1 and _is_dim3(kids[0].type):
                return self.dim3(kids[0])
            extents = [sympy.Integer(1) if self._default(k) else self.expr(k) for k in kids]
            extents += [sympy.Integer(1)] * (3 - len(extents))
            return tuple(extents[:3])  # type: ignore[return-value] # always three extents: the list was padded above
        if not _is_dim3(c.type):
            return (self.expr(c), sympy.Integer(1), sympy.Integer(1))
        raise self.unsupported(f"the launch extent `{_text(e)}`", e)

    @staticmethod
    def _default(c: ci.Cursor) -> bool:
        """A defaulted constructor argument (clang's CXXDefaultArgExpr has no children or tokens)."""
        while c.kind == K.UNEXPOSED_EXPR and len(children(c)) == 1:
            c = children(c)[0]
        return c.kind == K.UNEXPOSED_EXPR and not children(c)

    def try_expr(self, e: ci.Cursor) -> sympy.Expr | None:
        try:
            return self.expr(e)
        except Unsupported:
            return None

    def try_value(self, e: ci.Cursor) -> sympy.Expr | Dim3 | None:
        """A dim3's extents or a number's expression; None where not modelled."""
        try:
            return self.dim3(e) if _is_dim3(e.type) else self.expr(e)
        except Unsupported:
            return None

    def expr(self, e: ci.Cursor) -> sympy.Expr:
        value = evaluate(e) if e.kind != K.DECL_REF_EXPR else None
        if isinstance(value, int):
            return sympy.Integer(value)
        if isinstance(value, float):
            return sympy.nsimplify(value)
        handler = _HOST_EXPRESSIONS.get(e.kind)
        if handler is None:
            raise self.unsupported(f"the expression `{_text(e)}`", e)
        return handler(self, e)

    def _pass(self, e: ci.Cursor) -> sympy.Expr:
        kids = [k for k in children(e) if k.kind.is_expression()]
        if len(kids) != 1:
            raise self.unsupported(f"the expression `{_text(e)}`", e)
        value = self.expr(kids[0])
        t = ct.from_clang(e.type)
        if t is not None and t.is_int and value.is_number and not value.is_integer:  # `(int)pow(2.0, 2.5)`
            return sympy.Integer(int(value))  # C converts a float to an integer toward zero
        return value

    def _ref(self, e: ci.Cursor) -> sympy.Expr:
        decl = e.referenced
        if decl is not None and decl.kind == K.ENUM_CONSTANT_DECL:
            return sympy.Integer(decl.enum_value)
        value = self.values.get(decl_key(decl)) if decl is not None else None
        if isinstance(value, sympy.Basic):
            return value
        constant = evaluate(e)
        if constant is not None:
            return sympy.nsimplify(constant)
        if decl is not None and decl_key(decl) in self.values and not isinstance(value, (Buffer, tuple)):
            raise self.undecided(f"the value of `{e.spelling}` here (computed under control flow)", e)
        raise self.unsupported(f"the value of `{e.spelling}` here (computed from something lowercheck does "
                               "not model)", e)

    def _member(self, e: ci.Cursor) -> sympy.Expr:
        kids = children(e)
        if kids and _is_dim3(kids[0].type):
            axis = "xyz".find(member_name(e))
            if axis >= 0:
                return self.dim3(kids[0])[axis]
        raise self.unsupported(f"the member access `{_text(e)}`", e)

    def _binary(self, e: ci.Cursor) -> sympy.Expr:
        op = e.binary_operator
        lhs, rhs = children(e)
        if op in (B.LAnd, B.LOr):  # C's short circuit: the right side only when the left does not decide
            first = self.condition(lhs)
            if first is not None and first == (op == B.LOr):
                return sympy.Integer(int(first))
            second = self.condition(rhs)
            if first is None or second is None:
                raise self.unsupported(f"the condition `{_text(e)}`, not decided here", e)
            return sympy.Integer(int(second))
        nullness = (self._null(lhs), self._null(rhs))
        if op in (B.EQ, B.NE) and None not in nullness and True in nullness:  # `other == nullptr`: a buffer is never null
            return sympy.Integer(int((nullness[0] == nullness[1]) == (op == B.EQ)))
        compare = _HOST_COMPARE.get(op)
        if compare is not None:  # 1 or 0 where decided (sympy's relational of two numbers)
            truth = compare(self.at_sizes(self.expr(lhs)), self.at_sizes(self.expr(rhs)))
            if truth is sympy.true or truth is sympy.false:
                return sympy.Integer(int(bool(truth)))
            raise self.unsupported(f"the condition `{_text(e)}`, not decided here", e)
        if op not in _HOST_BINARY:
            raise self.unsupported(f"the operator in `{_text(e)}`", e)
        integer = ct.from_clang(e.type) is not None and ct.from_clang(e.type).is_int
        return self.arithmetic(op, self.expr(lhs), self.expr(rhs), integer, e)

    def arithmetic(self, op: B, a: sympy.Expr, b: sympy.Expr, integer: bool, e: ci.Cursor) -> sympy.Expr:
        """`a OP b` of a binary operator or a compound assignment (`v |= v >> 1` in a helper).
        Bitwise operations need numbers: they are taken at the concrete sizes."""
        if op in (B.And, B.Or, B.Xor):
            a, b = self.at_sizes(a), self.at_sizes(b)
        try:
            return _HOST_BINARY[op](a, b, integer)
        except Unsupported:  # bitwise operations on symbols
            raise self.undecided(f"`{_text(e)}`", e) from None

    def _null_buffer(self, e: ci.Cursor, param: ci.Cursor | None) -> Buffer:
        """A null pointer passed to a kernel: a buffer of no elements (`null0`, a temp of shape [0]),
        so that a kernel that reads or writes it is out of bounds there (LC201, and a fault in the
        runs), and one that leaves it alone is checked as it is."""
        t = ct.from_clang(param.type) if param is not None else None
        if t is None or t.kind != "ptr" or t.elem is None or t.elem.kind == "void":
            t = ct.from_clang(e.type)
        if t is None or t.kind != "ptr" or t.elem is None or t.elem.kind == "void":
            raise self.unsupported(f"passing the null pointer `{_text(e)}` for a pointer of no element type", e)
        buffer = Buffer(f"null{sum(b.name.startswith('null') for b in self.result.temps)}", t, temp=True,
                        shape=(sympy.Integer(0),))
        self.result.temps.append(buffer)
        return buffer

    def _null(self, e: ci.Cursor) -> bool | None:
        """Whether the pointer `e` is null: a null literal or a parameter the spec gives as none,
        never a buffer; None for anything else."""
        if is_null_pointer(e):
            return True
        c = _strip(e)
        if c.kind == K.DECL_REF_EXPR and c.referenced is not None and self.values.get(decl_key(c.referenced)) is NULL:
            return True
        return False if self._is_buffer(e) else None

    def _is_buffer(self, e: ci.Cursor) -> bool:
        """`e` names a buffer of the launcher (a pointer parameter or an allocation)."""
        c = _strip(e)
        return c.kind == K.DECL_REF_EXPR and c.referenced is not None \
            and isinstance(self.values.get(decl_key(c.referenced)), Buffer)

    def _unary(self, e: ci.Cursor) -> sympy.Expr:
        kind = unary_operator(e, self.shown)
        null = self._null(children(e)[0]) if kind == "!" else None
        if null is not None:  # `!other`: a buffer is never null
            return sympy.Integer(int(null))
        value = self.expr(children(e)[0])
        if kind == "-":
            return -value
        if kind == "+":
            return value
        if kind == "!" and value.is_number:
            return sympy.Integer(int(value == 0))
        raise self.unsupported(f"the expression `{_text(e)}`", e)

    def _conditional(self, e: ci.Cursor) -> sympy.Expr:
        cond, yes, no = children(e)
        decided = self.condition(cond)
        if decided is not None:
            return self.expr(yes if decided else no)
        value = self.select(cond, self.expr(yes), self.expr(no))
        if value is None:
            raise self.undecided(f"the conditional `{_text(e)}` (other than a min or max of its two values)", e)
        return value

    def _call(self, e: ci.Cursor) -> sympy.Expr:
        """A tensor's methods, min/max, C's math on numbers, and host helpers (`cdiv(n, 256)`)."""
        callee = called_function(e)
        held = _method_object(e)
        if e.spelling == "operator[]" or (held is not None and e.spelling in ("size", "at", "front", "back")
                                         and _is_int_list(held.type)):
            listed, index = self._list_item(e)
            if listed is not None:
                if e.spelling == "size":
                    return sympy.Integer(len(listed))
                return listed[index]
        if held is not None and _is_optional_tensor(held.type) and e.spelling in ("has_value", "operator bool"):
            target = _strip(held)
            value = self.values.get(decl_key(target.referenced)) if target.kind == K.DECL_REF_EXPR and \
                target.referenced is not None else None
            return sympy.Integer(int(isinstance(value, Buffer)))
        if callee is not None and callee.kind == K.CXX_METHOD and _method_object(e) is not None and \
                is_tensor(_method_object(e).type):
            return self.tensor_method(e, self.tensor(_method_object(e)))
        holder = _method_object(e) if callee is not None and callee.spelling == "scalarType" else None
        if holder is not None and _strip(holder).kind == K.CALL_EXPR and _method_object(_strip(holder)) is not None \
                and is_tensor(_method_object(_strip(holder)).type):  # `x.type().scalarType()`
            return self.scalar_type(e, self.tensor(_method_object(_strip(holder))))
        if callee is not None and callee.spelling in ("min", "max") and len(list(e.get_arguments())) == 2:
            return (sympy.Min if callee.spelling == "min" else sympy.Max)(*(self.expr(a) for a in e.get_arguments()))
        math = _HOST_MATH.get(callee.spelling) if callee is not None and callee.get_definition() is None else None
        if math is not None:
            return self.math(e, math)
        if callee is None:
            raise self.unsupported(f"the call `{_text(e)}` in a launch expression", e)
        value = self.helper(e, callee)
        if isinstance(value, tuple):
            raise self.unsupported(f"the dim3 `{_text(e)}` as a number", e)
        return value

    def _list_item(self, e: ci.Cursor) -> tuple[list[sympy.Expr] | None, int]:
        """For `v[i]`, `v.at(i)`, `v.front()`, `v.back()`, `v.size()` of an integer list: the list
        and the (concrete) index; (None, 0) when `v` is no list this reader holds."""
        args = [a for a in e.get_arguments()]
        held = _method_object(e)
        if held is None and e.spelling == "operator[]":  # children: the object, the operator, the index
            kids = [k for k in children(e) if k.kind.is_expression()]
            held, args = (kids[0], kids[-1:]) if len(kids) >= 3 else (None, [])
        if held is None or not _is_int_list(held.type):
            return None, 0
        listed = self.int_list(held)
        if listed is None:
            return None, 0
        if e.spelling in ("size", "front"):
            return listed, 0
        if e.spelling == "back":
            return listed, len(listed) - 1
        index = self.at_sizes(self.expr(args[0])) if args else None
        if not isinstance(index, sympy.Basic) or not index.is_Integer or not -len(listed) <= int(index) < len(listed):
            raise self.undecided(f"the list index in `{_text(e)}`", e)
        return listed, int(index)

    def math(self, e: ci.Cursor, rule: Callable[..., sympy.Expr]) -> sympy.Expr:
        """`pow(2.0, floor(log2(x)))`, `sqrt(n)`: C's math on numbers only (at the concrete sizes), as
        a host helper sizing a launch uses it; of sizes, lowered again at concrete sizes."""
        args = [self.at_sizes(self.expr(a)) for a in e.get_arguments()]
        if not all(isinstance(a, sympy.Basic) and a.is_number for a in args):
            raise self.undecided(f"`{_text(e)}`", e)
        return rule(*args)

    def helper(self, e: ci.Cursor, callee: ci.Cursor) -> sympy.Expr | Dim3:
        """A host helper's result (`cdiv(n, 256)`, `next_pow2` with its loop, a function returning the
        launch's dim3): its body run with its parameters bound to the arguments' values."""
        definition = callee.get_definition()
        body = next((c for c in children(definition) if c.kind == K.COMPOUND_STMT), None) if definition else None
        stmts = children(body) if body is not None else []
        if not stmts:
            raise self.unsupported(f"the call `{_text(e)}` in a launch expression", e)
        args = [self.expr(a) for a in e.get_arguments()]
        params = [c for c in children(definition) if c.kind == K.PARM_DECL]
        saved, saved_return = dict(self.values), self.return_value
        self.values.update({decl_key(p): a for p, a in zip(params, args)})
        self.return_value = None
        try:
            if len(stmts) == 1 and stmts[0].kind == K.RETURN_STMT and children(stmts[0]) \
                    and not _is_dim3(children(stmts[0])[0].type):
                return self.expr(children(stmts[0])[0])
            if not self.stmts(stmts) and self.return_value is not None:
                return self.return_value
        finally:
            self.values, self.return_value = saved, saved_return
        raise self.undecided(f"the result of `{_text(e)}`", e)


def _is_int_list(t: ci.Type) -> bool:
    """`std::vector<int64_t>` (of any integer), `IntArrayRef`: a list of sizes host code builds."""
    spelled = t.get_canonical().spelling.replace(" ", "")
    if spelled.startswith("const"):
        spelled = spelled[5:]
    spelled = spelled.rstrip("&")
    return ("IntArrayRef" in spelled or "ArrayRef<long" in spelled) or \
        (spelled.startswith("std::vector<") and spelled[len("std::vector<"):].split(">")[0]
         in ("long", "int", "longlong", "unsignedlong", "int64_t"))


def _optional_held(c: ci.Cursor) -> ci.Cursor | None:
    """The optional tensor in `opt.value()` or `*opt`, else None."""
    if c.kind == K.CALL_EXPR and c.spelling in ("value", "operator*"):
        held = _method_object(c)
        if held is None and c.spelling == "operator*":
            args = list(c.get_arguments())
            held = args[0] if args else next((k for k in children(c)[1:] if k.kind.is_expression()), None)
        if held is not None and _is_optional_tensor(held.type):
            return held
    return None


def _returned_items(value: ci.Cursor) -> list[ci.Cursor]:
    """What a `return` returns, item by item: `{a, b}` and `std::make_tuple(a, b)` are two; a single
    value is one."""
    c = _strip(value)
    while c.kind == K.CALL_EXPR and len(children(c)) == 1 and c.referenced is not None and \
            c.referenced.kind == K.CONSTRUCTOR and _strip(children(c)[0]).kind == K.INIT_LIST_EXPR:
        c = _strip(children(c)[0])  # `std::vector<torch::Tensor>{a, b}`
    if c.kind == K.INIT_LIST_EXPR:
        return [k for k in children(c) if k.kind.is_expression()]
    if c.kind == K.CALL_EXPR and c.spelling == "make_tuple":
        return list(c.get_arguments())
    if c.kind == K.CALL_EXPR and c.referenced is not None and c.referenced.kind == K.CONSTRUCTOR and \
            "tuple" in c.type.spelling:
        return list(c.get_arguments())
    return [value]


def _switch_body(body: ci.Cursor) -> list[tuple[ci.Cursor | str | None, ci.Cursor | None]] | None:
    """A switch body in order as its labels (a `case`'s value expression, or "default", with no
    statement) and its statements (with no label): `case 1: case 2: s;` is two labels, then `s`;
    a block's statements are in the list (`case 1: { ...; break; }`). None when a statement holds a
    `break` of this switch inside it (in an `if`), which this does not follow."""
    flat: list[tuple[ci.Cursor | str | None, ci.Cursor | None]] = []

    def add(stmt: ci.Cursor) -> bool:
        while stmt.kind in (K.CASE_STMT, K.DEFAULT_STMT):
            flat.append((children(stmt)[0] if stmt.kind == K.CASE_STMT else "default", None))
            stmt = children(stmt)[-1]
        if stmt.kind == K.COMPOUND_STMT:
            return all(add(k) for k in children(stmt))
        if stmt.kind != K.BREAK_STMT and _breaks_out(stmt):
            return False
        flat.append((None, stmt))
        return True

    return flat if add(body) else None


def _breaks_out(stmt: ci.Cursor) -> bool:
    """Whether `stmt` holds a `break` that leaves the statement around it (not one of an inner loop or switch)."""
    if stmt.kind == K.BREAK_STMT:
        return True
    if stmt.kind in (K.FOR_STMT, K.WHILE_STMT, K.DO_STMT, K.SWITCH_STMT):
        return False
    return any(_breaks_out(c) for c in children(stmt))


def _div(a: sympy.Expr, b: sympy.Expr, integer: bool) -> sympy.Expr:
    return sympy.floor(a / b) if integer else a / b  # C truncates; floor is the same for sizes >= 0


# An integer comparison `a OP b` as `e >= 0` (a > b is a - b - 1 >= 0).
_AT_LEAST_ZERO: dict[B, Callable[[sympy.Expr, sympy.Expr], sympy.Expr]] = {
    B.GE: lambda a, b: a - b, B.GT: lambda a, b: a - b - 1,
    B.LE: lambda a, b: b - a, B.LT: lambda a, b: b - a - 1,
}

_HOST_BINARY: dict[B, Callable[[sympy.Expr, sympy.Expr, bool], sympy.Expr]] = {
    B.Add: lambda a, b, i: a + b,
    B.Sub: lambda a, b, i: a - b,
    B.Mul: lambda a, b, i: a * b,
    B.Div: _div,
    B.Rem: lambda a, b, i: sympy.Mod(a, b),
    B.Shl: lambda a, b, i: a * 2**b,
    B.Shr: lambda a, b, i: sympy.floor(a / 2**b),
    B.And: lambda a, b, i: _bitwise(a, b, int.__and__),
    B.Or: lambda a, b, i: _bitwise(a, b, int.__or__),
    B.Xor: lambda a, b, i: _bitwise(a, b, int.__xor__),
}


def _bitwise(a: sympy.Expr, b: sympy.Expr, op: Callable[[int, int], int]) -> sympy.Expr:
    """`a | b`, `a & b`, `a ^ b` of two integers (a helper's `v |= v >> 1`); of symbols: not modelled."""
    if not (a.is_Integer and b.is_Integer):
        raise Unsupported(f"a bitwise operation on sizes ({a}, {b}) is not modelled symbolically")
    return sympy.Integer(op(int(a), int(b)))

# C's math functions (float and double spellings) as a host helper uses them: exact, on numbers.
_HOST_MATH: dict[str, Callable[..., sympy.Expr]] = {
    spelling: rule for name, rule in (
        ("pow", lambda a, b: a**b), ("sqrt", sympy.sqrt), ("floor", sympy.floor), ("ceil", sympy.ceiling),
        ("log2", lambda a: sympy.log(a, 2)), ("log", sympy.log), ("exp", sympy.exp), ("fabs", sympy.Abs),
        ("abs", sympy.Abs))
    for spelling in (name, name + "f")}

_HOST_COMPARE: dict[B, Callable[[sympy.Expr, sympy.Expr], sympy.Basic]] = {
    B.LT: sympy.Lt, B.GT: sympy.Gt, B.LE: sympy.Le, B.GE: sympy.Ge, B.EQ: sympy.Eq, B.NE: sympy.Ne,
}

_COMPOUND = {"+=": B.Add, "-=": B.Sub, "*=": B.Mul, "/=": B.Div, "%=": B.Rem, "<<=": B.Shl, ">>=": B.Shr,
             "&=": B.And, "|=": B.Or, "^=": B.Xor}

_HOST_EXPRESSIONS: dict[ci.CursorKind, Callable[[HostReader, ci.Cursor], sympy.Expr]] = {
    K.UNARY_OPERATOR: HostReader._unary,
    K.PAREN_EXPR: HostReader._pass,
    K.UNEXPOSED_EXPR: HostReader._pass,
    K.CSTYLE_CAST_EXPR: HostReader._pass,
    K.CXX_STATIC_CAST_EXPR: HostReader._pass,
    K.CXX_FUNCTIONAL_CAST_EXPR: HostReader._pass,
    K.DECL_REF_EXPR: HostReader._ref,
    K.MEMBER_REF_EXPR: HostReader._member,
    K.BINARY_OPERATOR: HostReader._binary,
    K.CALL_EXPR: HostReader._call,
    K.CONDITIONAL_OPERATOR: HostReader._conditional,
}


def _text(cursor: ci.Cursor) -> str:
    text = " ".join(t.spelling for t in cursor.get_tokens())
    return text if len(text) <= 60 else text[:57] + "..."
