"""From a PyTorch reference to a module: `torch.export` with every tensor dimension dynamic gives the
operator graph and, in its symbolic shapes, which dimensions are the same size (`a @ b` ties a's
columns to b's rows); the symbols become size names and the graph becomes `kernel.aten` ops.

Size names: the binding's (the other side's names for the same dimensions) where it gives them,
else `<param>_size<d>` after the first input dimension a symbol appears in. A dimension export
specialises (a 1 in the example, or a size the code branches on) stays a number.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import warnings
from collections.abc import Sequence
from typing import Any

import sympy
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, IntegerType, ModuleOp, StringAttr
from xdsl.ir import Block, Region

from lowercheck import symbolic
from lowercheck.dialects.kernel import AtenOp, EntryOp, ExampleOp, ParamOp
from lowercheck.errors import SourceLocation, Unsupported, UserError
from lowercheck.frontends.base import Binding, ScalarArg, SizeArg, TensorArg, ValueArg, element_type, returned_variables
from lowercheck.frontends.torch.source import Entry, discover
from lowercheck.runners.user_code import UserFailure, describe, import_user_file

# Example sizes for a size the binding names but no example input fixes: distinct, so export
# relates two dimensions only when the code does, and >= 2, so none is specialised as 0 or 1.
_EXAMPLE_SIZES = (17, 19, 23, 29, 31, 37, 41, 43)


def lower(path: str, entry: str | None, binding: Binding) -> ModuleOp:
    import torch

    target = resolve(path, entry, discover(path))
    where = SourceLocation(path, target.line, target.column)
    module = _import(path)
    example, ranges = example_inputs(module, target, binding, path)
    meta = any(getattr(v, "is_meta", False) for v in example)
    fn = instantiate(module, target, path, meta=meta)
    try:
        exported = _export(fn, example, path, where)
    except Unsupported as why:
        if not callable(getattr(module, "get_inputs", None)) or not isinstance(fn, torch.nn.Module):
            raise
        return _eager(fn, target, example, binding, path, where, why, ranges)
    return _module(exported, target, example, binding, path, where, _held_extents(module, fn), ranges)


def _eager(fn: Any, entry: Entry, example: Sequence[Any], binding: Binding, path: str, where: SourceLocation,
           why: Unsupported, ranges: dict[str, tuple[int, int]]) -> ModuleOp:
    """A reference torch.export cannot trace (data-dependent shapes or branches: MoE routing, a mask's
    nonzero), read from one eager call instead: its inputs' shapes, each dimension named by its
    example value (the first dimension of that value names it: equal dimensions stay equal as the
    sizes are scaled), and its outputs' shapes and dtypes from the call (dimensions of an input's
    value take its name). No operator graph: the runs, eager on both sides, say the rest; the entry
    says where export stopped (`reads_data_at`)."""
    import torch

    names: dict[int, str] = {}
    params: list[ParamOp] = []
    sizes: dict[str, int] = {}
    for name, value in zip(entry.params, example, strict=True):
        if not isinstance(value, torch.Tensor):
            raise why
        extents = []
        for d, extent in enumerate(value.shape):
            extent = int(extent)
            if extent <= 1:
                extents.append(str(extent))
                continue
            names.setdefault(extent, f"{name}_size{d}")
            sizes[names[extent]] = extent
            extents.append(names[extent])
        params.append(ParamOp(name, "buffer", "in", element_type(_dtype(value.dtype), where), extents))
    if any(getattr(v, "is_meta", False) for v in example):
        raise why  # no values to run the reference on: what it returns is not known
    try:
        with torch.no_grad():
            returned = fn(*example)
    except Exception as err:  # noqa: BLE001 - the user's reference failed on its own inputs
        raise UserError(f"the reference fails on its own get_inputs(): {describe(err, path)}", where) from None
    for index, value in enumerate(t for t in _flatten(returned) if isinstance(t, torch.Tensor)):
        extents = [names.get(int(e), str(int(e))) for e in value.shape]
        params.append(ParamOp(f"return{index}", "buffer", "out", element_type(_dtype(value.dtype), where), extents))
    body: list[Any] = [*params, ExampleOp(sizes, _integer_ranges(ranges, sizes))]
    at = why.location or where
    op = EntryOp.create(properties={"sym_name": StringAttr(entry.name), "language": StringAttr("torch"),
                                    "file": StringAttr(path),
                                    "reads_data_at": StringAttr(f"{at.file}:{at.line}: torch.export cannot trace it "
                                                                f"({why.message[:160]}); read from an eager call")},
                           regions=[Region(Block(body))])
    op.location = FileLineColLoc(StringAttr(path), IntAttr(entry.line), IntAttr(entry.column))
    return ModuleOp([op])


def _held_extents(module: Any, fn: Any) -> set[int]:
    """The extents a module holds fixed: its parameters' and buffers' dimensions and the integers of
    `get_init_inputs()` (`nn.Linear(512, 1024)`: an input's 512 columns are the weight's). An input
    dimension export specialises to one of these is no size to sweep: the module is built for it."""
    import torch

    if not isinstance(fn, torch.nn.Module):
        return set()
    held = {int(d) for t in [*fn.parameters(), *fn.buffers()] for d in t.shape}
    init = getattr(module, "get_init_inputs", None)
    try:
        values = list(init()) if callable(init) else []
    except Exception:  # noqa: BLE001 - it ran once already (instantiate); nothing more to learn here
        values = []
    stack = list(values)
    while stack:
        value = stack.pop()
        if isinstance(value, (list, tuple)):
            stack.extend(value)
        elif isinstance(value, int) and not isinstance(value, bool):
            held.add(value)
    return held


def resolve(path: str, entry: str | None, found: list[Entry]) -> Entry:
    names = ", ".join(e.name for e in found)
    if entry is not None:
        for e in found:
            if e.name == entry:
                return e
        raise UserError(f"no entry `{entry}` in {path}", SourceLocation(path, 1), hint=f"entries here: {names or 'none'}")
    if len(found) == 1:
        return found[0]
    if not found:
        raise UserError(f"{path} defines no `Model` class and no function", SourceLocation(path, 1),
                        hint="a PyTorch reference is a KernelBench `class Model(nn.Module)` or a function on tensors")
    raise UserError(f"{path} has several entries ({names})", SourceLocation(path, found[1].line),
                    hint=f"name one after a colon: {path}:{found[0].name}")


def _import(path: str) -> Any:
    try:
        return import_user_file(path)
    except UserFailure as failure:
        text = str(failure)
        where = _line_of(text, path)
        shown = text.split(": ", 1)[1] if where.line > 1 and ": " in text else text  # the location is said once
        raise UserError(f"importing the reference failed: {shown}", where) from None


def _line_of(message: str, path: str) -> SourceLocation:
    head = message.split(": ", 1)[0]
    file, _, line = head.rpartition(":")
    return SourceLocation(path, int(line)) if line.isdigit() and file else SourceLocation(path, 1)


def instantiate(module: Any, entry: Entry, path: str, meta: bool = False) -> Any:
    """The callable the reference runs: `Model(*get_init_inputs())` (weights drawn after
    `torch.manual_seed(0)`, as KernelBench does), or the function itself. `meta`: built on torch's
    meta device (shapes without memory), for inputs too large to make here (`example_inputs`)."""
    import contextlib

    import torch

    obj = getattr(module, entry.name, None)
    if obj is None:
        raise UserError(f"`{entry.name}` is not defined once {path} is imported", SourceLocation(path, entry.line))
    if not entry.is_module:
        return obj
    init = getattr(module, "get_init_inputs", None)
    try:
        with torch.device("meta") if meta else contextlib.nullcontext():
            args = list(init()) if callable(init) else []
            torch.manual_seed(0)
            return obj(*args).eval()
    except Exception as err:  # noqa: BLE001 - the user's constructor failed
        raise UserError(f"constructing `{entry.name}` failed: {describe(err, path)}", SourceLocation(path, entry.line)) from None


# The most bytes of example inputs made for real here: larger ones are read on torch's meta device
# (their shapes and dtypes; the reference is then exported on meta tensors too). KernelBench's
# newer problems ask for several GB (a 4096 x 393216 ReLU input).
REAL_INPUT_BYTES = 1 << 28


def example_inputs(module: Any, entry: Entry, binding: Binding, path: str
                   ) -> tuple[list[Any], dict[str, tuple[int, int]]]:
    """One value per entry parameter: `get_inputs()` when the file has it (checked against the
    binding's ranks), else made from the binding at distinct example sizes; and each integer
    input's range of values `[lo, hi)`. `get_inputs()` runs first on torch's meta device: inputs of
    more than REAL_INPUT_BYTES stay meta tensors (an integer input's range is then what its
    `torch.randint` asked for)."""
    import torch

    where = SourceLocation(path, entry.line, entry.column)
    getter = getattr(module, "get_inputs", None)
    if callable(getter):
        values = None
        drawn: dict[int, tuple[int, int]] = {}
        try:
            torch.manual_seed(0)
            with torch.device("meta"), _randint_bounds(drawn):
                metas = list(getter())
            if sum(v.numel() * v.element_size() for v in metas if isinstance(v, torch.Tensor)) > REAL_INPUT_BYTES:
                values = metas
        except Exception:  # noqa: BLE001 - get_inputs needs real tensors (it reads values): made for real below
            drawn = {}
        try:
            if values is None:
                torch.manual_seed(0)
                values = list(getter())
        except Exception as err:  # noqa: BLE001 - the user's get_inputs failed
            raise UserError(f"get_inputs() failed: {describe(err, path)}", where) from None
        ranges = {name: ((int(v.min()), int(v.max()) + 1) if not v.is_meta else drawn[id(v)])
                  for name, v in zip(entry.params, values) if isinstance(v, torch.Tensor) and v.numel()
                  and not v.is_floating_point() and v.dtype != torch.bool and (not v.is_meta or id(v) in drawn)}
        if len(values) != len(entry.params):
            raise UserError(f"get_inputs() gives {len(values)} values for the {len(entry.params)} parameters of "
                            f"`{entry.name}` ({', '.join(entry.params)})", where,
                            hint="return one value per forward parameter, in order")
        for name, value in zip(entry.params, values, strict=True):
            arg = binding.args.get(name)
            if isinstance(arg, TensorArg) and isinstance(value, torch.Tensor) and len(arg.shape) != value.dim():
                raise UserError(f"`{name}` is {value.dim()}-D in get_inputs() but {len(arg.shape)}-D on the other side "
                                f"({', '.join(map(str, arg.shape))})", where,
                                hint=f"give [args.{name}] shape = [...] in a spec, or compare sides of the same rank")
        return values, ranges
    sizes = dict(binding.sizes or {})
    names = [d for arg in binding.args.values() if isinstance(arg, TensorArg) for d in arg.shape if isinstance(d, str)]
    names += [arg.size for arg in binding.args.values() if isinstance(arg, SizeArg)]
    for name in dict.fromkeys(names):
        sizes.setdefault(name, _EXAMPLE_SIZES[len(sizes) % len(_EXAMPLE_SIZES)])
    values = []
    for name in entry.params:
        arg = binding.args.get(name)
        if isinstance(arg, TensorArg):
            shape = [int(symbolic.substitute(symbolic.parse(str(d)), sizes)) for d in arg.shape]
            values.append(torch.randn(shape, dtype=torch.float64).to(getattr(torch, arg.dtype)))
        elif isinstance(arg, SizeArg):
            values.append(int(sizes[arg.size]))
        elif isinstance(arg, (ScalarArg, ValueArg)):
            values.append(arg.value)
        else:
            raise UserError(f"the shape of `{name}` is unknown: {path} has no get_inputs()", where,
                            hint=f"add get_inputs() to the file, or give [args.{name}] shape and dtype in a spec")
    return values, {}


@contextlib.contextmanager
def _randint_bounds(drawn: dict[int, tuple[int, int]]):
    """Record the `[low, high)` each `torch.randint` is asked for, by the id of what it returns (an
    integer input made on the meta device has no values to read its range from)."""
    import torch
    from torch.overrides import TorchFunctionMode

    class Bounds(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            result = func(*args, **kwargs)
            if getattr(func, "__name__", "") == "randint" and isinstance(result, torch.Tensor):
                ints = [a for a in args if isinstance(a, int) and not isinstance(a, bool)]
                low = kwargs.get("low", ints[0] if len(ints) >= 2 else 0)
                high = kwargs.get("high", ints[1] if len(ints) >= 2 else ints[0] if ints else None)
                if isinstance(high, int):
                    drawn[id(result)] = (int(low), int(high))
            return result

    with Bounds():
        yield


def _draws(example: Sequence[Any]) -> str | None:
    """"rand01" when every float of the example lies in [0, 1) (`torch.rand`), else None (normal)."""
    import torch

    floats = [v for v in example if isinstance(v, torch.Tensor) and v.is_floating_point() and not v.is_meta
              and v.numel() > 16]
    # Read through float32: torch has no min or max of the fp8 formats.
    if floats and all(float(v.float().min()) >= 0 and float(v.float().max()) < 1 for v in floats):
        return "rand01"
    return None


def _integer_ranges(ranges: dict[str, tuple[int, int]], sizes: dict[str, int]) -> dict[str, tuple[str, str]]:
    """Each integer input's range (`[lo, hi)` of the example's values) with hi as the size whose
    example value is the least at or above it, and at most twice it (class labels in [0,
    num_classes) index the logits' columns: that size, so the range follows it), else the number."""
    found = {}
    for name, (lo, hi) in ranges.items():
        near = sorted((v, n) for n, v in sizes.items() if hi <= v <= 2 * hi)
        found[name] = (str(lo), near[0][1] if near else str(hi))
    return found


def _as_module(fn: Any) -> Any:
    """A plain reference function as the module torch.export takes."""
    import torch

    class Wrapped(torch.nn.Module):
        def forward(self, *args):
            return fn(*args)

    return Wrapped()


def _export(fn: Any, example: Sequence[Any], path: str, where: SourceLocation) -> Any:
    import torch
    from torch.export import Dim, export

    module = fn if isinstance(fn, torch.nn.Module) else _as_module(fn)
    dynamic = tuple({d: Dim.AUTO for d in range(v.dim())} if isinstance(v, torch.Tensor) and v.dim() else None
                    for v in example)
    if module is not fn:
        dynamic = (dynamic,)  # the wrapper's forward takes *args: one tuple
    try:
        with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            return export(module, tuple(example), dynamic_shapes=dynamic, strict=False)
    except Exception as err:  # noqa: BLE001 - export refuses the reference (data-dependent code, ...)
        first = (str(err).strip().splitlines() or [""])[0]
        raise Unsupported(f"torch.export cannot trace the reference ({type(err).__name__}: {first[:200]})",
                          _user_frame(err, path) or where) from None


def _user_frame(err: BaseException, path: str) -> SourceLocation | None:
    text = describe(err, path)
    location = _line_of(text, path)
    return location if location.line > 1 else None


def _module(exported: Any, entry: Entry, example: Sequence[Any], binding: Binding, path: str,
            where: SourceLocation, held: set[int] = frozenset(),
            ranges: dict[str, tuple[int, int]] | None = None) -> ModuleOp:
    import torch
    from torch.export.graph_signature import InputKind

    user_inputs = [s.arg.name for s in exported.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    nodes = {n.name: n for n in exported.graph.nodes}
    names: dict[sympy.Symbol, str | int] = {}
    specialised: dict[int, list[str]] = {}  # example value -> the names of inputs' specialised dims
    mutated = _mutated_inputs(exported)  # updated in place (destination passing): role inout
    example_sizes: dict[str, int] = {}
    params: list[ParamOp] = []
    placeholder_of: dict[str, str] = {}
    # export lifts every tensor input, and numbers too unless it specialises them as constants
    tensor_params = [p for p, v in zip(entry.params, example, strict=True) if isinstance(v, torch.Tensor)]
    if len(user_inputs) == len(entry.params):
        placeholder_by_param = dict(zip(entry.params, user_inputs, strict=True))
    elif len(user_inputs) == len(tensor_params):
        placeholder_by_param = dict(zip(tensor_params, user_inputs, strict=True))
    else:
        raise Unsupported(f"torch.export kept {len(user_inputs)} inputs of the {len(entry.params)} parameters of "
                          f"`{entry.name}`", where)
    for name, value in zip(entry.params, example, strict=True):
        arg = binding.args.get(name)
        if isinstance(arg, ValueArg):  # given as is in every run: a constant of the graph, no parameter
            continue
        if not isinstance(value, torch.Tensor):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise Unsupported(f"the argument `{name}` ({type(value).__name__}) is neither a tensor nor a number",
                                  where)
            dtype = arg.dtype if isinstance(arg, ScalarArg) else "float32" if isinstance(value, float) else "int32"
            role = "size" if isinstance(arg, SizeArg) or (arg is None and isinstance(value, int)) else "scalar"
            params.append(ParamOp(name, "scalar", role, element_type(dtype) if role == "scalar" else IntegerType(32)))
            if name in placeholder_by_param:
                placeholder_of[placeholder_by_param[name]] = name
            continue
        placeholder = placeholder_by_param[name]
        placeholder_of[placeholder] = name
        shape = nodes[placeholder].meta["val"].shape
        given = arg.shape if isinstance(arg, TensorArg) else ()
        extents = []
        for dim, extent in enumerate(shape):
            symbol = _symbol(extent)
            named = given[dim] if dim < len(given) else f"{name}_size{dim}"
            named = int(named) if str(named).lstrip("-").isdigit() else str(named)
            if symbol is None:
                # Specialised by export (the code computes with it in Python: `math.sqrt(x.shape[1])`);
                # the reference still runs eagerly at any size, so a dimension the binding names, or
                # any but a 1 the module does not hold fixed, stays a size; an output extent equal to
                # it takes its name.
                if isinstance(named, str) and (given or (int(extent) > 1 and int(extent) not in held)):
                    specialised.setdefault(int(extent), []).append(named)
                    example_sizes.setdefault(named, int(value.shape[dim]))
                    extents.append(named)
                else:
                    extents.append(str(int(extent)))
                continue
            if symbol not in names:
                names[symbol] = named
                if isinstance(named, str):
                    example_sizes.setdefault(named, int(value.shape[dim]))
            extents.append(_extent(extent, names))
        role = "inout" if placeholder in mutated else "in"
        params.append(ParamOp(name, "buffer", role, element_type(_dtype(value.dtype), where), extents))
    operators: list[AtenOp] = []
    for node in exported.graph.nodes:
        if node.op != "call_function":
            continue
        value = node.meta.get("val")
        if not isinstance(value, torch.Tensor):
            continue  # a size computation or a tuple of tensors (its getitem users are ops too)
        operands = [placeholder_of.get(a.name, a.name) if isinstance(a, torch.fx.Node) else _constant(a)
                    for a in node.args]
        op = AtenOp(str(node.target), node.name, operands, [_output_extent(e, names, specialised) for e in value.shape],
                    element_type(_dtype(value.dtype), where))
        if (line := _line(node, path)) is not None:
            op.location = FileLineColLoc(StringAttr(path), IntAttr(line), IntAttr(0))
        operators.append(op)
    output = next(n for n in exported.graph.nodes if n.op == "output")
    returned = [a for a in _flatten(output.args) if isinstance(a, torch.fx.Node)]
    if not returned:
        raise UserError(f"`{entry.name}` returns no tensor", where, hint="the reference returns its outputs")
    renames = {}
    items = _flatten(output.args)
    variables = [] if entry.is_module else returned_variables(path, entry.name,
                                                              [isinstance(a, torch.fx.Node) for a in items])
    for index, node in enumerate(returned):
        value = node.meta["val"]
        params.append(ParamOp(f"return{index}", "buffer", "out", element_type(_dtype(value.dtype), where),
                              [_output_extent(e, names, specialised) for e in value.shape],
                              variable=variables[index] if index < len(variables) else None))
        renames[node.name] = f"return{index}"
    for op in operators:
        if op.result.data in renames:
            op.properties["result"] = StringAttr(renames[op.result.data])
    body = [*params, *operators]
    if example_sizes:
        body.append(ExampleOp(example_sizes, _integer_ranges(ranges or {}, example_sizes), _draws(example)))
    op = EntryOp.create(properties={"sym_name": StringAttr(entry.name), "language": StringAttr("torch"),
                                    "file": StringAttr(path)}, regions=[Region(Block(body))])
    op.location = FileLineColLoc(StringAttr(path), IntAttr(entry.line), IntAttr(entry.column))
    return ModuleOp([op])


def _line(node: Any, path: str) -> int | None:
    """The line of the user's file an exported node came from (its innermost frame there)."""
    real = os.path.realpath(path)
    found = None
    for match in re.finditer(r'File "([^"]+)", line (\d+)', node.meta.get("stack_trace") or ""):
        if os.path.realpath(match.group(1)) == real:
            found = int(match.group(2))
    return found


def _mutated_inputs(exported: Any) -> set[str]:
    """The input placeholders the reference updates in place: those export lists, and the first
    argument of an in-place ATen op (`scatter_add_`, `add_`, `copy_`) when it is an input."""
    import torch

    found = set(exported.graph_signature.user_inputs_to_mutate.values())
    for node in exported.graph.nodes:
        if node.op != "call_function" or not node.args or not isinstance(node.args[0], torch.fx.Node):
            continue
        parts = str(node.target).split(".")
        if len(parts) > 1 and parts[1].endswith("_") and not parts[1].startswith("_") \
                and node.args[0].op == "placeholder":
            found.add(node.args[0].name)
    return found


def _output_extent(extent: Any, names: dict[sympy.Symbol, str | int], specialised: dict[int, list[str]]) -> str:
    text = _extent(extent, names)
    if text.isdigit() and len(set(specialised.get(int(text), []))) == 1:
        return specialised[int(text)][0]
    return text


def _symbol(extent: Any) -> sympy.Symbol | None:
    """The sympy symbol of a dynamic input dimension (None for a specialised, constant one)."""
    node = getattr(extent, "node", None)
    expr = getattr(node, "expr", None)
    return expr if isinstance(expr, sympy.Symbol) else None


def _extent(extent: Any, names: dict[sympy.Symbol, str | int]) -> str:
    node = getattr(extent, "node", None)
    expr = getattr(node, "expr", None)
    if expr is None:
        return str(int(extent))
    values = {}
    for s in expr.free_symbols:
        if s not in names:
            raise Unsupported(f"an output extent ({expr}) depends on a size no input dimension has")
        values[s] = sympy.Integer(names[s]) if isinstance(names[s], int) else symbolic.var(str(names[s]))
    return symbolic.format(_plain(expr).xreplace(values))


def _plain(expr: sympy.Basic) -> sympy.Basic:
    """torch's own sympy functions (FloorDiv, CeilDiv, PythonMod, ...) as the plain ones our
    expressions use, inner ones first (so a FloorDiv around a PythonMod is replaced too, whatever
    order a set of atoms would give)."""
    if not expr.args:
        return expr
    args = [_plain(arg) for arg in expr.args]
    name = type(expr).__name__
    if name in ("FloorDiv", "IntTrueDiv") and len(args) == 2:
        return sympy.floor(args[0] / args[1])
    if name == "CeilDiv" and len(args) == 2:
        return sympy.ceiling(args[0] / args[1])
    if name in ("PythonMod", "Mod") and len(args) == 2:
        return sympy.Mod(*args)
    if args == list(expr.args):
        return expr
    return expr.func(*args)


def _dtype(dtype: Any) -> str:
    return str(dtype).removeprefix("torch.")


def _constant(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_constant(v) for v in value) + "]"
    return str(value)


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flatten(v)]
    return [value]
