"""The `simt` dialect: the CUDA warp-level and atomic operations upstream xDSL has no op for.

```mlir
%v = simt.shuffle {mode = "down"} %x, %delta, %mask, %width : f32       // __shfl_down_sync
%b = simt.vote {mode = "ballot"} %pred, %mask : i32                     // __ballot_sync
simt.syncwarp %mask                                                     // __syncwarp
%old = simt.atomic_cas %buf[%i], %compare, %value : memref<?xi32>, i32  // atomicCAS
```

Shared memory is `memref.alloca` in address space 3 (`memref<256xf32, 3>`), `__syncthreads` is
`gpu.barrier`, and atomicAdd/Max/Min/Exch are upstream `memref.atomic_rmw` (MLIR's AtomicRMWKind
numbering); see docs/CONVENTIONS-IR.md.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I32, IndexType, IntegerType, MemRefType, StringAttr
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
)
from xdsl.utils.exceptions import VerifyException

SHUFFLE_MODES = ("idx", "up", "down", "xor")
VOTE_MODES = ("ballot", "any", "all", "active")  # active: `__activemask()`


@irdl_op_definition
class ShuffleOp(IRDLOperation):
    """`__shfl{,_up,_down,_xor}_sync(mask, value, lane_or_delta, width)`: the value of another lane."""

    name = "simt.shuffle"
    T: ClassVar = VarConstraint("T", AnyAttr())
    mode = prop_def(StringAttr)
    value = operand_def(T)
    offset = operand_def(I32)
    mask = operand_def(I32)
    width = operand_def(I32)
    result = result_def(T)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict $value `,` $offset `,` $mask `,` $width `:` type($value)"

    def verify_(self) -> None:
        if self.mode.data not in SHUFFLE_MODES:
            raise VerifyException(f"simt.shuffle: mode must be one of {SHUFFLE_MODES}")


@irdl_op_definition
class VoteOp(IRDLOperation):
    """`__ballot_sync` (i32 of the lanes' predicates), `__any_sync`/`__all_sync` (i1), `__activemask()` (mode
    "active": i32 of the lanes that run it; its mask is not read)."""

    name = "simt.vote"
    mode = prop_def(StringAttr)
    predicate = operand_def(IntegerType(1))
    mask = operand_def(I32)
    result = result_def(IntegerType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict $predicate `,` $mask `:` type($result)"

    def verify_(self) -> None:
        if self.mode.data not in VOTE_MODES:
            raise VerifyException(f"simt.vote: mode must be one of {VOTE_MODES}")
        width = self.result.type.width.data
        if width != (32 if self.mode.data in ("ballot", "active") else 1):
            raise VerifyException("simt.vote: ballot and active give i32, any/all give i1")


@irdl_op_definition
class SyncWarpOp(IRDLOperation):
    """`__syncwarp(mask)`: the lanes in `mask` wait for each other."""

    name = "simt.syncwarp"
    mask = operand_def(I32)
    assembly_format = "$mask attr-dict"


@irdl_op_definition
class AtomicCasOp(IRDLOperation):
    """`atomicCAS(&buf[i], compare, value)`: stores `value` if the element equals `compare`; the old value."""

    name = "simt.atomic_cas"
    T: ClassVar = VarConstraint("T", AnyAttr())
    memref = operand_def(MemRefType)
    index = operand_def(IndexType)
    compare = operand_def(T)
    value = operand_def(T)
    result = result_def(T)
    assembly_format = "$memref `[` $index `]` `,` $compare `,` $value attr-dict `:` type($memref) `,` type($value)"

    def verify_(self) -> None:
        element: Attribute = self.memref.type.element_type
        if element != self.value.type:
            raise VerifyException("simt.atomic_cas: value type differs from the buffer's element type")


SIMT = Dialect("simt", [ShuffleOp, VoteOp, SyncWarpOp, AtomicCasOp], [])
