"""The `tt` dialect: the Triton TTIR ops lowercheck reads, as xDSL ops.

Triton's own compiler (`lowercheck.frontends.triton`) produces TTIR; libtriton prints it in MLIR's
generic form with inline locations, which this dialect parses into typed ops. Ops print back in the
generic form, so a module round-trips through `lowercheck.ir.parse`:

```mlir
%pid = "tt.get_program_id"() <{axis = 0 : i32}> : () -> i32
%offs = "tt.make_range"() <{end = 1024 : i32, start = 0 : i32}> : () -> tensor<1024xi32>
%p = "tt.splat"(%x_ptr) : (!tt.ptr<f32>) -> tensor<1024x!tt.ptr<f32>>
%q = "tt.addptr"(%p, %offs) : (tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tt.ptr<f32>>
%x = "tt.load"(%q, %mask) <{isVolatile = false, operandSegmentSizes = array<i32: 1, 1, 0>}>
       : (tensor<1024x!tt.ptr<f32>>, tensor<1024xi1>) -> tensor<1024xf32>
```

Enumerations (atomic kinds, memory semantics, padding, rounding, input precision) stay the integers
TTIR prints (`sem = 4 : i32`); the tables below name them for passes and messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloatConstr,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    DictionaryAttr,
    FlatSymbolRefAttrConstr,
    FunctionType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolNameConstraint,
    TensorType,
    UnitAttr,
    container_of,
)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.utils.mlir_lexer import MLIRTokenKind
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, IsTerminator, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

# Integer encodings of TTIR's enumerations (TritonAttrDefs.td), for readers of the ops.
ATOMIC_RMW_OPS = {1: "and", 2: "or", 3: "xor", 4: "add", 5: "fadd", 6: "max", 7: "min", 8: "umax",
                  9: "umin", 10: "exch"}
MEM_SEMANTICS = {1: "relaxed", 2: "acquire", 3: "release", 4: "acq_rel"}
MEM_SCOPES = {1: "gpu", 2: "cta", 3: "sys"}
PADDING = {1: "zero", 2: "nan"}


# --- types and attributes ---------------------------------------------------------------------


@irdl_attr_definition
class PtrType(ParametrizedAttribute, TypeAttribute):
    """A pointer to `pointee` in `address_space` (1, global memory, is not printed).

    `!tt.ptr<f32>`, `!tt.ptr<f16, 3>`, and tensors of them: `tensor<1024x!tt.ptr<f32>>`.
    """

    name = "tt.ptr"

    pointee: Attribute
    address_space: IntAttr

    def __init__(self, pointee: Attribute, address_space: int = 1):
        super().__init__(pointee, IntAttr(address_space))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.pointee)
            if self.address_space.data != 1:
                printer.print_string(f", {self.address_space.data}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pointee = parser.parse_type()
            space = 1
            if parser.parse_optional_punctuation(",") is not None:
                space = parser.parse_integer(allow_boolean=False, allow_negative=False)
        return (pointee, IntAttr(space))


@irdl_attr_definition
class TensorDescType(ParametrizedAttribute, TypeAttribute):
    """A tensor descriptor (TMA) over blocks of `block_type`: `!tt.tensordesc<16x16xf32>`."""

    name = "tt.tensordesc"

    block_type: TensorType

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            for dim in self.block_type.get_shape():
                printer.print_string(f"{dim}x")
            printer.print_attribute(self.block_type.element_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            dims, element = parser.parse_ranked_shape()
        return (TensorType(element, dims),)


@irdl_attr_definition
class CachePolicyAttr(ParametrizedAttribute):
    """A load/store's cache modifier and eviction policy, each empty when absent.

    `#tt.cache_policy<cache_modifier = cg, eviction_policy = evict_last>`
    """

    name = "tt.cache_policy"

    cache_modifier: StringAttr
    eviction_policy: StringAttr

    _KEYS: ClassVar[tuple[str, str]] = ("cache_modifier", "eviction_policy")

    def print_parameters(self, printer: Printer) -> None:
        fields = [(key, getattr(self, key).data) for key in self._KEYS]
        printer.print_string("<" + ", ".join(f"{k} = {v}" for k, v in fields if v) + ">")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        values = dict.fromkeys(cls._KEYS, "")

        def entry() -> None:
            key = parser.parse_identifier()
            if key not in values:
                parser.raise_error(f"unknown tt.cache_policy field `{key}`")
            parser.parse_punctuation("=")
            values[key] = parser.parse_identifier()

        with parser.in_angle_brackets():
            if parser.parse_optional_punctuation(">") is None:
                parser.parse_comma_separated_list(parser.Delimiter.NONE, entry)
        return tuple(StringAttr(values[k]) for k in cls._KEYS)


def _i32(attr: Attribute | None) -> int | None:
    return attr.value.data if isinstance(attr, IntegerAttr) else None


# --- functions and calls ------------------------------------------------------------------------


@irdl_op_definition
class FuncOp(IRDLOperation):
    """A Triton kernel or device function; its arguments are the kernel's non-constexpr params.

    `"tt.func"() <{function_type = (!tt.ptr<f32>, i32) -> (), sym_name = "k", sym_visibility =
    "public"}> ({ ^bb0(%x: !tt.ptr<f32>, %n: i32): ... "tt.return"() : () -> () }) : () -> ()`
    """

    name = "tt.func"
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    sym_visibility = opt_prop_def(StringAttr)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    body = region_def()
    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove())

    @property
    def arg_names(self) -> list[str | None]:
        """The Python parameter names, from the arguments' `loc("name"(...))` where kept."""
        from xdsl.dialects.builtin import NameLoc

        names: list[str | None] = []
        for arg in self.body.block.args:
            loc = getattr(arg, "location", None)
            names.append(loc.desc.data if isinstance(loc, NameLoc) else None)
        return names

    def verify_(self) -> None:
        if self.body.blocks and len(self.body.block.args) != len(self.function_type.inputs):
            raise VerifyException("tt.func: entry block arguments do not match function_type")


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """`"tt.return"(%v) : (f32) -> ()`: leaves a tt.func."""

    name = "tt.return"
    srcs = var_operand_def()
    traits = traits_def(IsTerminator())


@irdl_op_definition
class CallOp(IRDLOperation):
    """`%r = "tt.call"(%x) <{callee = @helper}> : (f32) -> f32`: a call of a non-inlined tt.func."""

    name = "tt.call"
    callee = prop_def(FlatSymbolRefAttrConstr)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    operands_ = var_operand_def()
    results_ = var_result_def()


# --- program ids and tile construction ----------------------------------------------------------


class _AxisOp(IRDLOperation):
    axis = prop_def(IntegerAttr)
    result = result_def()

    def verify_(self) -> None:
        if _i32(self.axis) not in (0, 1, 2):
            raise VerifyException(f"{self.name}: axis must be 0, 1 or 2")


@irdl_op_definition
class GetProgramIdOp(_AxisOp):
    """`%pid = "tt.get_program_id"() <{axis = 0 : i32}> : () -> i32`: tl.program_id(axis)."""

    name = "tt.get_program_id"


@irdl_op_definition
class GetNumProgramsOp(_AxisOp):
    """`%n = "tt.get_num_programs"() <{axis = 0 : i32}> : () -> i32`: tl.num_programs(axis)."""

    name = "tt.get_num_programs"


@irdl_op_definition
class MakeRangeOp(IRDLOperation):
    """`"tt.make_range"() <{end = 1024 : i32, start = 0 : i32}> : () -> tensor<1024xi32>`:
    tl.arange(start, end)."""

    name = "tt.make_range"
    start = prop_def(IntegerAttr)
    end = prop_def(IntegerAttr)
    result = result_def()

    def verify_(self) -> None:
        if (_i32(self.end) or 0) <= (_i32(self.start) or 0):
            raise VerifyException("tt.make_range: end must exceed start")


class _UnaryOp(IRDLOperation):
    src = operand_def()
    result = result_def()


@irdl_op_definition
class SplatOp(_UnaryOp):
    """`"tt.splat"(%s) : (i32) -> tensor<1024xi32>`: a scalar broadcast to a tensor."""

    name = "tt.splat"


@irdl_op_definition
class ExpandDimsOp(_UnaryOp):
    """`"tt.expand_dims"(%t) <{axis = 1 : i32}> : (tensor<16xi32>) -> tensor<16x1xi32>`: `t[:, None]`."""

    name = "tt.expand_dims"
    axis = prop_def(IntegerAttr)


@irdl_op_definition
class BroadcastOp(_UnaryOp):
    """`"tt.broadcast"(%t) : (tensor<16x1xi32>) -> tensor<16x16xi32>`: size-1 dims repeated."""

    name = "tt.broadcast"


@irdl_op_definition
class ReshapeOp(_UnaryOp):
    """`"tt.reshape"(%t) : (tensor<64xf32>) -> tensor<4x16xf32>`: tl.reshape (row-major unless
    allow_reorder)."""

    name = "tt.reshape"
    allow_reorder = opt_prop_def(UnitAttr)
    efficient_layout = opt_prop_def(UnitAttr)


@irdl_op_definition
class TransOp(_UnaryOp):
    """`"tt.trans"(%t) <{order = array<i32: 1, 0>}> : (tensor<4x16xf32>) -> tensor<16x4xf32>`:
    tl.trans / tl.permute."""

    name = "tt.trans"
    order = prop_def(DenseArrayBase)


@irdl_op_definition
class JoinOp(IRDLOperation):
    """`"tt.join"(%a, %b) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64x2xf32>`."""

    name = "tt.join"
    lhs = operand_def()
    rhs = operand_def()
    result = result_def()


@irdl_op_definition
class SplitOp(IRDLOperation):
    """`"tt.split"(%t) : (tensor<64x2xf32>) -> (tensor<64xf32>, tensor<64xf32>)`."""

    name = "tt.split"
    src = operand_def()
    out_lhs = result_def()
    out_rhs = result_def()


@irdl_op_definition
class CatOp(IRDLOperation):
    """`"tt.cat"(%a, %b) : (tensor<32xf32>, tensor<32xf32>) -> tensor<64xf32>`."""

    name = "tt.cat"
    lhs = operand_def()
    rhs = operand_def()
    result = result_def()


# --- pointers and casts -------------------------------------------------------------------------


@irdl_op_definition
class AddPtrOp(IRDLOperation):
    """`"tt.addptr"(%p, %o) : (tensor<4x!tt.ptr<f32>>, tensor<4xi32>) -> tensor<4x!tt.ptr<f32>>`:
    pointer plus an element offset."""

    name = "tt.addptr"
    ptr = operand_def()
    offset = operand_def()
    result = result_def()


@irdl_op_definition
class BitcastOp(_UnaryOp):
    """`"tt.bitcast"(%x) : (tensor<64xf32>) -> tensor<64xi32>`: same bits, another type."""

    name = "tt.bitcast"


@irdl_op_definition
class IntToPtrOp(_UnaryOp):
    """`"tt.int_to_ptr"(%i) : (i64) -> !tt.ptr<f32>`."""

    name = "tt.int_to_ptr"


@irdl_op_definition
class PtrToIntOp(_UnaryOp):
    """`"tt.ptr_to_int"(%p) : (!tt.ptr<f32>) -> i64`."""

    name = "tt.ptr_to_int"


@irdl_op_definition
class FpToFpOp(_UnaryOp):
    """`"tt.fp_to_fp"(%x) <{rounding = 1 : i32}> : (tensor<4xf32>) -> tensor<4xf8E4M3FN>`: casts
    between float formats that arith does not cover (fp8)."""

    name = "tt.fp_to_fp"
    rounding = opt_prop_def(IntegerAttr)


# --- memory -------------------------------------------------------------------------------------


@irdl_op_definition
class LoadOp(IRDLOperation):
    """`%x = "tt.load"(%ptrs, %mask, %other) <{isVolatile = false, operandSegmentSizes =
    array<i32: 1, 1, 1>}>`: tl.load; lanes with a false mask read `other` (undefined without it)."""

    name = "tt.load"
    ptr = operand_def()
    mask = opt_operand_def()
    other = opt_operand_def()
    boundaryCheck = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(IntegerAttr)
    cachePolicy = opt_prop_def(CachePolicyAttr)
    cache = opt_prop_def(IntegerAttr)  # Triton < 3.6 spelled the policy as two enums
    evict = opt_prop_def(IntegerAttr)
    isVolatile = opt_prop_def(BoolAttr)
    result = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)


@irdl_op_definition
class StoreOp(IRDLOperation):
    """`"tt.store"(%ptrs, %v, %mask) : (tensor<4x!tt.ptr<f32>>, tensor<4xf32>, tensor<4xi1>) -> ()`:
    tl.store; lanes with a false mask write nothing."""

    name = "tt.store"
    ptr = operand_def()
    value = operand_def()
    mask = opt_operand_def()
    boundaryCheck = opt_prop_def(DenseArrayBase)
    cachePolicy = opt_prop_def(CachePolicyAttr)
    cache = opt_prop_def(IntegerAttr)
    evict = opt_prop_def(IntegerAttr)


@irdl_op_definition
class AtomicRMWOp(IRDLOperation):
    """`"tt.atomic_rmw"(%p, %v, %mask) <{atomic_rmw_op = 5 : i32, scope = 1 : i32, sem = 4 : i32}>`:
    tl.atomic_add/max/...; the kind is `ATOMIC_RMW_OPS[atomic_rmw_op]`."""

    name = "tt.atomic_rmw"
    ptr = operand_def()
    val = operand_def()
    mask = opt_operand_def()
    atomic_rmw_op = prop_def(IntegerAttr)
    sem = prop_def(IntegerAttr)
    scope = prop_def(IntegerAttr)
    result = result_def()


@irdl_op_definition
class AtomicCASOp(IRDLOperation):
    """`"tt.atomic_cas"(%p, %cmp, %v) <{scope = 1 : i32, sem = 4 : i32}> : (!tt.ptr<i32>, i32, i32)
    -> i32`: tl.atomic_cas."""

    name = "tt.atomic_cas"
    ptr = operand_def()
    cmp = operand_def()
    val = operand_def()
    sem = prop_def(IntegerAttr)
    scope = prop_def(IntegerAttr)
    result = result_def()


@irdl_op_definition
class MakeTensorPtrOp(IRDLOperation):
    """`"tt.make_tensor_ptr"(%base, %shape..., %strides..., %offsets...) <{order = array<i32: 1, 0>}>`:
    a block pointer (tl.make_block_ptr, removed from the Python API in Triton 3.9)."""

    name = "tt.make_tensor_ptr"
    base = operand_def()
    shape = var_operand_def()
    strides = var_operand_def()
    offsets = var_operand_def()
    order = prop_def(DenseArrayBase)
    result = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)


@irdl_op_definition
class AdvanceOp(IRDLOperation):
    """`"tt.advance"(%bp, %o0, %o1)`: a block pointer moved by per-dimension offsets."""

    name = "tt.advance"
    ptr = operand_def()
    offsets = var_operand_def()
    result = result_def()


@irdl_op_definition
class MakeTensorDescOp(IRDLOperation):
    """`"tt.make_tensor_descriptor"(%base, %shape..., %strides...) <{padding = 1 : i32}>`:
    tl.make_tensor_descriptor; `dims` holds the shape (i32) then as many strides (i64)."""

    name = "tt.make_tensor_descriptor"
    base = operand_def()
    dims = var_operand_def()
    padding = opt_prop_def(IntegerAttr)
    result = result_def()

    @property
    def shape(self) -> Sequence[SSAValue]:
        return self.dims[: len(self.dims) // 2]

    @property
    def strides(self) -> Sequence[SSAValue]:
        return self.dims[len(self.dims) // 2 :]

    def verify_(self) -> None:
        if len(self.dims) % 2:
            raise VerifyException("tt.make_tensor_descriptor: as many strides as shape extents")


@irdl_op_definition
class DescriptorLoadOp(IRDLOperation):
    """`"tt.descriptor_load"(%desc, %i, %j) : (!tt.tensordesc<16x16xf32>, i32, i32) -> tensor<...>`."""

    name = "tt.descriptor_load"
    desc = operand_def()
    indices = var_operand_def()
    cache = opt_prop_def(IntegerAttr)
    evict = opt_prop_def(IntegerAttr)
    cachePolicy = opt_prop_def(CachePolicyAttr)
    result = result_def()


@irdl_op_definition
class DescriptorStoreOp(IRDLOperation):
    """`"tt.descriptor_store"(%desc, %v, %i, %j) : (!tt.tensordesc<16x16xf32>, tensor<...>, i32, i32)
    -> ()`."""

    name = "tt.descriptor_store"
    desc = operand_def()
    src = operand_def()
    indices = var_operand_def()


# --- compute ------------------------------------------------------------------------------------


@irdl_op_definition
class DotOp(IRDLOperation):
    """`"tt.dot"(%a, %b, %c) <{inputPrecision = 0 : i32, maxNumImpreciseAcc = 0 : i32}>`:
    `a @ b + c` on tiles."""

    name = "tt.dot"
    a = operand_def()
    b = operand_def()
    c = operand_def()
    inputPrecision = opt_prop_def(IntegerAttr)
    maxNumImpreciseAcc = opt_prop_def(IntegerAttr)
    d = result_def()


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """`"tt.reduce"(%x) <{axis = 0 : i32}> ({ ^bb0(%a: f32, %b: f32): ... "tt.reduce.return"(%s)
    }) : (tensor<64xf32>) -> f32`: tl.sum/max/reduce over `axis` with the combine region."""

    name = "tt.reduce"
    srcs = var_operand_def()
    axis = prop_def(IntegerAttr)
    combineOp = region_def()
    result = var_result_def()


@irdl_op_definition
class ReduceReturnOp(IRDLOperation):
    """`"tt.reduce.return"(%s) : (f32) -> ()`: the combined value(s) of a tt.reduce region."""

    name = "tt.reduce.return"
    result = var_operand_def()
    traits = traits_def(IsTerminator())


@irdl_op_definition
class ScanOp(IRDLOperation):
    """`"tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({...})`: tl.cumsum / tl.associative_scan."""

    name = "tt.scan"
    srcs = var_operand_def()
    axis = prop_def(IntegerAttr)
    reverse = prop_def(BoolAttr)
    combineOp = region_def()
    result = var_result_def()


@irdl_op_definition
class ScanReturnOp(IRDLOperation):
    """`"tt.scan.return"(%s) : (f32) -> ()`: the combined value(s) of a tt.scan region."""

    name = "tt.scan.return"
    result = var_operand_def()
    traits = traits_def(IsTerminator())


@irdl_op_definition
class HistogramOp(IRDLOperation):
    """`"tt.histogram"(%x) : (tensor<64xi32>) -> tensor<8xi32>`: tl.histogram."""

    name = "tt.histogram"
    src = operand_def()
    mask = opt_operand_def()
    result = result_def()


@irdl_op_definition
class ClampFOp(IRDLOperation):
    """`"tt.clampf"(%x, %lo, %hi) <{propagateNan = 0 : i32}>`: tl.clamp on floats."""

    name = "tt.clampf"
    x = operand_def()
    min = operand_def()
    max = operand_def()
    propagateNan = prop_def(IntegerAttr)
    result = result_def()


@irdl_op_definition
class PreciseSqrtOp(_UnaryOp):
    """`"tt.precise_sqrt"(%x) : (tensor<64xf32>) -> tensor<64xf32>`: tl.sqrt_rn."""

    name = "tt.precise_sqrt"


@irdl_op_definition
class PreciseDivFOp(IRDLOperation):
    """`"tt.precise_divf"(%x, %y)`: tl.div_rn."""

    name = "tt.precise_divf"
    x = operand_def()
    y = operand_def()
    result = result_def()


@irdl_op_definition
class MulhiUIOp(IRDLOperation):
    """`"tt.mulhiui"(%x, %y)`: tl.umulhi, the high half of an unsigned product."""

    name = "tt.mulhiui"
    x = operand_def()
    y = operand_def()
    result = result_def()


@irdl_op_definition
class ExternElementwiseOp(IRDLOperation):
    """`"tt.extern_elementwise"(%x) <{libname = "", libpath = "", pure = true, symbol =
    "__nv_expf"}>`: a libdevice function applied per element."""

    name = "tt.extern_elementwise"
    srcs = var_operand_def()
    libname = prop_def(StringAttr)
    libpath = prop_def(StringAttr)
    symbol = prop_def(StringAttr)
    pure = prop_def(BoolAttr)
    result = result_def()


# --- debugging ----------------------------------------------------------------------------------


@irdl_op_definition
class AssertOp(IRDLOperation):
    """`"tt.assert"(%cond) <{message = "boom"}> : (tensor<64xi1>) -> ()`: tl.device_assert."""

    name = "tt.assert"
    condition = operand_def()
    message = prop_def(StringAttr)


@irdl_op_definition
class PrintOp(IRDLOperation):
    """`"tt.print"(%v) <{hex = false, isSigned = array<i32: 0>, prefix = " v: "}> : (f32) -> ()`:
    tl.device_print."""

    name = "tt.print"
    args = var_operand_def()
    prefix = prop_def(StringAttr)
    hex = prop_def(BoolAttr)
    isSigned = prop_def(DenseArrayBase)


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """`"ttg.barrier"() <{addrSpace = 31 : i32}> : () -> ()`: tl.debug_barrier, which synchronises the
    threads of one program. A program's accesses are already in program order for lowercheck, so it
    constrains nothing more; it is read so that a kernel calling it lowers."""

    name = "ttg.barrier"
    addrSpace = opt_prop_def(IntegerAttr)


# --- arith on tensors -----------------------------------------------------------------------------
# MLIR's arith accepts tensors everywhere and TTIR relies on it (`arith.cmpi` -> tensor<1024xi1>,
# `arith.select` on a tensor mask, `arith.extsi` of a tensor of offsets). xDSL 0.75 types the result
# of cmpi/cmpf, the condition of select and the int/float casts as scalars only, so these subclasses
# widen them to "scalar or tensor of it" (a superset: scalar IR is unchanged, isinstance against the
# xDSL classes still holds). With a tensor, cmpi/cmpf/select print in the generic form, because
# their custom syntax infers a scalar type.


def _has_tensor(op: IRDLOperation) -> bool:
    return any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results))


class _GenericWhenTensor(IRDLOperation):
    """Custom syntax for scalars (as xDSL prints it), generic syntax for tensors."""

    assembly_format = None

    def verify_(self) -> None:
        pass

    def print(self, printer: Printer) -> None:
        if _has_tensor(self):
            # the printer adds the location after a custom form: keep it from printing it twice
            debuginfo, printer.print_debuginfo = printer.print_debuginfo, False
            try:
                printer.print_op_with_default_format(self)
            finally:
                printer.print_debuginfo = debuginfo
        else:
            super().print(printer)

    @classmethod
    def parse(cls, parser: Parser) -> IRDLOperation:
        if parser._current_token.kind == MLIRTokenKind.L_PAREN:  # the generic tail printed above
            return parser._parse_generic_operation(cls)  # noqa: SLF001 - xDSL has no public entry
        return super().parse(parser)


def _same_shape(op: IRDLOperation, a: Attribute, b: Attribute) -> None:
    shape_a = a.get_shape() if isinstance(a, TensorType) else None
    shape_b = b.get_shape() if isinstance(b, TensorType) else None
    if shape_a != shape_b:
        raise VerifyException(f"{op.name}: operand and result shapes differ ({a} vs {b})")


def _width(t: Attribute) -> int:
    element = t.element_type if isinstance(t, TensorType) else t
    return element.width.data if isinstance(element, IntegerType) else 0


# A subclass of a defined xDSL op must restate every field (the parent holds accessors by now),
# its own verify_ (the inherited one checks the parent's scalar constraints) and no assembly_format
# (it inherits the parent's generated print/parse, which are right for scalars and tensors alike).


@irdl_op_definition
class CmpiOp(_GenericWhenTensor, arith.CmpiOp):
    name = "arith.cmpi"
    predicate = prop_def(IntegerAttr)
    lhs = operand_def(arith.signlessIntegerLike)
    rhs = operand_def(arith.signlessIntegerLike)
    result = result_def(container_of(IntegerType(1)))


@irdl_op_definition
class CmpfOp(_GenericWhenTensor, arith.CmpfOp):
    name = "arith.cmpf"
    predicate = prop_def(IntegerAttr)
    lhs = operand_def(arith.floatingPointLike)
    rhs = operand_def(arith.floatingPointLike)
    fastmath = prop_def(arith.FastMathFlagsAttr, default_value=arith.FastMathFlagsAttr("none"))
    result = result_def(container_of(IntegerType(1)))


@irdl_op_definition
class SelectOp(_GenericWhenTensor, arith.SelectOp):
    name = "arith.select"
    _T: ClassVar = VarConstraint("_T", AnyAttr())
    cond = operand_def(container_of(IntegerType(1)))
    lhs = operand_def(_T)
    rhs = operand_def(_T)
    result = result_def(_T)

    @classmethod
    def parse(cls, parser: Parser) -> IRDLOperation:
        """`arith.select %c, %a, %b : T` (an i1 condition), or `: C, T` with the condition's type."""
        if parser._current_token.kind == MLIRTokenKind.L_PAREN:  # noqa: SLF001 - the generic form
            return parser._parse_generic_operation(cls)  # noqa: SLF001
        operands = [parser.parse_unresolved_operand()]
        for _ in range(2):
            parser.parse_punctuation(",")
            operands.append(parser.parse_unresolved_operand())
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        first = parser.parse_type()
        if parser.parse_optional_punctuation(","):
            cond_type, value_type = first, parser.parse_type()
        else:
            cond_type, value_type = IntegerType(1), first
        cond, lhs, rhs = (parser.resolve_operand(o, t) for o, t in
                          zip(operands, (cond_type, value_type, value_type), strict=True))
        return cls.create(operands=[cond, lhs, rhs], result_types=[value_type], attributes=attributes)


class _IntResize(IRDLOperation):
    """extsi/extui/trunci over scalars or tensors: same shape, width grows (ext) or shrinks (trunc)."""

    input = operand_def(container_of(base(IntegerType)))
    result = result_def(container_of(base(IntegerType)))
    overflowFlags = opt_prop_def(arith.IntegerOverflowAttr)
    GROWS: ClassVar[bool] = True
    assembly_format = None

    def verify_(self) -> None:
        _same_shape(self, self.input.type, self.result.type)
        grows = _width(self.result.type) > _width(self.input.type)
        if grows != self.GROWS:
            raise VerifyException(f"{self.name}: destination bit-width must be "
                                  f"{'larger' if self.GROWS else 'smaller'} than the input's")


@irdl_op_definition
class ExtSIOp(_IntResize, arith.ExtSIOp):
    name = "arith.extsi"


@irdl_op_definition
class ExtUIOp(_IntResize, arith.ExtUIOp):
    name = "arith.extui"


@irdl_op_definition
class TruncIOp(_IntResize, arith.TruncIOp):
    name = "arith.trunci"
    GROWS: ClassVar[bool] = False


class _FloatToInt(IRDLOperation):
    input = operand_def(container_of(AnyFloatConstr))
    result = result_def(container_of(base(IntegerType)))
    assembly_format = None

    def verify_(self) -> None:
        _same_shape(self, self.input.type, self.result.type)


class _IntToFloat(IRDLOperation):
    input = operand_def(container_of(base(IntegerType)))
    result = result_def(container_of(AnyFloatConstr))
    assembly_format = None

    def verify_(self) -> None:
        _same_shape(self, self.input.type, self.result.type)


@irdl_op_definition
class FPToSIOp(_FloatToInt, arith.FPToSIOp):
    name = "arith.fptosi"


@irdl_op_definition
class FPToUIOp(_FloatToInt, arith.FPToUIOp):
    name = "arith.fptoui"


@irdl_op_definition
class SIToFPOp(_IntToFloat, arith.SIToFPOp):
    name = "arith.sitofp"


@irdl_op_definition
class UIToFPOp(_IntToFloat, arith.UIToFPOp):
    name = "arith.uitofp"


ARITH_ON_TENSORS: tuple[type[IRDLOperation], ...] = (
    CmpiOp, CmpfOp, SelectOp, ExtSIOp, ExtUIOp, TruncIOp, FPToSIOp, FPToUIOp, SIToFPOp, UIToFPOp)


def arith_with_tensors() -> Dialect:
    """xDSL's arith dialect with the ops above in place of its scalar-only ones."""
    widened = {op.name: op for op in ARITH_ON_TENSORS}
    return Dialect("arith", [widened.get(op.name, op) for op in arith.Arith.operations],
                   list(arith.Arith.attributes))


TT = Dialect(
    "tt",
    [FuncOp, ReturnOp, CallOp, GetProgramIdOp, GetNumProgramsOp, MakeRangeOp, SplatOp, ExpandDimsOp,
     BroadcastOp, ReshapeOp, TransOp, JoinOp, SplitOp, CatOp, AddPtrOp, BitcastOp, IntToPtrOp,
     PtrToIntOp, FpToFpOp, LoadOp, StoreOp, AtomicRMWOp, AtomicCASOp, MakeTensorPtrOp, AdvanceOp,
     MakeTensorDescOp, DescriptorLoadOp, DescriptorStoreOp, DotOp, ReduceOp, ReduceReturnOp, ScanOp,
     ScanReturnOp, HistogramOp, ClampFOp, PreciseSqrtOp, PreciseDivFOp, MulhiUIOp,
     ExternElementwiseOp, AssertOp, PrintOp, BarrierOp],
    [PtrType, TensorDescType, CachePolicyAttr],
)
