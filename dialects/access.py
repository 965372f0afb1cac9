"""The `access` dialect: one op per memory access of an entry, the input of every static check.

Each `access.access` says which buffer, read/write/atomic, the memory space, the element type, one
index expression per buffer dimension over tagged variables (GRID, LANE, SEQ, PARAM; see
`lowercheck.symbolic`), the `domain` of its LANE and SEQ variables, and the `guard` under which it
happens. GRID ranges come from the enclosing `access.kernel` (one per launch, in launch order).
Buffers are the entry's parameters (`kernel.param`), so two sides' accesses compare directly.

```mlir
access.kernel @add_kernel {grid = ["floor((n + 1023)/1024)", "1", "1"]} {
  access.access {buffer = "x", kind = "read", space = "global", element_type = f32,
                  indices = ["1024*GRID0 + LANE0"], domain = ["LANE0 >= 0", "LANE0 < 1024"],
                  guard = ["1024*GRID0 + LANE0 < n"], fastest = "LANE0"}
}
```

`id` names the access within its kernel; a write's `sources` lists the ids of the reads its
stored value is computed from (for the dependence map of each output), each with the steps that
relate its work item to the write's (grammar: `lowercheck.dialects.sources`). Two optional facts feed the
type checks: `int32` lists the subexpressions of the index that the kernel computes in 32-bit
integers (each must fit for the sizes in use: LC209), and `accumulation` the float types in which
the stored value's additions (adds, dot products, reductions, atomics) were done (LC305; `tf32`
for a dot whose inputs are rounded to tf32), and `combined` the operators by which the values of
several work items, lanes or trips were combined into the stored value (`sum`, `max`, `min`,
`product`, or `?` for a combination lowercheck cannot name: a softmax's output is ["max", "sum"];
LC204 compares them). A tile access (Triton, Pallas) also lists its `lanes`: the
lane of each dimension of its tile, outermost first ("" for a dimension of size 1), so that two
accesses can be compared position by position (the same position of two tiles is the same thread of
the program: the exactly-once check, LC203).

Two kinds of access are modelled only in part ("partly proved"), the rest of the kernel staying
fully checked:
- an access that happens only where a condition on loaded data holds (`if (x[i] > 0)`, a label
  that is not `ignore_index`) keeps its index, domain and guard and adds `data_condition`, which
  says what the condition comes from. Its bounds are checked as if the condition always held (a
  superset of what it touches); it does not count as writing its buffer, so coverage and dependence
  comparisons of that buffer are left to the runs.
- an access whose index is computed from loaded data (an embedding lookup `table[ids[i]]`, a
  gather, a page table) is an `access.indirect` op: buffer, kind, element type, and the `sources`
  (read ids) the index comes from. The runs bounds-check it every time (the SIMT emulator and the
  Triton runner record every out-of-bounds access: LC201).

An access whose index could not be modelled at all is an `access.unmodelled` op with the reason:
the static verdict is then inconclusive, never a silent pass.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr, SymbolRefAttr
from xdsl.ir import Dialect, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from lowercheck.dialects._expr import axes, strings, verify_exprs

KINDS = ("read", "write", "atomic")
SPACES = ("global", "shared", "local")
COMBINED = frozenset({"sum", "max", "min", "product", "?"})  # `combined`: the operators a reduction names


@irdl_op_definition
class KernelOp(IRDLOperation):
    """The accesses of one launch of `callee`; `grid` bounds GRID0..2 (0 <= GRIDd < grid[d])."""

    name = "access.kernel"
    callee = prop_def(SymbolRefAttr)
    grid = prop_def(ArrayAttr[StringAttr])
    ordered = opt_prop_def(ArrayAttr[IntegerAttr])  # the launch's ordered grid axes (kernel.launch)
    body = region_def("single_block")
    traits = traits_def(NoTerminator())
    assembly_format = "$callee attr-dict-with-keyword $body"
    irdl_options = (ParsePropInAttrDict(),)

    def verify_(self) -> None:
        verify_exprs(self.name, "grid", self.grid.data)

    @property
    def grid_exprs(self) -> list[str]:
        return strings(self.grid)

    @property
    def ordered_axes(self) -> frozenset[int]:
        return axes(self.ordered)


@irdl_op_definition
class AccessOp(IRDLOperation):
    """One load, store or atomic: buffer[indices] under guard, for every point of the domain."""

    name = "access.access"
    buffer = prop_def(StringAttr)
    kind = prop_def(StringAttr)
    space = prop_def(StringAttr)
    element_type = prop_def(TypeAttribute)
    indices = prop_def(ArrayAttr[StringAttr])
    domain = prop_def(ArrayAttr[StringAttr])
    guard = prop_def(ArrayAttr[StringAttr])
    fastest = prop_def(StringAttr)
    access_id = prop_def(StringAttr, prop_name="id")
    sources = prop_def(ArrayAttr[StringAttr])
    int32 = opt_prop_def(ArrayAttr[StringAttr])
    accumulation = opt_prop_def(ArrayAttr[StringAttr])
    combined = opt_prop_def(ArrayAttr[StringAttr])  # how several work items' values were combined
    lanes = opt_prop_def(ArrayAttr[StringAttr])  # a tile's lane per dimension, outermost first
    data_condition = opt_prop_def(StringAttr)  # it happens only where this condition on loaded data holds
    assembly_format = "attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def verify_(self) -> None:
        if self.kind.data not in KINDS:
            raise VerifyException(f"access.access: kind must be one of {KINDS}")
        if self.space.data not in SPACES:
            raise VerifyException(f"access.access: space must be one of {SPACES}")
        for field in ("indices", "domain", "guard"):
            verify_exprs(self.name, field, getattr(self, field).data)
        if self.int32 is not None:
            verify_exprs(self.name, "int32", self.int32.data)
        if self.combined is not None and not {c.data for c in self.combined.data} <= COMBINED:
            raise VerifyException(f"access.access: combined must be among {sorted(COMBINED)}")
        if self.lanes is not None and any(a.data and not a.data.startswith("LANE") for a in self.lanes.data):
            raise VerifyException("access.access: lanes must be LANE variables or \"\"")

    @property
    def tile_lanes(self) -> tuple[str, ...] | None:
        """The lane of each dimension of a tile access ("" for a dimension of size 1); None when
        not recorded (a CUDA thread's access, which has no tile)."""
        return tuple(a.data for a in self.lanes.data) if self.lanes is not None else None


@irdl_op_definition
class BufferOp(IRDLOperation):
    """A buffer the kernel allocates: `shared` (one per block, `__shared__`) or `local` (one per
    thread). Its accesses name it; an element is identified together with the block (or thread)."""

    name = "access.buffer"
    buffer_name = prop_def(StringAttr, prop_name="name")
    space = prop_def(StringAttr)
    element_type = prop_def(TypeAttribute)
    shape = prop_def(ArrayAttr[StringAttr])
    assembly_format = "attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def verify_(self) -> None:
        if self.space.data not in ("shared", "local"):
            raise VerifyException("access.buffer: space must be shared or local")
        verify_exprs(self.name, "shape", self.shape.data)


@irdl_op_definition
class UnmodelledOp(IRDLOperation):
    """An access lowercheck could not express; `reason` says why (the verdict becomes inconclusive)."""

    name = "access.unmodelled"
    buffer = prop_def(StringAttr)
    reason = prop_def(StringAttr)
    assembly_format = "attr-dict"
    irdl_options = (ParsePropInAttrDict(),)


@irdl_op_definition
class IndirectOp(IRDLOperation):
    """An access whose index comes from loaded data (`table[ids[i]]`): which buffer and how, and the
    reads (`sources`) the index is computed from; bounds-checked by the runs, not statically."""

    name = "access.indirect"
    buffer = prop_def(StringAttr)
    kind = prop_def(StringAttr)
    space = prop_def(StringAttr)
    element_type = prop_def(TypeAttribute)
    sources = prop_def(ArrayAttr[StringAttr])
    reason = prop_def(StringAttr)
    # A read's own id: what it loads is computed from it (an index read through a gather, a
    # condition on it), as from any read; no static check looks it up.
    access_id = opt_prop_def(StringAttr, prop_name="id")
    assembly_format = "attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def verify_(self) -> None:
        if self.kind.data not in KINDS:
            raise VerifyException(f"access.indirect: kind must be one of {KINDS}")
        if self.space.data not in SPACES:
            raise VerifyException(f"access.indirect: space must be one of {SPACES}")
        if not self.sources.data:
            raise VerifyException("access.indirect: sources must name the reads the index comes from")


Access = Dialect("access", [KernelOp, AccessOp, BufferOp, UnmodelledOp, IndirectOp], [])
