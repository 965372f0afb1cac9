"""From a traced Pallas entry to one module: a `kernel.entry` plus one `tt.func` per pallas_call."""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, FileLineColLoc, IntAttr, IntegerAttr, IntegerType, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Block, Region

from lowercheck.dialects.kernel import EntryOp, LaunchOp, ParamOp
from lowercheck.errors import SourceLocation, Unsupported, UserError
from lowercheck.frontends.base import Binding, EntryCandidate, EntryParam, ScalarArg, SizeArg, TensorArg, TupleArg
from lowercheck.frontends.pallas.capture import capture
from lowercheck.frontends.pallas.kernel import build_kernel, element_type, kernel_name, launch_grid, ordered_axes
from lowercheck.frontends.pallas.source import Entry, discover, load, wrappers


def entries(path: str) -> list[EntryCandidate]:
    found = discover(path)
    return [EntryCandidate(e.name, SourceLocation(path, e.line, e.column),
                           tuple(EntryParam(p, "unknown") for p in e.params), e.kernels, calls=e.calls)
            for e in [*found, *wrappers(path, found)]]


def lower(path: str, entry: str | None, binding: Binding) -> ModuleOp:
    target = _resolve(path, entry, discover(path))
    if target.mesh_kernels:
        construct, line, column = target.mesh_kernels[0]
        raise Unsupported(f"`{construct}` launches a kernel on a mesh (Mosaic GPU's or the TPU's kernel "
                          "language: whole refs, explicit copies and barriers, no BlockSpecs), which "
                          "lowercheck does not model", SourceLocation(path, line, column),
                          hint="lowercheck models kernels launched with pl.pallas_call and BlockSpecs")
    fn = getattr(load(path), target.name, None)
    if not callable(fn):
        raise UserError(f"`{target.name}` is not a function once {path} is imported", SourceLocation(path, target.line))
    captured = capture(fn, path, binding)
    if not captured.calls:
        raise UserError(f"`{target.name}` called no pallas_call with this binding", SourceLocation(path, target.line),
                        hint="check the branches that skip the call")
    symbols: dict[str, int] = {}
    funcs, launches = [], []
    for call in captured.calls:
        name = kernel_name(call)
        symbol = name if name not in symbols else f"{name}_{symbols[name]}"
        symbols[name] = symbols.get(name, 0) + 1
        funcs.append(build_kernel(call, path, symbol))
        grid = [str(g) for g in launch_grid(call.eqn.params["grid_mapping"].grid)] + ["1"] * 3
        ordered = ordered_axes(call.eqn.params)
        launch = LaunchOp.create(properties={
            "callee": SymbolRefAttr(symbol), "grid": ArrayAttr([StringAttr(g) for g in grid[:3]]),
            "block": ArrayAttr([]), "args": ArrayAttr([StringAttr(a) for a in [*call.operands, *call.results]]),
            **({"ordered": ArrayAttr([IntegerAttr(a, 32) for a in ordered])} if ordered else {})})
        if call.location is not None:
            launch.location = FileLineColLoc(StringAttr(path), IntAttr(call.location.line), IntAttr(0))
        launches.append(launch)
    written = {name for call in captured.calls for name in call.results}
    params = _params(captured, binding, written)
    op = EntryOp.create(properties={"sym_name": StringAttr(target.name), "language": StringAttr("pallas"),
                                    "file": StringAttr(path)}, regions=[Region(Block([*params, *launches]))])
    op.location = FileLineColLoc(StringAttr(path), IntAttr(target.line), IntAttr(target.column))
    return ModuleOp([op, *funcs])


def _resolve(path: str, entry: str | None, found: list[Entry]) -> Entry:
    names = ", ".join(e.name for e in found)
    if entry is not None:
        for e in found:
            if e.name == entry:
                return e
        for e in wrappers(path, found):
            if e.name == entry:
                return e
        raise UserError(f"no function `{entry}` calling pallas_call in {path}", SourceLocation(path, 1),
                        hint=f"entries here: {names}" if names else "define a function that calls pl.pallas_call")
    if len(found) == 1:
        return found[0]
    if not found:
        raise UserError(f"no function in {path} calls pallas_call", SourceLocation(path, 1),
                        hint="the entry is a function that calls pl.pallas_call(kernel, ...)(arrays)")
    raise UserError(f"{path} has several entries ({names})", SourceLocation(path, found[1].line),
                    hint=f"name one after a colon: {path}:{found[0].name}")


def _params(captured, binding: Binding, written: set[str]) -> list[ParamOp]:
    params: list[ParamOp] = []
    for name, value in captured.values.items():
        arg = binding.args.get(name)
        if isinstance(arg, TensorArg):
            role = "inout" if name in written else "in"
            params.append(ParamOp(name, "buffer", role, element_type(arg.dtype), [str(s) for s in arg.shape]))
        elif isinstance(arg, SizeArg):
            params.append(ParamOp(name, "scalar", "size", IntegerType(32)))
        elif isinstance(arg, ScalarArg):
            role = "size" if arg.dtype.startswith(("int", "uint")) else "scalar"
            params.append(ParamOp(name, "scalar", role, element_type(arg.dtype)))
        elif isinstance(arg, TupleArg):  # a tuple's arrays, `res_0`, `res_1`, ... (its values are no params)
            for item, item_name in zip(arg.items, arg.item_names(name), strict=True):
                if isinstance(item, TensorArg):
                    role = "inout" if item_name in written else "in"
                    params.append(ParamOp(item_name, "buffer", role, element_type(item.dtype),
                                          [str(d) for d in item.shape]))
    for name, aval in captured.returned.items():
        params.append(ParamOp(name, "buffer", "out", element_type(aval.dtype), _shape(aval.shape, binding)))
    for index, aval in enumerate(captured.temps):
        params.append(ParamOp(f"temp{index}", "buffer", "temp", element_type(aval.dtype), _shape(aval.shape, binding)))
    return params


def _shape(shape, binding: Binding) -> list[str]:
    """Each extent as the size it equals when exactly one size does (`n`), else the number."""
    out = []
    for extent in shape:
        named = [k for k, v in (binding.sizes or {}).items() if v == extent]
        out.append(named[0] if len(named) == 1 else str(extent))
    return out
