"""Run a wrapper on fake tensors and record its kernel launches instead of running them.

Shape-only capture first (`shapes`): every size name is one symbol, tensors are `ShapeTensor`s of
symbolic shape, so `triton.cdiv(n, 1024)` arrives as the size `((s0 + 1023)//1024)`, which
`expr_of` turns into `floor((n + 1023)/1024)`. It needs no torch._dynamo (1.2 s of a cold lowering).
A wrapper it cannot follow (`shapes.BeyondShapes`: an operation on tensors beyond shapes and
allocations, a comparison of sizes their ranges do not decide) is captured again, from the start,
on torch's fake tensors: in a fresh process when the front end's worker can give one
(`NeedsThoroughCall`, `CAPTURE_ENV`), else here.
Fake-tensor capture: every size name is one torch symbol (`ShapeEnv`), tensors are FakeTensors of
symbolic shape, the same expressions as SymInts. A wrapper that branches on a size (a guard), or
needs data (`.item()`), cannot be captured symbolically: `NeedsConcreteSizes`.
Concrete capture: the same with integer sizes.
Capture with data: a wrapper that reads its tensors' values on the host (`(target !=
ignore_index).sum().item()`, `torch.equal`) has no answer from FakeTensors; at concrete sizes it
is run again on real CPU tensors with our values (floats standard normal from a fixed seed,
integers 0, which indexes every non-empty dimension, booleans True), its launches still
recorded, never run. The IR then holds what the wrapper computed from those values (a count of
the rows to average over) as constants of that capture. A wrapper that brings to the host what a
kernel it launched wrote (`int(tile_offsets[-1].item())` sizing the next launch's buffers) is
captured once more with each launch also run, in Triton's interpreter, on those tensors
(`NeedsKernelResults`), so that it reads what the kernel computes.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import sympy

from lowercheck.spec import constructed
from lowercheck import symbolic
from lowercheck.errors import SourceLocation, Unsupported, UserCodeRaised, UserError
from lowercheck.frontends.base import CAPTURE_ENV, Binding, NeedsConcreteSizes, NeedsThoroughCall, ScalarArg, SizeArg
from lowercheck.frontends.base import TensorArg, TupleArg, ValueArg, definition, user_frame
from lowercheck.frontends.triton.source import jit_function

# Size hints: > 1, no multiple of 16, all distinct (so no two sizes look equal to torch).
_HINTS = (4099, 4111, 4127, 4133, 4139, 4153, 4157, 4159, 4177, 4201, 4211, 4217, 4219, 4229)


@dataclass
class Launch:
    kernel: Any  # the JITFunction
    grid: tuple[Any, ...]  # one value per axis (SymInt, int, or a symbolic.* string for kernel entries)
    bound: dict[str, Any]  # every kernel param by name (defaults applied)
    options: dict[str, Any]  # launch options (num_warps, num_stages, ...)
    location: SourceLocation | None


@dataclass
class Capture:
    launches: list[Launch]
    inputs: dict[str, Any]  # entry param -> the value it received
    returned: list[Any]  # the wrapper's returned tensors, in order
    symbolic: bool
    names: dict[str, str] = field(default_factory=dict)  # torch symbol name -> size name
    # Tensors the wrapper computed with torch operations (`dg.sum(0)`), not allocated (`torch.empty`),
    # by identity (the map keeps them alive, so no id is reused).
    computed: dict[int, Any] = field(default_factory=dict)
    # Whether each top-level item of the returned value is a tensor (`return y, rstd, BLOCK`).
    returned_items: list[bool] = field(default_factory=list)
    reads_data_at: str | None = None  # captured on real tensors with our values: where it reads them
    shapes_only: bool = False  # captured on shape tensors (`shapes`), not on torch's fake tensors

    def is_computed(self, tensor: Any) -> bool:
        return self.computed.get(id(tensor)) is tensor

    def expr_of(self, value: Any) -> str:
        """An int-like captured value as an index expression over the size names."""
        return symbolic.format(self.sympy_of(value))

    def sympy_of(self, value: Any) -> sympy.Basic:
        import torch

        from lowercheck.frontends.triton import shapes

        if isinstance(value, torch.SymInt):
            return _plain(value.node.expr, self.names)
        if isinstance(value, shapes.Size):
            return _plain(value.expr, self.names)
        if isinstance(value, bool):
            return sympy.Integer(int(value))
        if isinstance(value, int):
            return sympy.Integer(value)
        raise Unsupported(f"a launch receives {type(value).__name__} where an integer was expected")


def _extent_value(text: str, size: Callable[[str | int], Any]) -> Any:
    """The value of an extent expression over the sizes (integers, names, +, -, *, //, and the
    `floor(a/b)` and `ceiling(a/b)` of an extent inferred from the other side's guards), each
    name's value from `size` (a SymInt when the capture is symbolic). A spec's extents are checked
    when it is read (`spec.load`), so one this cannot read is an inferred one: inconclusive."""
    import ast

    def value(node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            return size(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
            left, right = value(node.left), value(node.right)
            return {ast.Add: lambda: left + right, ast.Sub: lambda: left - right,
                    ast.Mult: lambda: left * right, ast.FloorDiv: lambda: left // right}[type(node.op)]()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("floor", "ceiling") \
                and len(node.args) == 1 and isinstance(node.args[0], ast.BinOp) and isinstance(node.args[0].op, ast.Div):
            left, right = value(node.args[0].left), value(node.args[0].right)
            return left // right if node.func.id == "floor" else -(-left // right)
        raise Unsupported(f"the extent `{text}` is beyond what the capture reads (sizes, integers, +, -, *, //, "
                          "floor and ceiling of a division)", hint="give the argument's shape in a spec")

    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise Unsupported(f"the extent `{text}` is beyond what the capture reads",
                          hint="give the argument's shape in a spec") from None
    return value(tree.body)


def torch_dtype(name: str):
    import torch

    dtype = getattr(torch, name, None)
    if not isinstance(dtype, torch.dtype):
        raise UserError(f"unknown dtype `{name}`", hint="use a torch dtype name: float32, float16, int32, ...")
    return dtype


class NeedsData(Exception):
    """The wrapper reads its tensors' values at concrete sizes: capture it on real tensors."""


class NeedsKernelResults(Exception):
    """The wrapper reads on the host what a kernel it launched computed (`int(offsets[-1].item())`
    sizing the next buffer): capture it again, running each launch in Triton's interpreter."""


def capture(fn: Callable, path: str, binding: Binding, kernel_grid: tuple[str, ...] | None = None,
            shapes_only: bool = True) -> Capture:
    """Call `fn` (a wrapper, or a kernel when `kernel_grid` is given) with fake arguments from
    `binding`; return its launches: on shape tensors if it can (`shapes_only`), else on torch's
    fake tensors; on real tensors where it reads their values (concrete sizes only). Raises
    NeedsConcreteSizes, UserError (at the user's line), NeedsThoroughCall (in a front-end worker,
    whose call server then calls again with the fake-tensor capture)."""
    if shapes_only and os.environ.get(CAPTURE_ENV) != "fake":
        from lowercheck.frontends.triton import shapes

        try:
            return _capture(fn, path, binding, kernel_grid, data=False, shapes_only=True)
        except NeedsConcreteSizes:  # it branches on sizes, as a ShapeEnv's guard would say
            raise
        except (shapes.BeyondShapes, Exception) as err:  # noqa: BLE001 - the fake-tensor capture decides
            why = str(err) if isinstance(err, shapes.BeyondShapes) else f"{type(err).__name__}: {err}"
            beyond_shapes(f"`{getattr(fn, '__name__', fn)}`: {why}")
    try:
        return _capture(fn, path, binding, kernel_grid, data=False)
    except NeedsData as need:
        try:
            captured = _capture(fn, path, binding, kernel_grid, data=True)
        except NeedsKernelResults:
            captured = _capture(fn, path, binding, kernel_grid, data=True, run_kernels=True)
        captured.reads_data_at = str(need)
        return captured


def beyond_shapes(why: str) -> None:
    """The shape-only capture could not follow the wrapper (`why`): in a front-end worker's call,
    raise NeedsThoroughCall (the call is made again in a fresh process, which the wrapper's first
    run left no state in); elsewhere return, and the caller captures again on fake tensors."""
    if os.environ.get(CAPTURE_ENV) == "fresh":
        raise NeedsThoroughCall(why)


@functools.cache
def _capture_shape_env() -> type:
    """A ShapeEnv that records no Python frame for its symbols and guards: finding the user's frame
    imports, once, the list of torch's own files (torch.export, torch._inductor, custom ops: 0.6 s of a
    cold capture, issue 19's profile) for locations that only label torch's own guard logs."""
    from torch._guards import SLoc
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    class CaptureShapeEnv(ShapeEnv):
        def _get_stack_summary(self, is_debug: bool = False, framework_loc: str | None = None):
            return SLoc(framework_loc or "lowercheck's capture", None), ""

    return CaptureShapeEnv


def _capture(fn: Callable, path: str, binding: Binding, kernel_grid: tuple[str, ...] | None, data: bool,
             run_kernels: bool = False, shapes_only: bool = False) -> Capture:
    import torch

    is_symbolic = binding.sizes is None
    env = None
    if shapes_only:
        from lowercheck.frontends.triton import shapes

        mode: Any = shapes.ShapeMode()
    elif data:
        mode = contextlib.nullcontext()
    else:
        from torch._subclasses.fake_tensor import FakeTensorMode

        env = _capture_shape_env()(duck_shape=False) if is_symbolic else None
        mode = FakeTensorMode(shape_env=env, allow_non_fake_inputs=True)
    if data:
        torch.manual_seed(0)
    sizes: dict[str, Any] = {}
    names: dict[str, str] = {}

    def size(name: str | int) -> Any:
        if isinstance(name, int) or (isinstance(name, str) and name.lstrip("-").isdigit()):
            return int(name)
        if name in sizes:
            return sizes[name]
        if not name.isidentifier():  # an extent written over the sizes: "2*half", "n + 1"
            return _extent_value(name, size)
        if not is_symbolic:
            if name not in binding.sizes:
                raise UserError(f"no value for size `{name}`", definition(fn), hint="give every size a value")
            sizes[name] = int(binding.sizes[name])
            return sizes[name]
        hint = _HINTS[len(sizes) % len(_HINTS)] + 64 * (len(sizes) // len(_HINTS))
        if shapes_only:
            sym = shapes.symbol(len(sizes))
            names[str(sym)] = name
            sizes[name] = shapes.Size(sym, hint)
            return sizes[name]
        from torch._dynamo.source import ConstantSource  # a ShapeEnv imports torch._dynamo anyway
        from torch.fx.experimental.symbolic_shapes import DimDynamic

        sym = env.create_symbol(hint, source=ConstantSource(name), dynamic_dim=DimDynamic.DYNAMIC)
        names[str(sym)] = name
        sizes[name] = env.create_symintnode(sym, hint=hint)
        return sizes[name]

    signature = inspect.signature(fn if kernel_grid is None else jit_function(fn).fn)
    constexprs = set() if kernel_grid is None else {p.name for p in jit_function(fn).params if p.is_constexpr}
    inputs: dict[str, Any] = {}
    with mode:
        for pname, param in signature.parameters.items():
            arg = binding.args.get(pname)
            if isinstance(arg, TensorArg):
                shape = [size(s) for s in arg.shape]
                inputs[pname] = _with_data(shape, torch_dtype(arg.dtype)) if data else \
                    torch.empty(shape, dtype=torch_dtype(arg.dtype))
            elif isinstance(arg, SizeArg):
                inputs[pname] = size(arg.size)
            elif isinstance(arg, ScalarArg):
                if pname in constexprs:  # a kernel entry's tile size: a value, never a size
                    inputs[pname] = arg.value
                elif arg.dtype.startswith(("int", "uint")) and is_symbolic:
                    inputs[pname] = size(pname)
                elif arg.dtype.startswith(("int", "uint")):
                    inputs[pname] = int(binding.sizes.get(pname, arg.value))
                elif arg.dtype == "bool":
                    inputs[pname] = bool(arg.value)
                else:
                    inputs[pname] = float(arg.value)
            elif isinstance(arg, ValueArg):
                inputs[pname] = constructed(arg.value, fn)
            elif isinstance(arg, TupleArg):  # its tensors are named `res_0`, `res_1`, ... by the lowering
                inputs[pname] = tuple(
                    item.value if isinstance(item, ValueArg) else
                    _with_data([size(s) for s in item.shape], torch_dtype(item.dtype)) if data else
                    torch.empty([size(s) for s in item.shape], dtype=torch_dtype(item.dtype)) for item in arg.items)
            elif param.default is not inspect.Parameter.empty:
                continue
            else:
                raise UserError(f"no binding for parameter `{pname}` of `{fn.__name__}`", definition(fn),
                                hint="bind every parameter: a tensor (shape, dtype), a size or a scalar")

    launches: list[Launch] = []
    computed: dict[int, Any] = {}
    watched = _results_read(launches) if data and not run_kernels else contextlib.nullcontext()
    with mode, _recording(launches, path, run_kernels), _size_aware_min_max(fn), _computed_tensors(computed), \
            watched:
        try:
            if kernel_grid is None:
                result = fn(**inputs)
            else:
                fn[(1,)](**inputs)
                result = None
        except (NeedsConcreteSizes, NeedsKernelResults, Unsupported):
            raise
        except Exception as err:  # noqa: BLE001 - classified below
            if shapes_only:
                raise
            _classify(err, env, fn, path, data)
        except BaseException as stop:  # a size branched on (only where sizes are symbols) or beyond shapes
            if not shapes_only or not isinstance(stop, shapes.BranchesOnSizes):
                raise
        if shapes_only and shapes.tripped() is not None:  # raised, and swallowed by the wrapper or not
            first = shapes.tripped()
            if isinstance(first, shapes.BranchesOnSizes):  # a ShapeEnv would have guarded there
                raise NeedsConcreteSizes(f"`{fn.__name__}` branches on sizes ({_guard_text(first.guard, names)})")
            raise first
    if env is not None and env.guards:
        guards = ", ".join(str(_plain(g.expr, names)) for g in env.guards[:3])
        raise NeedsConcreteSizes(f"`{fn.__name__}` branches on sizes ({guards})")
    if kernel_grid is not None:
        for launch in launches:
            launch.grid = tuple(kernel_grid)
    if shapes_only:
        shapes.check_made([*(v for launch in launches for v in (*launch.bound.values(), *launch.grid)), result])
    returned = [t for t in _flatten(result) if isinstance(t, torch.Tensor)]
    items = list(result) if isinstance(result, (tuple, list)) else [] if result is None else [result]
    return Capture(launches, inputs, returned, is_symbolic, names, computed,
                   [isinstance(item, torch.Tensor) for item in items], shapes_only=shapes_only)


def _guard_text(guard: sympy.Basic, names: dict[str, str]) -> str:
    try:
        return str(_plain(guard, names))
    except NeedsConcreteSizes:  # `BitwiseFn_bitwise_or(...)`: pages of it for one next_power_of_2
        used = sorted(names[s.name] for s in guard.free_symbols if s.name in names)
        return f"on a bitwise function of {', '.join(used) or 'the sizes'}, as next_power_of_2 computes"


def _with_data(shape: list[int], dtype) -> Any:
    import torch

    if dtype.is_floating_point:
        return torch.randn(shape, dtype=torch.float32).to(dtype)
    if dtype == torch.bool:
        return torch.ones(shape, dtype=dtype)
    return torch.zeros(shape, dtype=dtype)


# Torch functions that allocate a tensor: what they return holds no values the wrapper computed.
_ALLOCATING = frozenset({"empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like",
                         "empty_strided", "new_empty", "new_zeros", "new_ones", "new_full", "new_empty_strided",
                         "rand", "randn", "randint", "rand_like", "randn_like", "arange", "tensor", "as_tensor"})


@contextlib.contextmanager
def _computed_tensors(computed: dict[int, Any]) -> Iterator[None]:
    """Collect the tensors torch operations of the wrapper return (`da.sum()`, `x.to(dtype)`),
    besides the allocations: a returned one that no kernel receives is the wrapper's own result."""
    import torch
    from torch.overrides import TorchFunctionMode

    class Computed(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            result = func(*args, **(kwargs or {}))
            if getattr(func, "__name__", "") not in _ALLOCATING:
                computed.update((id(t), t) for t in _flatten(result) if isinstance(t, torch.Tensor))
            return result

    with Computed():
        yield


# Tensor methods and torch functions that bring a tensor's values to the host.
_HOST_READS = frozenset({"item", "tolist", "numpy", "__bool__", "__int__", "__float__", "__index__", "equal",
                         "allclose"})


@contextlib.contextmanager
def _results_read(launches: list[Launch]) -> Iterator[None]:
    """Raise NeedsKernelResults where the wrapper brings to the host a value that a recorded (not
    run) launch may have written, or one computed from such a tensor (`counts.sum()`)."""
    import torch
    from torch.overrides import TorchFunctionMode

    written: set[int] = set()  # storages of the launches' tensors, and of tensors computed from them

    def storages(value: Any) -> list[int]:
        return [t.untyped_storage().data_ptr() for t in _flatten(value) if isinstance(t, torch.Tensor)]

    class Reads(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            for launch in launches[seen[0]:]:
                written.update(storages(list(launch.bound.values())))
            seen[0] = len(launches)
            touched = written.intersection(storages([*args, *(kwargs or {}).values()]))
            if touched and getattr(func, "__name__", "") in _HOST_READS:
                raise NeedsKernelResults(getattr(func, "__name__", ""))
            result = func(*args, **(kwargs or {}))
            if touched:
                written.update(storages(result))
            return result

    seen = [0]
    with Reads():
        yield


@contextlib.contextmanager
def _size_aware_min_max(fn: Callable) -> Iterator[None]:
    """`min(triton.cdiv(n, B), 4)` in a wrapper: Python's min compares, which makes torch guard on
    the size; torch.sym_min keeps `Min(...)` symbolic. Shadow the builtins in the wrapper's globals
    while it runs."""
    import builtins

    import torch

    from lowercheck.frontends.triton import shapes

    def lifted(builtin, symbolic_fn, sizes_fn):
        def choose(*args, **kwargs):
            values = args[0] if len(args) == 1 and not kwargs and isinstance(args[0], (list, tuple)) else args
            if not kwargs and len(values) >= 2 and any(isinstance(v, shapes.Size) for v in values):
                result = values[0]
                for value in values[1:]:
                    result = sizes_fn(result, value)
                return result
            if kwargs or len(values) < 2 or not any(isinstance(v, torch.SymInt) for v in values):
                return builtin(*args, **kwargs)
            result = values[0]
            for value in values[1:]:
                result = symbolic_fn(result, value)
            return result
        return choose

    scope = getattr(fn, "__globals__", None)
    if scope is None:
        yield
        return
    saved = {name: scope[name] for name in ("min", "max") if name in scope}
    scope["min"] = lifted(builtins.min, torch.sym_min, shapes.smallest)
    scope["max"] = lifted(builtins.max, torch.sym_max, shapes.largest)
    try:
        yield
    finally:
        for name in ("min", "max"):
            scope.pop(name, None)
        scope.update(saved)


def _classify(err: Exception, env, fn: Callable, path: str, data: bool = False) -> None:
    from torch._subclasses.fake_tensor import (
        DataDependentOutputException,
        DynamicOutputShapeException,
        UnsupportedOperatorException,
    )
    from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

    where = user_frame(err, os.path.realpath(path), path)
    if isinstance(err, (GuardOnDataDependentSymNode, DataDependentOutputException, DynamicOutputShapeException)):
        if env is None and not data:  # concrete sizes already: the values themselves are missing
            raise NeedsData(str(where) if where else path) from None
        if env is None:
            raise Unsupported(f"`{fn.__name__}` depends on the values in its tensors ({type(err).__name__}), "
                              "which the capture does not have", where,
                              hint="lowercheck runs the wrapper on tensors without data, so a branch on a value "
                                   "(`torch.equal`, `.item()`) has no side to take: lower a launcher of your own "
                                   "that takes the branch you mean") from None
        raise NeedsConcreteSizes(f"`{fn.__name__}` depends on tensor data ({type(err).__name__}"
                                 f"{' at ' + str(where) if where else ''})") from None
    if isinstance(err, UnsupportedOperatorException):
        if env is None:
            raise Unsupported(f"`{fn.__name__}` uses an op the capture's fake tensors do not support: {err}",
                              where) from None
        raise NeedsConcreteSizes(f"`{fn.__name__}` uses an op fake tensors do not support: {err}") from None
    if env is not None and env.guards:
        # It raised after branching on a size: the hint, not the user, may be at fault.
        raise NeedsConcreteSizes(f"`{fn.__name__}` raised {type(err).__name__} after branching on sizes"
                                 f"{' at ' + str(where) if where else ''}") from None
    raise UserCodeRaised(f"`{fn.__name__}` raised {type(err).__name__}: {err}", where) from None


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flatten(v)]
    return [] if value is None else [value]


@contextlib.contextmanager
def _recording(launches: list[Launch], path: str, run: bool = False) -> Iterator[None]:
    """Replace launching with recording: `JITFunction.run` (reached by `K[grid](...)` and through
    `@triton.heuristics`) and `Autotuner.run` (which then takes the first config). `run`: each
    launch also runs, in Triton's interpreter, on the capture's real tensors."""
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    real = os.path.realpath(path)
    saved = (JITFunction.run, Autotuner.run)

    def record(self, *args, grid, warmup, **kwargs):
        names = set(self.signature.parameters)
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in names}
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as err:
            raise UserError(f"launch of `{self.__name__}`: {err}", _caller(real, path)) from None
        bound.apply_defaults()
        values = dict(bound.arguments)
        if callable(grid):
            grid = grid({**values, **options})
        grid = tuple(grid) if isinstance(grid, (tuple, list)) else (grid,)
        launches.append(Launch(self, grid, values, options, _caller(real, path)))
        if run:
            called = JITFunction.__call__  # the kernel's own @triton.jit helpers, interpreted as well
            JITFunction.__call__ = _interpreted_helper
            try:
                InterpretedFunction(self.fn).run(grid=grid, warmup=False, **values, **options)
            except Exception as err:  # noqa: BLE001 - the kernel's own failure, at its launch
                raise Unsupported(f"`{self.__name__}`, whose results the launcher reads on the host, failed in "
                                  f"Triton's interpreter during the capture: {err}", _caller(real, path)) from None
            finally:
                JITFunction.__call__ = called

    def autotuned(self, *args, **kwargs):
        config = self.configs[0]
        self.best_config = config  # as Triton's autotuner leaves it: wrappers read it (`K.best_config.kwargs`)
        if config.pre_hook is not None:  # as Triton's autotuner runs it first: it sets up tensor descriptors' blocks
            config.pre_hook({**dict(zip(self.arg_names, args)), **kwargs, **config.all_kwargs()})
        return self.fn.run(*args, **{**kwargs, **config.all_kwargs()})

    JITFunction.run, Autotuner.run = record, autotuned
    try:
        yield
    finally:
        JITFunction.run, Autotuner.run = saved


def _interpreted_helper(helper: Any, *args: Any, **kwargs: Any) -> Any:
    """A `@triton.jit` helper called inside a kernel that Triton's interpreter runs: interpreted
    too, its patches of `triton.language` undone when it returns (the interpreter's own device
    calls keep them, which would break compiling the kernels afterwards)."""
    from triton.runtime import interpreter

    scope = interpreter._patch_lang(helper.fn)
    try:
        return interpreter.InterpretedFunction(helper.fn).rewrite()(*args, **kwargs)
    finally:
        scope.restore()


def _caller(real: str, shown: str) -> SourceLocation | None:
    frame = inspect.currentframe()
    while frame is not None:
        if os.path.realpath(frame.f_code.co_filename) == real:
            return SourceLocation(shown, frame.f_lineno)
        frame = frame.f_back
    return None


# torch's sympy functions -> plain sympy that `symbolic.format` prints and `symbolic.parse` reads.
def _over(a: sympy.Basic, b: sympy.Basic) -> sympy.Basic:
    """a/b kept as written: `floor((n + 1023)/1024)`, not `floor(n/1024 + 1023/1024)`."""
    return sympy.Mul(a, sympy.Pow(b, -1, evaluate=False), evaluate=False)


_RULES: dict[str, Callable[..., sympy.Basic]] = {
    "FloorDiv": lambda a, b: sympy.floor(_over(a, b)),
    "CleanDiv": lambda a, b: sympy.floor(_over(a, b)),
    "CeilDiv": lambda a, b: sympy.ceiling(_over(a, b)),
    "IntTrueDiv": _over,
    "ModularIndexing": lambda x, d, m: sympy.Mod(sympy.floor(_over(x, d)), m),
    "PythonMod": sympy.Mod,
    "Mod": sympy.Mod,
    "Max": sympy.Max,
    "Min": sympy.Min,
    "FloorToInt": sympy.floor,
    "CeilToInt": sympy.ceiling,
    "Identity": lambda x: x,
    "PowByNatural": lambda a, b: a**b,
}


def _plain(expr: sympy.Basic, names: dict[str, str]) -> sympy.Basic:
    if isinstance(expr, sympy.Symbol):
        if expr.name not in names:
            raise NeedsConcreteSizes(f"a value depends on `{expr.name}`, which is no size")
        return symbolic.var(names[expr.name])
    if not expr.args:
        return expr
    args = [_plain(a, names) for a in expr.args]
    kind = type(expr)
    if kind.__module__.startswith("torch"):
        rule = _RULES.get(kind.__name__)
        if rule is None:
            raise NeedsConcreteSizes(f"no index expression for torch's `{kind.__name__}`")
        return rule(*args)
    return expr.func(*args)
