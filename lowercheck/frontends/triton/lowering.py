"""From a wrapper's captured launches to one module: a `kernel.entry` plus the `tt.func`s it launches.

Tensors are named by what they are to the entry: a parameter (by identity, views followed to their
base), a returned tensor (`return0`, ...), or a tensor the wrapper allocated for itself (`temp0`, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import (
    ArrayAttr,
    FileLineColLoc,
    IntAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Block, Region

from lowercheck.dialects.kernel import EntryOp, LaunchOp, ParamOp, split_view
from lowercheck.errors import LowercheckError, SourceLocation, Unsupported, UserError
from lowercheck.runners.user_code import entry_callable
from lowercheck.frontends.base import (
    Binding,
    EntryCandidate,
    EntryParam,
    NeedsConcreteSizes,
    ScalarArg,
    SizeArg,
    TensorArg,
    TupleArg,
    element_type,
    returned_variables,
)
from lowercheck.frontends.triton import compile as ttc
from lowercheck.frontends.triton.capture import Capture, beyond_shapes, capture
from lowercheck.frontends.triton.effects import effects
from lowercheck.frontends.triton.source import discover, jit_function, load

def entries(path: str) -> list[EntryCandidate]:
    """The wrappers of the file (functions that launch a kernel of the file), in source order; then
    its kernels, each an entry by name only (launched on a spec's `[launch] grid`)."""
    module = load(path)
    wrappers, kernels = discover(path, module)
    return [EntryCandidate(w.name, SourceLocation(path, w.line, w.column),
                           tuple(EntryParam(p, "unknown") for p in w.params), w.launches)
            for w in wrappers] + \
        [EntryCandidate(k.name, SourceLocation(path, k.line, k.column), tuple(EntryParam(p, "unknown") for p in k.params),
                        (k.name,), kernel=True) for k in kernels]


def lower(path: str, entry: str | None, binding: Binding) -> ModuleOp:
    """The module for `entry` (a wrapper; or a kernel when the binding has a `grid`)."""
    module = load(path)
    wrappers, kernels = discover(path, module)
    grid = getattr(binding, "grid", None)
    target, kernel_grid = _resolve(path, entry, wrappers, kernels, grid)
    fn = entry_callable(module, target.name)
    captured = capture(fn, path, binding, kernel_grid)
    if captured.shapes_only:
        try:
            return _built(path, target, captured, binding)
        except (LowercheckError, NeedsConcreteSizes):
            raise
        except Exception as err:  # noqa: BLE001 - a shape tensor where the builder met what it does not take
            beyond_shapes(f"building the module from the shape-only capture: {type(err).__name__}: {err}")
        captured = capture(fn, path, binding, kernel_grid, shapes_only=False)
    return _built(path, target, captured, binding)


def _built(path: str, target, captured: Capture, binding: Binding) -> ModuleOp:
    if not captured.launches:
        raise UserError(f"`{target.name}` launched no kernel with this binding",
                        SourceLocation(path, target.line), hint="check the branches that skip the launch")
    return _Builder(path, captured, binding).build(target.name, target.line, target.column)


def _resolve(path, entry, wrappers, kernels, grid):
    names = ", ".join(w.name for w in wrappers)
    if entry is not None:
        for w in wrappers:
            if w.name == entry:
                return w, None
        for k in kernels:
            if k.name == entry:
                if not grid:
                    raise UserError(f"`{entry}` is a kernel: launching it needs a grid", SourceLocation(path, k.line),
                                    hint='give it in the spec (`[launch] grid = ["(n + 1023) // 1024"]`), or '
                                         "name a wrapper that launches it")
                return k, tuple(grid)
        raise UserError(f"no wrapper or kernel `{entry}` in {path}", SourceLocation(path, 1),
                        hint=f"wrappers here: {names}" if names else "define a function that launches the kernel")
    if len(wrappers) == 1:
        return wrappers[0], None
    if not wrappers:
        if len(kernels) == 1 and grid:
            return kernels[0], tuple(grid)
        raise UserError(f"no function in {path} launches a Triton kernel", SourceLocation(path, 1),
                        hint="add a wrapper that calls `kernel[grid](...)`, or name a kernel and give a grid")
    raise UserError(f"{path} has several wrappers ({names})", SourceLocation(path, wrappers[1].line),
                    hint=f"name one after a colon: {path}:{wrappers[0].name}")


@dataclass
class _Builder:
    path: str
    captured: Capture
    binding: Binding
    tensor_names: dict[int, str] = field(default_factory=dict)
    temps: list[Any] = field(default_factory=list)
    funcs: list = field(default_factory=list)
    variants: dict[tuple, tuple[str, Any]] = field(default_factory=dict)  # -> (symbol, effects)
    read: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    launched: set[str] = field(default_factory=set)  # tensors some launch receives
    entry: str = ""

    def build(self, name: str, line: int, column: int) -> ModuleOp:
        self.entry = name
        self._name_tensors()
        launches = [self._launch(launch) for launch in self.captured.launches]
        params = self._params()
        properties = {"sym_name": StringAttr(name), "language": StringAttr("triton"), "file": StringAttr(self.path)}
        if self.captured.reads_data_at is not None:
            properties["reads_data_at"] = StringAttr(self.captured.reads_data_at)
        entry = EntryOp.create(properties=properties,
                               regions=[Region(Block([*params, *launches]))])
        entry.location = FileLineColLoc(StringAttr(self.path), IntAttr(line), IntAttr(column))
        return ModuleOp([entry, *self.funcs])

    # --- tensors -----------------------------------------------------------------------------

    def _name_tensors(self) -> None:
        import torch

        for pname, value in self.captured.inputs.items():
            if isinstance(value, torch.Tensor):
                self.tensor_names.setdefault(id(_root(value)), pname)
            elif isinstance(self.binding.args.get(pname), TupleArg):
                for item, name in zip(value, self.binding.args[pname].item_names(pname), strict=True):
                    if name is not None:
                        self.tensor_names.setdefault(id(_root(item)), name)
        for index, value in enumerate(self.captured.returned):
            self.tensor_names.setdefault(id(_root(value)), f"return{index}")

    def _tensor(self, value) -> str:
        """The entry tensor a launch argument is; a view from an offset on is `name[offset:]`
        (`kernel.split_view`: `logits[start * V:]` for a chunk of rows)."""
        root = _root(value)
        if id(root) not in self.tensor_names:
            self.tensor_names[id(root)] = f"temp{len(self.temps)}"
            self.temps.append(root)
        name = self.tensor_names[id(root)]
        offset = value.storage_offset() - root.storage_offset()
        if isinstance(offset, int) and offset == 0:
            return name
        if value.dtype != root.dtype:
            raise Unsupported("a kernel receives a view with an offset into a tensor of another element type")
        return f"{name}[{self.captured.expr_of(offset)}:]"

    # --- launches ----------------------------------------------------------------------------

    def _launch(self, launch) -> LaunchOp:
        import torch

        fn = jit_function(launch.kernel)
        variant = ttc.specialize(fn, launch.bound, launch.options, self.captured.symbolic, launch.location)
        symbol, func_effects = self._compiled(fn, variant)
        args: list[str] = []
        index = 0  # the TTIR argument: a host TensorDescriptor is several (the tensor, its shape, its strides)
        for pname in variant.runtime_params:
            value = launch.bound[pname]
            descriptor = _host_descriptor(value)
            if isinstance(value, torch.Tensor) or descriptor is not None:
                view = self._tensor(value if descriptor is None else value.base)
                name, _ = split_view(view)
                self.launched.add(name)
                if index in func_effects.read:
                    self.read.add(name)
                if index in func_effects.written:
                    self.written.add(name)
                args.append(view)
                index += 1
                if descriptor is not None:  # `desc.shape.k`, then `desc.stride.k`, as Triton passes them
                    args += [self._scalar(v) for v in (*value.shape, *value.strides)]
                    index += 2 * len(value.shape)
            else:
                args.append(self._scalar(value))
                index += 1
        grid = [g if isinstance(g, str) else self.captured.expr_of(g) for g in launch.grid]
        grid += ["1"] * (3 - len(grid))
        op = LaunchOp.create(properties={
            "callee": SymbolRefAttr(symbol), "grid": ArrayAttr([StringAttr(g) for g in grid[:3]]),
            "block": ArrayAttr([]), "args": ArrayAttr([StringAttr(a) for a in args]),
            "num_warps": IntAttr(ttc.num_warps(variant))})
        if launch.location is not None:
            op.location = FileLineColLoc(StringAttr(self.path), IntAttr(launch.location.line), IntAttr(0))
        return op

    def _scalar(self, value: Any) -> str:
        if isinstance(value, float):
            for pname, given in self.captured.inputs.items():
                if given is value:
                    return pname
            return repr(value)
        return self.captured.expr_of(value)

    def _compiled(self, fn, variant) -> tuple[str, Any]:
        key = (id(fn), variant)
        if key not in self.variants:
            taken = sum(1 for k in self.variants if k[0] == id(fn))
            taken += fn.__name__ == self.entry  # a kernel entry: the entry holds its name, the func a number
            symbol = fn.__name__ if taken == 0 else f"{fn.__name__}_{taken}"
            text = ttc.ttir(fn, variant, self.path)
            funcs = ttc.to_xdsl(text, symbol, self.path)
            kernel = next(f for f in funcs if f.sym_name.data == symbol)
            self.funcs += funcs
            self.variants[key] = (symbol, effects(kernel))
        return self.variants[key]

    # --- params ------------------------------------------------------------------------------

    def _role(self, name: str) -> str:
        if name in self.written:
            return "inout" if name in self.read else "out"
        return "in"

    def _params(self) -> list[ParamOp]:
        params: list[ParamOp] = []
        for pname, value in self.captured.inputs.items():
            arg = self.binding.args.get(pname)
            if isinstance(arg, TensorArg):
                params.append(ParamOp(pname, "buffer", self._role(pname), element_type(arg.dtype),
                                      [str(s) for s in arg.shape]))
            elif isinstance(arg, TupleArg):  # a tuple's tensors, `res_0`, `res_1`, ...
                for item, name in zip(arg.items, arg.item_names(pname), strict=True):
                    if isinstance(item, TensorArg):
                        params.append(ParamOp(name, "buffer", self._role(name), element_type(item.dtype),
                                              [str(s) for s in item.shape]))
            elif isinstance(arg, SizeArg):
                width = 64 if isinstance(value, int) and not -(2**31) <= value < 2**31 else 32
                params.append(ParamOp(pname, "scalar", "size", IntegerType(width)))
            elif isinstance(arg, ScalarArg):
                role = "size" if arg.dtype.startswith(("int", "uint")) else "scalar"
                params.append(ParamOp(pname, "scalar", role, element_type(arg.dtype)))
        variables = returned_variables(self.path, self.entry, self.captured.returned_items)
        for index, value in enumerate(self.captured.returned):
            name = f"return{index}"
            if self.tensor_names.get(id(_root(value))) == name:
                # No kernel receives it and a torch operation of the wrapper made it (`dg.sum(0)`).
                host = name not in self.launched and self.captured.is_computed(_root(value))
                params.append(ParamOp(name, "buffer", "out", _torch_element(value.dtype), self._shape(value),
                                      written_by="host" if host else None,
                                      variable=variables[index] if index < len(variables) else None))
        for index, value in enumerate(self.temps):
            params.append(ParamOp(f"temp{index}", "buffer", "temp", _torch_element(value.dtype), self._shape(value)))
        return params

    def _shape(self, value) -> list[str]:
        return [self.captured.expr_of(s) for s in value.shape]


def _host_descriptor(value):
    """`value` if it is a host-side `TensorDescriptor` (Triton's TMA descriptor made by the wrapper,
    `TensorDescriptor.from_tensor(x, block_shape=[...])`), else None."""
    return value if type(value).__name__ == "TensorDescriptor" and hasattr(value, "base") \
        and hasattr(value, "block_shape") else None


def _root(tensor):
    while getattr(tensor, "_base", None) is not None:
        tensor = tensor._base
    return tensor


def _torch_element(dtype) -> Attribute:
    return element_type(str(dtype).removeprefix("torch."))
