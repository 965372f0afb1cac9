"""The `kernel` dialect: an entry point, its parameters (with roles and dtypes) and its launches.

An entry is what a user calls: a CUDA host launcher, a Python wrapper around a Triton kernel, or
a kernel launched directly with the grid from the spec. Its launch geometry is a list of index
expressions over the entry's size parameters (see `lowercheck.symbolic`).

```mlir
kernel.entry @vadd {language = "cuda", file = "vadd.cu"} {
  kernel.param {name = "a", kind = "buffer", role = "in", element_type = f32, shape = ["n"]}
  kernel.param {name = "n", kind = "scalar", role = "size", element_type = i32, shape = []}
  kernel.launch @vadd_kernel {grid = ["floor((n + 255)/256)", "1", "1"], block = ["256", "1", "1"],
                               args = ["a", "b", "c", "n"]}
}
```

The kernels themselves live beside the entry in the same module: `func.func` (CUDA, upstream
func/arith/scf/memref/math plus gpu thread/block ids) or `tt.func` (Triton TTIR).
"""

from __future__ import annotations

import re
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntAttr,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Dialect, TypeAttribute
from xdsl.irdl import (
    ParsePropInAttrDict,
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.traits import NoTerminator, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from lowercheck.dialects._expr import axes, strings, verify_exprs

PARAM_KINDS = ("buffer", "scalar")
# A unit attribute on a kernel function (a Pallas TPU kernel's `tt.func`): its runs raise on any
# access outside a buffer (TPU interpret mode), so extract-accesses may leave data-dependent
# accesses to them (`access.indirect`), as it does for every CUDA and Triton kernel.
BOUNDS_CHECKED = "lowercheck.bounds_checked"
ROLES = ("in", "out", "inout", "temp", "size", "scalar", "unknown")


@irdl_op_definition
class EntryOp(IRDLOperation):
    """An entry point: parameters and launches in order. `language` is cuda | triton | pallas | torch."""

    name = "kernel.entry"
    sym_name = prop_def(SymbolNameConstraint())
    language = prop_def(StringAttr)
    file = prop_def(StringAttr)
    # Where a Python entry read its tensors' values while captured (`x.sum().item()` at file:line):
    # it was captured on real tensors with lowercheck's values, and its launches are those values'.
    reads_data_at = opt_prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), SymbolOpInterface())
    assembly_format = "$sym_name attr-dict-with-keyword $body"
    irdl_options = (ParsePropInAttrDict(),)

    @property
    def params(self) -> list[ParamOp]:
        return [op for op in self.body.ops if isinstance(op, ParamOp)]

    @property
    def launches(self) -> list[LaunchOp]:
        return [op for op in self.body.ops if isinstance(op, LaunchOp)]

    @property
    def operators(self) -> list[AtenOp]:
        """A PyTorch reference's operator graph, in order (empty for a kernel)."""
        return [op for op in self.body.ops if isinstance(op, AtenOp)]

    @property
    def example_sizes(self) -> dict[str, int]:
        return next((op.sizes for op in self.body.ops if isinstance(op, ExampleOp)), {})

    @property
    def example_draws(self) -> str:
        """The input kind of the entry's own example floats ("normal" unless it says another)."""
        found = next((op.draws for op in self.body.ops if isinstance(op, ExampleOp)), None)
        return found.data if found is not None else "normal"

    @property
    def example_ranges(self) -> dict[str, tuple[str, str]]:
        """Each integer input's range in the entry's own example inputs (`ExampleOp.ranges`)."""
        return next((op.ranges for op in self.body.ops if isinstance(op, ExampleOp)), {})

    @property
    def scheduled(self) -> bool:
        """Whether the entry says who computes what (kernels with launches), unlike a reference or a
        solution module run whole."""
        return self.language.data not in ("torch", "module")

    def param(self, name: str) -> ParamOp | None:
        return next((p for p in self.params if p.pname == name), None)


@irdl_op_definition
class ParamOp(IRDLOperation):
    """One parameter of an entry: a buffer (with element type, role and shape) or a scalar."""

    name = "kernel.param"
    param_name = prop_def(StringAttr, prop_name="name")
    kind = prop_def(StringAttr)
    role = prop_def(StringAttr)
    element_type = prop_def(TypeAttribute)
    shape = prop_def(ArrayAttr[StringAttr])
    # "host": an output no kernel writes, which the entry's own operations compute whole (a wrapper
    # returning `partials.sum(0)`): the runs check its values, the access checks have nothing to check.
    written_by = opt_prop_def(StringAttr)
    # A returned output's variable in the entry's `return` (`return y, rstd`): a spec may name it so.
    variable = opt_prop_def(StringAttr)
    assembly_format = "attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, name: str, kind: str, role: str, element_type: Attribute, shape=(),
                 written_by: str | None = None, variable: str | None = None):
        from lowercheck.dialects._expr import expr_array

        properties = {"name": StringAttr(name), "kind": StringAttr(kind), "role": StringAttr(role),
                      "element_type": element_type, "shape": expr_array(shape)}
        if written_by is not None:
            properties["written_by"] = StringAttr(written_by)
        if variable is not None:
            properties["variable"] = StringAttr(variable)
        super().__init__(properties=properties)

    @property
    def host_written(self) -> bool:
        return self.written_by is not None and self.written_by.data == "host"

    @property
    def pname(self) -> str:
        return self.param_name.data

    def verify_(self) -> None:
        if self.kind.data not in PARAM_KINDS:
            raise VerifyException(f"kernel.param: kind must be one of {PARAM_KINDS}")
        if self.role.data not in ROLES:
            raise VerifyException(f"kernel.param: role must be one of {ROLES}")
        verify_exprs(self.name, "shape", self.shape.data)
        if self.written_by is not None and (self.written_by.data != "host" or self.role.data != "out"):
            raise VerifyException("kernel.param: written_by = \"host\" is the only value, on an output")


_VIEW = re.compile(r"^(?P<name>[A-Za-z_]\w*)\[(?P<offset>.+):\]$")


def split_view(arg: str) -> tuple[str, str | None]:
    """A launch argument as (name, offset): `x` is the whole buffer `x` (offset None); `x[n*k:]`,
    what a launcher passes as `x + n * k`, is `x` from its element n*k on (in `x`'s elements)."""
    m = _VIEW.match(arg)
    return (m.group("name"), m.group("offset")) if m else (arg, None)


@irdl_op_definition
class LaunchOp(IRDLOperation):
    """A launch of `callee` with grid (and, for CUDA, block) extents and arguments as expressions
    over the entry's parameters. A buffer argument is the entry parameter's name, or a view of it
    from an offset on (`x[n*k:]`: `split_view`)."""

    name = "kernel.launch"
    callee = prop_def(SymbolRefAttr)
    grid = prop_def(ArrayAttr[StringAttr])
    block = prop_def(ArrayAttr[StringAttr])
    args = prop_def(ArrayAttr[StringAttr])
    num_warps = opt_prop_def(IntAttr)
    shared_bytes = opt_prop_def(StringAttr)  # CUDA: the dynamic shared memory bytes (3rd <<<>>> argument)
    # Grid axes whose steps run one after another on one core, in order (a Pallas TPU kernel's
    # "arbitrary" dimension semantics): two steps along them are one work item's program order.
    ordered = opt_prop_def(ArrayAttr[IntegerAttr])
    assembly_format = "$callee attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    GRID_AXES: ClassVar[int] = 3

    def verify_(self) -> None:
        if len(self.grid.data) != self.GRID_AXES:
            raise VerifyException("kernel.launch: grid has three extents (x, y, z)")
        if self.ordered is not None and any(not 0 <= a < self.GRID_AXES for a in self.ordered_axes):
            raise VerifyException("kernel.launch: an ordered axis is a grid axis (0, 1 or 2)")
        for field in ("grid", "block"):
            verify_exprs(self.name, field, getattr(self, field).data)
        for arg in self.args.data:
            name, offset = split_view(arg.data)
            verify_exprs(self.name, "args", [StringAttr(name)] + ([StringAttr(offset)] if offset is not None else []))
        if self.shared_bytes is not None:
            verify_exprs(self.name, "shared_bytes", (self.shared_bytes,))

    @property
    def grid_exprs(self) -> list[str]:
        return strings(self.grid)

    @property
    def ordered_axes(self) -> frozenset[int]:
        return axes(self.ordered)

    @property
    def block_exprs(self) -> list[str]:
        return strings(self.block)

    @property
    def arg_exprs(self) -> list[str]:
        return strings(self.args)


@irdl_op_definition
class AtenOp(IRDLOperation):
    """One operator of a PyTorch reference (no schedule, only dataflow): the ATen operator `target`
    applied to `args` (values or entry parameters by name, constants as text) gives `result`,
    of `shape` (expressions over the sizes) and `element_type`.

    ```mlir
    kernel.aten {target = "aten.softmax.int", result = "softmax", args = ["x", "-1"],
                 shape = ["x_size0", "x_size1"], element_type = f32}
    ```
    """

    name = "kernel.aten"
    target = prop_def(StringAttr)
    result = prop_def(StringAttr)
    args = prop_def(ArrayAttr[StringAttr])
    shape = prop_def(ArrayAttr[StringAttr])
    element_type = prop_def(TypeAttribute)
    assembly_format = "attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, target: str, result: str, args, shape, element_type: Attribute):
        from lowercheck.dialects._expr import expr_array

        super().__init__(properties={"target": StringAttr(target), "result": StringAttr(result),
                                     "args": ArrayAttr([StringAttr(a) for a in args]),
                                     "shape": expr_array(shape), "element_type": element_type})

    def verify_(self) -> None:
        verify_exprs(self.name, "shape", self.shape.data)


@irdl_op_definition
class ExampleOp(IRDLOperation):
    """The sizes an entry's own example inputs have (a KernelBench `get_inputs()`): the sweep
    includes them when they are small enough to run here.

    An integer input's values keep the range the example draws them in (`ranges`: class labels in
    [0, num_classes), indices in [0, rows)), its bounds as expressions of the sizes.

    ```mlir
    kernel.example {names = ["x_size0", "x_size1"], values = [16 : i64, 16384 : i64]}
    kernel.example {names = ["p_size0", "p_size1"], values = [256 : i64, 10 : i64],
                    ranges = {targets = ["0", "p_size1"]}}
    ```
    """

    name = "kernel.example"
    names = prop_def(ArrayAttr[StringAttr])
    values = prop_def(ArrayAttr[IntegerAttr])
    value_ranges = opt_prop_def(DictionaryAttr, prop_name="ranges")
    # The input kind (`compare.inputs.KINDS`) the example draws its floats as, where not signed normal:
    # "rand01" for `torch.rand` (every float in [0, 1)).
    draws = opt_prop_def(StringAttr)
    assembly_format = "attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, sizes: dict[str, int], ranges: dict[str, tuple[str, str]] | None = None,
                 draws: str | None = None):
        properties = {"names": ArrayAttr([StringAttr(k) for k in sizes]),
                      "values": ArrayAttr([IntegerAttr(int(v), 64) for v in sizes.values()])}
        if draws:
            properties["draws"] = StringAttr(draws)
        if ranges:
            properties["ranges"] = DictionaryAttr({name: ArrayAttr([StringAttr(lo), StringAttr(hi)])
                                                   for name, (lo, hi) in ranges.items()})
        super().__init__(properties=properties)

    @property
    def sizes(self) -> dict[str, int]:
        return {k.data: v.value.data for k, v in zip(self.names.data, self.values.data, strict=True)}

    @property
    def ranges(self) -> dict[str, tuple[str, str]]:
        if self.value_ranges is None:
            return {}
        return {name: (bounds.data[0].data, bounds.data[1].data) for name, bounds in self.value_ranges.data.items()}


Kernel = Dialect("kernel", [EntryOp, ParamOp, LaunchOp, AtenOp, ExampleOp], [])
