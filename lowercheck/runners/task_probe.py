"""Run a task's PyTorch reference the way its harness would, and under probes (`lowercheck audit`).

The runner of language "task" imports the reference (a KernelBench problem: `Model`,
`get_inputs`, `get_init_inputs`; or a function with `get_inputs`) in the sandbox's child and
returns, as arrays, what the audit's checks judge in lowercheck's own process:

- `trial{t}/input{i}`, `trial{t}/reference{k}`, `trial{t}/oracle{k}` (float64), and
  `trial{t}/variant/{name}/{k}`: the reference with one operator rewritten (`VARIANTS`), its
  inputs drawn as the harness draws them (`options["seeding"]`);
- facts: the operator trace of one call on meta tensors (nothing allocated: shapes, dtypes, FLOPs,
  bytes, the longest reduction), and what the real calls showed (a second call's bits, a second
  construction's weights, inputs the reference writes, operators that are the identity on these
  inputs, softmaxes that are nearly uniform, constant or repeated input rows).

Variants are rewrites at the ATen level (a `TorchDispatchMode`), so they apply to whatever Python
the reference is written in: `tanh-gelu` replaces `aten.gelu(approximate="none")`, `fast-exp`
computes `exp` as CUDA's `__expf` does (`exp2` of the float32 product `x * log2(e)`), `no-max-shift`
computes softmax as `exp(x) / sum(exp(x))`, `accumulate-<dtype>` rounds every product and
reduction's running sum to a low dtype after each chunk of 32, `tf32` rounds the operands of
products to TF32, `reading-variance` and `reading-division` flip the variance's correction and the
division's rounding.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from lowercheck.runners.base import RunRequest, RunResult
from lowercheck.runners.torch_arrays import to_numpy
from lowercheck.runners.user_code import UserFailure, describe, import_user_file

CHUNK = 32  # the running sum of `accumulate-*` is rounded after each chunk of this many terms
RANDOM_OPS = ("rand", "randn", "randint", "randperm", "bernoulli", "normal", "uniform", "native_dropout",
              "multinomial", "exponential", "cauchy", "geometric", "log_normal", "random")
# Operators whose CUDA kernels are nondeterministic (atomics): PyTorch's list for
# torch.use_deterministic_algorithms.
GPU_NONDETERMINISTIC = ("index_add", "scatter_add", "scatter_reduce", "index_put", "_index_put_impl", "put",
                        "index_reduce", "embedding_dense_backward", "histc", "bincount", "_unsafe_index_put")
# Unary operators that can be the identity on some inputs (ReLU of non-negative values, ...).
IDENTITY_CANDIDATES = ("relu", "abs", "clamp", "clamp_min", "clamp_max", "hardtanh", "threshold", "leaky_relu",
                       "elu", "celu", "relu6", "floor", "ceil", "round", "trunc")
REDUCTIONS = ("sum", "mean", "var", "std", "var_mean", "std_mean", "_softmax", "_log_softmax", "norm",
              "linalg_vector_norm", "amax", "logsumexp", "prod", "cumsum")


def warm_up() -> None:
    import torch  # noqa: F401
    from torch.utils._python_dispatch import TorchDispatchMode  # noqa: F401
    from torch.utils.flop_counter import FlopCounterMode  # noqa: F401


def run(request: RunRequest) -> RunResult:
    start = time.monotonic()
    result = RunResult()
    try:
        _probe(request, result)
    except UserFailure as failure:
        text = str(failure)
        oom = any(mark in text for mark in ("can't allocate memory", "out of memory", "MemoryError"))
        result.error, result.error_kind = text, "oom" if oom else "user"
    result.wall_s = time.monotonic() - start
    return result


class _Problem:
    """The reference as the harness builds it."""

    def __init__(self, request: RunRequest):
        self.path = request.path
        self.module = import_user_file(request.path)
        # The entry: the task's `entry`, else a KernelBench `Model`, else the file's one function.
        names = [n for n, v in vars(self.module).items() if callable(v) and not n.startswith("_")
                 and n not in ("get_inputs", "get_init_inputs") and getattr(v, "__module__", None) == self.module.__name__]
        self.entry = request.entry or ("Model" if hasattr(self.module, "Model") else
                                       names[0] if len(names) == 1 else "")
        self.fn = getattr(self.module, self.entry, None) if self.entry else None
        if self.fn is None:
            raise UserFailure(f"{self.path}:1: no entry " + (f"`{request.entry}`" if request.entry else
                                                              "(no class Model and not exactly one function)")
                              + (f"; functions here: {', '.join(names)}: name one with `entry = ...` under [task]"
                                 if names else ""))
        # The task's inputs: its own `[harness.correctness] inputs` table (shapes and distributions),
        # else the problem's get_inputs().
        self.spec = request.options.get("inputs") or None
        self.get_inputs = getattr(self.module, "get_inputs", None)
        if self.spec is None and not callable(self.get_inputs):
            raise UserFailure(f"{self.path}:1: no get_inputs(): give one, or the inputs' shapes and distributions in "
                              "the task file ([harness.correctness] inputs = {{ x = {{ shape = [...] }} }})")
        self.get_init_inputs = getattr(self.module, "get_init_inputs", None)

    def init_inputs(self) -> list[Any]:
        return self._call(self.get_init_inputs, "get_init_inputs") if callable(self.get_init_inputs) else []

    def build(self, seed: int | None):
        """The callable: `Model(*get_init_inputs())` (seeded as the harness seeds), or the function."""
        import torch

        if not isinstance(self.fn, type):
            return self.fn
        if seed is not None:
            torch.manual_seed(seed)
        args = self.init_inputs()
        if seed is not None:
            torch.manual_seed(seed)
        try:
            model = self.fn(*args)
        except (Exception, SystemExit, KeyboardInterrupt) as err:  # noqa: BLE001 - the user's constructor failed
            raise UserFailure(describe(err, self.path)) from None
        return model  # as harnesses build it: KernelBench never calls .eval() (dropout stays on)

    def inputs(self, seed: int | None) -> list[Any]:
        import torch

        if seed is not None:
            torch.manual_seed(seed)
        if self.spec is not None:
            return [drawn(item, seed) for item in self.spec]
        return self._call(self.get_inputs, "get_inputs")

    def _call(self, fn, name: str) -> list[Any]:
        try:
            value = fn()
        except (Exception, SystemExit, KeyboardInterrupt) as err:  # noqa: BLE001
            raise UserFailure(describe(err, self.path)) from None
        return list(value) if isinstance(value, (list, tuple)) else [value]

    def call(self, fn, inputs: list[Any]) -> list[Any]:
        import torch

        try:
            with torch.no_grad():
                return _tensors(fn(*inputs))
        except UserFailure:
            raise
        except (Exception, SystemExit, KeyboardInterrupt) as err:  # noqa: BLE001 - the user's reference failed: report where
            raise UserFailure(describe(err, self.path)) from None


def drawn(item: dict[str, Any], seed: int | None):
    """One input as the task file describes it: `shape` (or `shapes`, one per trial in turn: the
    seed picks), `dtype`, `distribution` (rand | randn | uniform | normal | randint | ones | zeros, with
    `low`/`high` or `mean`/`std`)."""
    import torch

    shapes = item.get("shapes") or [item["shape"]]
    shape = shapes[(seed or 0) % len(shapes)]
    dtype = getattr(torch, item.get("dtype", "float32"))
    kind = item.get("distribution", "randn")
    if kind == "randint":
        return torch.randint(int(item.get("low", 0)), int(item.get("high", 10)), shape, dtype=dtype)
    if kind in ("ones", "zeros"):
        return getattr(torch, kind)(shape, dtype=dtype)
    if kind == "rand":
        return torch.rand(shape).to(dtype)
    if kind == "uniform":
        return torch.empty(shape).uniform_(float(item.get("low", 0.0)), float(item.get("high", 1.0))).to(dtype)
    if kind == "normal":
        return (torch.randn(shape) * float(item.get("std", 1.0)) + float(item.get("mean", 0.0))).to(dtype)
    return torch.randn(shape).to(dtype)


def _tensors(value: Any) -> list[Any]:
    import torch

    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _tensors(v)]
    return [value] if isinstance(value, torch.Tensor) else []


def trial_seeds(seeding: str, base: int, trials: int) -> list[int | None]:
    """The seed before `get_inputs()` in each trial: KernelBench draws one per trial from the base."""
    import torch

    if seeding == "none":
        return [None] * trials
    if seeding == "fixed":
        return [base] * trials
    generator = torch.Generator().manual_seed(base)
    return [int(torch.randint(0, 2**31 - 1, (1,), generator=generator)) for _ in range(trials)]


def _probe(request: RunRequest, result: RunResult) -> None:
    import torch

    options = request.options
    torch.set_num_threads(1)
    problem = _Problem(request)
    facts = result.facts
    facts["entry"] = problem.entry
    seeding, base = options.get("seeding", "per-trial"), int(options.get("seed", 42))
    trials = int(options.get("trials", 1))
    seeds = trial_seeds(seeding, base, trials)
    meta = _meta_pass(problem, base)
    facts["meta"] = meta
    budget = float(options.get("budget_flops", 2e10))
    elements = meta.get("input_elements")
    if meta.get("error") is None and (elements or 0) > int(options.get("budget_elements", 2**25)):
        facts["skipped"] = (f"the task's inputs hold {elements:,} elements: more than the CPU runs' budget "
                            f"({int(options.get('budget_elements', 2**25)):,})")
        _unrun_facts(facts, meta)
        return
    if meta.get("error") is None and meta.get("flops", 0) * 2 > budget:
        facts["skipped"] = (f"one call of the reference is {meta['flops']:.3g} FLOPs: more than the CPU runs' "
                            f"budget ({budget / 2:.3g} per call)")
        _unrun_facts(facts, meta)
        return

    model = problem.build(base if options.get("seed_init", True) else None)
    facts["init_random"] = _init_random(problem, base)
    # The harness's inputs per trial, and whether they differ from trial to trial.
    started = time.monotonic()
    first = problem.inputs(seeds[0])
    originals = [x.clone() if isinstance(x, torch.Tensor) else x for x in first]
    if meta.get("error"):  # meta tensors could not run it: the facts from a traced real call
        fallback = trace_call(problem, model, _fresh(originals))
        facts["meta"] = meta = {**fallback, "traced": "a real call (" + meta["error"] + ")"}
    reference = _record(problem, model, first)
    facts["mutated_inputs"] = [i for i, (a, b) in enumerate(zip(originals, first))
                               if isinstance(a, torch.Tensor) and not _same(a, b)]
    call_s = max(time.monotonic() - started, 1e-4)
    second = problem.call(model, _fresh(originals))
    facts["deterministic"] = len(second) == len(reference.outputs) and all(
        _same(a, b) for a, b in zip(reference.outputs, second))
    facts.update(reference.facts)
    # How many trials the time budget allows: every variant costs about one call.
    variants = [v for v in options.get("variants", []) if _applies(v, facts)]
    per_trial = call_s * (3 + len(variants))
    run_trials = max(1, min(trials, int(float(options.get("budget_s", 60)) / per_trial)))
    facts["variants"] = variants
    shapes = []
    t = 0
    while t < run_trials:
        inputs = originals if t == 0 else problem.inputs(seeds[t])
        shapes.append(_shapes(inputs))
        if t == 1:
            facts["inputs_vary"] = _differ(originals, inputs)
        for i, x in enumerate(inputs):
            if isinstance(x, torch.Tensor):
                result.outputs[f"trial{t}/input{i}"] = to_numpy(x)
        outputs = reference.outputs if t == 0 else problem.call(model, _fresh(inputs))
        for k, out in enumerate(outputs):
            result.outputs[f"trial{t}/reference{k}"] = to_numpy(out)
        for k, out in enumerate(_oracle(problem, model, inputs)):
            result.outputs[f"trial{t}/oracle{k}"] = to_numpy(out)
        for name in variants:
            try:
                outs = _variant(problem, model, inputs, name, outputs)
            except UserFailure as err:
                facts.setdefault("variant_errors", {})[name] = str(err)
                continue
            for k, out in enumerate(outs):
                result.outputs[f"trial{t}/variant/{name}/{k}"] = to_numpy(out)
        if t == 0:  # what the parent receives stays under the budget: fewer trials for large outputs
            sent = sum(a.nbytes for a in result.outputs.values())
            run_trials = max(1, min(run_trials, int(options.get("budget_bytes", 2**29)) // max(sent, 1)))
        t += 1
    facts["trials_run"] = run_trials
    if trials > 1 and run_trials == 1:  # the inputs' variation is still known without running them
        second_inputs = problem.inputs(seeds[1])
        facts["inputs_vary"] = _differ(originals, second_inputs)
        shapes.append(_shapes(second_inputs))
    facts["trial_shapes"] = shapes
    # Whether get_inputs draws its shapes at all: three seeds of our own, whatever the harness seeds.
    drawn = set(meta.get("shapes_per_seed") or [repr(_shapes(problem.inputs(seed))) for seed in (1, 2, 3)])
    facts["shapes_vary"] = len(drawn | {repr(s) for s in shapes}) > 1
    facts["input_patterns"] = _input_patterns(originals)
    if options.get("time_natively"):
        facts["timing"] = _native_timing(problem, model, originals)


def _unrun_facts(facts: dict[str, Any], meta: dict[str, Any]) -> None:
    """What the meta pass tells without running: the shapes, and whether they vary with the seed."""
    facts["trial_shapes"] = [[i["shape"] for i in meta.get("inputs", [])]]
    if meta.get("shapes_per_seed"):
        facts["shapes_vary"] = len(set(meta["shapes_per_seed"])) > 1


def _shapes(inputs: list[Any]) -> list[list[int]]:
    import torch

    return [list(x.shape) for x in inputs if isinstance(x, torch.Tensor)]


def _differ(first: list[Any], second: list[Any]) -> bool:
    """Whether two draws of the inputs differ in any tensor."""
    import torch

    return not all(_same(a, b) for a, b in zip(first, second)
                   if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor))


def _fresh(inputs: list[Any]) -> list[Any]:
    import torch

    return [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]


def _same(a, b) -> bool:
    import torch

    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        return a == b
    return a.shape == b.shape and a.dtype == b.dtype and bool(torch.equal(a.cpu(), b.cpu()) or (
        a.is_floating_point() and bool(torch.equal(torch.isnan(a), torch.isnan(b)))
        and bool(torch.equal(torch.nan_to_num(a), torch.nan_to_num(b)))))


def _init_random(problem: _Problem, base: int) -> dict[str, bool]:
    """Whether two unseeded constructions (and two unseeded get_init_inputs() calls) differ."""
    import torch

    torch.manual_seed(base)
    a, b = problem.init_inputs(), problem.init_inputs()
    init_inputs = not all(_same(x, y) for x, y in zip(a, b))
    weights = False
    if isinstance(problem.fn, type):
        torch.manual_seed(base)
        one, two = problem.build(None), problem.build(None)
        if hasattr(one, "state_dict"):
            first, second = one.state_dict(), two.state_dict()
            weights = any(not _same(first[k], second[k]) for k in first if k in second)
    return {"init_inputs": init_inputs, "weights": weights}


# ----------------------------------------------------------------------------------------------
# The operator trace


class _Trace:
    def __init__(self):
        self.ops: list[dict[str, Any]] = []
        self.outputs: list[Any] = []
        self.facts: dict[str, Any] = {}


def _dispatch_mode(on_op):
    """A TorchDispatchMode calling `on_op(func, args, kwargs)` for every ATen call; what it returns
    (not NotImplemented) replaces the call's result."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out = on_op(func, args, kwargs)
            return func(*args, **kwargs) if out is NotImplemented else out

    return Mode()


def _op_name(func) -> str:
    return func.overloadpacket.__name__.rstrip("_") if hasattr(func, "overloadpacket") else str(func)


def _meta_pass(problem: _Problem, base: int) -> dict[str, Any]:
    """One call on meta tensors: shapes, dtypes, FLOPs, bytes and the longest reduction, without
    allocating the task's sizes (`error` says why not, e.g. an operator with data-dependent shapes;
    the real first call is traced instead, `_probe`)."""
    import torch

    try:
        try:
            with torch.device("meta"):
                inputs = problem.inputs(base)
        except UserFailure:  # get_inputs needs values (`int(torch.randint(...))`): drawn for real
            inputs = [x.to("meta") if isinstance(x, torch.Tensor) else x for x in problem.inputs(base)]
        with torch.device("meta"):
            model = problem.build(base)
            traced = trace_call(problem, model, inputs)
    except (UserFailure, Exception) as err:  # noqa: BLE001 - a reference meta tensors cannot run
        return {"error": f"meta tensors cannot run the reference: {str(err).splitlines()[0][:300] if str(err) else type(err).__name__}"}
    traced["shapes_per_seed"] = _meta_shapes(problem)
    return traced


def _meta_shapes(problem: _Problem) -> list[str] | None:
    """get_inputs()'s shapes under three seeds of our own, drawn on meta tensors (None: it cannot be)."""
    import torch

    try:
        with torch.device("meta"):
            return [repr(_shapes(problem.inputs(seed))) for seed in (1, 2, 3)]
    except (UserFailure, Exception):  # noqa: BLE001
        return None


def trace_call(problem: _Problem, model, inputs: list[Any]) -> dict[str, Any]:
    """One call of the reference with every ATen operator recorded and its FLOPs counted."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    ops: list[dict[str, Any]] = []

    def record(func, args, kwargs):
        out = func(*args, **kwargs)
        try:
            ops.append(_describe(func, args, kwargs, out))
        except Exception:  # noqa: BLE001 - an operator this trace does not know: its name only
            ops.append({"name": _op_name(func), "dtypes": [], "out_bytes": 0})
        return out

    counter = FlopCounterMode(display=False)
    with counter, _dispatch_mode(record):
        outputs = problem.call(model, inputs)
    tensors = [x for x in inputs if isinstance(x, torch.Tensor)]
    params = list(model.parameters()) + list(model.buffers()) if hasattr(model, "parameters") else []
    nbytes = lambda t: t.numel() * t.element_size()  # noqa: E731
    largest = max((op["out_bytes"] for op in ops), default=0)
    k_op, k = max(((op["name"], op["k"]) for op in ops if op.get("k")), key=lambda p: p[1], default=(None, 0))
    return {
        "inputs": [{"shape": list(t.shape), "dtype": _dtype(t)} for t in tensors],
        "outputs": [{"shape": list(t.shape), "dtype": _dtype(t)} for t in outputs],
        "input_elements": sum(t.numel() for t in tensors),
        "input_bytes": sum(nbytes(t) for t in tensors),
        "output_bytes": sum(nbytes(t) for t in outputs),
        "param_bytes": sum(nbytes(t) for t in params),
        "largest_intermediate": largest,
        "flops": float(counter.get_total_flops()),
        "ops": sorted({op["name"] for op in ops}),
        "dtypes": sorted({d for op in ops for d in op["dtypes"]} | {_dtype(t) for t in tensors}),
        "k": k, "k_op": k_op,
        "gelu_exact": any(op["name"] == "gelu" and op.get("approximate", "none") == "none" for op in ops),
        "variance": any(op["name"] in ("var", "std", "var_mean", "std_mean") for op in ops),
        "rounding_division": any(op["name"] == "div" and op.get("rounding_mode") for op in ops),
        "random_ops": sorted({op["name"] for op in ops if op["name"].startswith(RANDOM_OPS)}),
        "gpu_nondeterministic": sorted({op["name"] for op in ops if op["name"] in GPU_NONDETERMINISTIC
                                        and (op["name"] != "index_put" or op.get("accumulate"))}),
    }


def _dtype(tensor) -> str:
    return str(tensor.dtype).removeprefix("torch.")


def _describe(func, args, kwargs, out) -> dict[str, Any]:
    import torch

    name = _op_name(func)
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    outs = _tensors(out)
    entry: dict[str, Any] = {
        "name": name,
        "dtypes": sorted({_dtype(t) for t in tensors + outs}),
        "out_bytes": sum(t.numel() * t.element_size() for t in outs),
    }
    if name in ("mm", "bmm", "addmm", "baddbmm", "addbmm") and len(tensors) >= 2:
        entry["k"] = int(tensors[-1].shape[-2])
    elif name == "convolution" and len(tensors) >= 2:
        weight = tensors[1]
        entry["k"] = int(math.prod(weight.shape[1:]))
    elif name in REDUCTIONS and tensors:
        at = 2 if name in ("norm", "linalg_vector_norm") else 1  # (x, ord, dim) for the norms
        dims = args[at] if len(args) > at and isinstance(args[at], (int, list, tuple)) else kwargs.get("dim")
        shape = tensors[0].shape
        if dims is None or dims == [] or dims == ():
            entry["k"] = int(tensors[0].numel())
        else:
            dims = [dims] if isinstance(dims, int) else list(dims)
            entry["k"] = int(math.prod(shape[d % len(shape)] for d in dims)) if shape else 1
    if name == "gelu":
        entry["approximate"] = kwargs.get("approximate", "none")
    if name == "div":
        entry["rounding_mode"] = kwargs.get("rounding_mode")
    if name == "index_put":
        entry["accumulate"] = bool(args[3]) if len(args) > 3 else bool(kwargs.get("accumulate"))
    return entry


def _record(problem: _Problem, model, inputs: list[Any]) -> _Trace:
    """The real call, recording operators that are the identity here and nearly uniform softmaxes."""
    import torch

    trace = _Trace()
    identities: dict[str, int] = {}
    softmax: list[float] = []

    def watch(func, args, kwargs):
        out = func(*args, **kwargs)
        name = _op_name(func)
        if name in IDENTITY_CANDIDATES and args and isinstance(args[0], torch.Tensor) and isinstance(out, torch.Tensor):
            source = args[0]
            if out.shape == source.shape and out.dtype == source.dtype and source.numel() and torch.equal(out, source):
                identities[name] = identities.get(name, 0) + 1
        if name == "_softmax" and isinstance(out, torch.Tensor) and out.numel():
            dim = args[1] if len(args) > 1 else -1
            length = out.shape[dim]
            if length >= 8:
                softmax.append(float(out.float().amax(dim=dim).max()) * length)
        return out

    with _dispatch_mode(watch):
        trace.outputs = problem.call(model, inputs)
    trace.facts["identity_ops"] = identities
    trace.facts["softmax_peak"] = max(softmax) if softmax else None  # the largest max * length: 1 is uniform
    return trace


def _input_patterns(inputs: list[Any]) -> list[dict[str, Any]]:
    """Inputs that are constant, or whose rows are all equal."""
    import torch

    found = []
    for i, x in enumerate(inputs):
        if not isinstance(x, torch.Tensor) or x.numel() < 2 or not (x.is_floating_point() or x.dtype.is_complex):
            continue
        flat = x.reshape(-1)
        if bool((flat == flat[0]).all()):
            found.append({"input": i, "pattern": "constant", "value": float(flat[0])})
        elif x.dim() >= 2 and x.shape[-2] >= 2 and bool((x == x[..., :1, :]).all()):
            found.append({"input": i, "pattern": "repeated rows"})
    return found


# ----------------------------------------------------------------------------------------------
# The oracle and the variants


def _oracle(problem: _Problem, model, inputs: list[Any]) -> list[Any]:
    import copy

    import torch

    oracle = copy.deepcopy(model).double() if hasattr(model, "double") else model
    doubled = [x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in _fresh(inputs)]
    with _dispatch_mode(_keep_float64):
        outs = problem.call(oracle, doubled)
    return [out.double() if out.is_floating_point() else out for out in outs]


def _keep_float64(func, args, kwargs):
    """The oracle computes the same operations in float64: a cast of a float64 value to a narrower
    float (`x.to(torch.bfloat16)` in the reference) keeps it in float64."""
    import torch

    if _op_name(func) in ("_to_copy", "to") and args and isinstance(args[0], torch.Tensor):
        dtype = kwargs.get("dtype")
        if args[0].dtype == torch.float64 and dtype in (torch.float16, torch.bfloat16, torch.float32):
            return args[0].clone()
    return NotImplemented


def _applies(name: str, facts: dict[str, Any]) -> bool:
    meta = facts.get("meta", {})
    ops = set(meta.get("ops", ()))
    outputs = [o["dtype"] for o in meta.get("outputs", [])]
    wide = any(d in ("float32", "float64") for d in outputs)
    if meta.get("error"):  # no trace: the variants that rewrite nothing specific
        return name in ("lowp-bfloat16", "lowp-float16")
    return {
        "lowp-bfloat16": wide,
        "lowp-float16": wide,
        "accumulate-float16": wide and bool(ops & {"mm", "bmm", "addmm", "sum", "mean", "baddbmm"}),
        "accumulate-bfloat16": not wide and bool(ops & {"mm", "bmm", "addmm", "sum", "mean", "baddbmm"}),
        "tanh-gelu": bool(meta.get("gelu_exact")),
        "fast-exp": bool(ops & {"exp", "_softmax", "_log_softmax"}),
        "no-max-shift": bool(ops & {"_softmax", "_log_softmax"}),
        "tf32": "float32" in outputs and bool(ops & {"mm", "bmm", "addmm", "convolution", "baddbmm"}),
        "reading-variance": bool(meta.get("variance")),
        "reading-division": bool(meta.get("rounding_division")),
    }.get(name, False)


def _variant(problem: _Problem, model, inputs: list[Any], name: str, reference: list[Any]) -> list[Any]:
    import copy

    import torch

    inputs = _fresh(inputs)
    if name.startswith("lowp-"):
        dtype = getattr(torch, name.removeprefix("lowp-"))
        low = copy.deepcopy(model).to(dtype) if hasattr(model, "to") else model
        cast = [x.to(dtype) if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in inputs]
        with _dispatch_mode(_float16_products):
            outs = problem.call(low, cast)
        return [o.to(r.dtype) for o, r in zip(outs, reference)]
    rules = _RULES[name.split("-")[0] if name.startswith("accumulate-") else name]
    low = getattr(torch, name.removeprefix("accumulate-")) if name.startswith("accumulate-") else None
    with _dispatch_mode(lambda func, args, kwargs: rules(func, args, kwargs, low)):
        outs = problem.call(model, inputs)
    return [o.to(r.dtype) for o, r in zip(outs, reference)]


def _float16_products(func, args, kwargs):
    """A matrix product of float16 operands, computed in float32 and rounded to float16 once: what a
    GPU's float16 GEMM does (float32 accumulators), and what torch's CPU kernel does too, up to the
    order of the sums; that kernel takes 15 times as long as float32's (0.6 s for 1001^3 on one
    thread), most of a matmul task's probe."""
    import torch

    if _op_name(func) not in ("mm", "bmm", "addmm", "baddbmm") or not any(
            isinstance(a, torch.Tensor) and a.dtype == torch.float16 for a in args):
        return NotImplemented
    wide = [a.float() if isinstance(a, torch.Tensor) and a.dtype == torch.float16 else a for a in args]
    return func(*wide, **kwargs).to(torch.float16)


def _tanh_gelu(func, args, kwargs, _):
    if _op_name(func) == "gelu" and kwargs.get("approximate", "none") == "none":
        return func(*args, **{**kwargs, "approximate": "tanh"})
    return NotImplemented


def fast_exp(x):
    """CUDA's `__expf`: `ex2.approx` of the float32 product `x * log2(e)` (the product's rounding is
    the error the CUDA guide bounds by 2 + floor(|1.173 x|) ulps)."""
    import torch

    scaled = (x.float() * torch.tensor(math.log2(math.e), dtype=torch.float32)).double()
    return torch.exp2(scaled).to(x.dtype)


def _fast_exp(func, args, kwargs, _):
    import torch

    name = _op_name(func)
    if name == "exp":
        return fast_exp(args[0])
    if name in ("_softmax", "_log_softmax"):
        x, dim = args[0], args[1]
        shifted = x - x.amax(dim=dim, keepdim=True)
        e = fast_exp(shifted)
        total = e.sum(dim=dim, keepdim=True)
        return (e / total).to(x.dtype) if name == "_softmax" else (shifted - torch.log(total)).to(x.dtype)
    return NotImplemented


def _no_max_shift(func, args, kwargs, _):
    import torch

    name = _op_name(func)
    if name in ("_softmax", "_log_softmax"):
        x, dim = args[0], args[1]
        e = torch.exp(x)  # in the input's dtype: overflows where a shifted softmax would not
        total = e.sum(dim=dim, keepdim=True)
        return (e / total) if name == "_softmax" else torch.log(e / total)
    return NotImplemented


def _chunked_sum(x, dim: int, low):
    """Sum along `dim` with the running sum rounded to `low` after each chunk of CHUNK terms."""
    import torch

    x = x.movedim(dim, -1)
    total = torch.zeros(x.shape[:-1], dtype=low)
    for start in range(0, x.shape[-1], CHUNK):
        total = (total.float() + x[..., start:start + CHUNK].float().sum(-1)).to(low)
    return total


def _chunked_matmul(a, b, low):
    """a @ b with the operands in `low` and the running sum rounded to `low` after each CHUNK of K."""
    import torch

    a, b = a.to(low), b.to(low)
    total = torch.zeros((*a.shape[:-1], b.shape[-1]), dtype=low)
    for start in range(0, a.shape[-1], CHUNK):
        part = a[..., start:start + CHUNK].float() @ b[..., start:start + CHUNK, :].float()
        total = (total.float() + part).to(low)
    return total


def _accumulate(func, args, kwargs, low):
    """Products and sums accumulated in `low`, as a kernel keeping its accumulator in fp16/bf16."""
    name = _op_name(func)
    if name in ("mm", "bmm") and len(args) == 2:
        return _chunked_matmul(args[0], args[1], low).to(args[0].dtype)
    if name == "addmm" and len(args) >= 3:
        bias, a, b = args[:3]
        beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
        return (beta * bias + alpha * _chunked_matmul(a, b, low).to(a.dtype)).to(a.dtype)
    if name in ("sum", "mean") and len(args) >= 2 and args[0].is_floating_point():
        x, dims = args[0], args[1]
        dims = [dims] if isinstance(dims, int) else list(dims or range(x.dim()))
        keep = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
        out = x.to(low)
        count = 1
        for d in sorted((d % x.dim() for d in dims), reverse=True):
            count *= x.shape[d]
            out = _chunked_sum(out, d, low)
            if keep:
                out = out.unsqueeze(d)
        out = out.to(x.dtype)
        return out / count if name == "mean" else out
    return NotImplemented


def to_tf32(x):
    """Round float32 values to TF32 (10 explicit mantissa bits), to nearest, ties away."""
    import torch

    bits = x.float().contiguous().view(torch.int32)
    rounded = (bits + 0x1000) & ~0x1FFF
    return torch.where(torch.isfinite(x.float()), rounded.view(torch.float32), x.float()).to(x.dtype)


def _tf32(func, args, kwargs, _):
    import torch

    name = _op_name(func)
    if name in ("mm", "bmm", "addmm", "baddbmm", "convolution"):
        products = {"mm": (0, 1), "bmm": (0, 1), "addmm": (1, 2), "baddbmm": (1, 2), "convolution": (0, 1)}[name]
        args = tuple(to_tf32(a) if i in products and isinstance(a, torch.Tensor) and a.dtype == torch.float32 else a
                     for i, a in enumerate(args))
        return func(*args, **kwargs)
    return NotImplemented


def _reading_variance(func, args, kwargs, _):
    name = _op_name(func)
    if name in ("var", "std", "var_mean", "std_mean"):
        correction = kwargs.get("correction")
        if correction is None and "unbiased" in kwargs:
            correction = 1 if kwargs["unbiased"] else 0
        correction = 1 if correction is None else correction
        rest = {k: v for k, v in kwargs.items() if k != "unbiased"}
        return func(*args, **{**rest, "correction": 0 if correction else 1})
    return NotImplemented


def _reading_division(func, args, kwargs, _):
    if _op_name(func) == "div" and kwargs.get("rounding_mode") in ("floor", "trunc"):
        other = "trunc" if kwargs["rounding_mode"] == "floor" else "floor"
        return func(*args, **{**kwargs, "rounding_mode": other})
    return NotImplemented


_RULES = {
    "tanh-gelu": _tanh_gelu,
    "fast-exp": _fast_exp,
    "no-max-shift": _no_max_shift,
    "accumulate": _accumulate,
    "tf32": _tf32,
    "reading-variance": _reading_variance,
    "reading-division": _reading_division,
}
VARIANTS = ("lowp-bfloat16", "lowp-float16", "accumulate-float16", "accumulate-bfloat16", *(n for n in _RULES if n != "accumulate"))


# ----------------------------------------------------------------------------------------------
# Timing on a real CUDA device


def _native_timing(problem: _Problem, model, inputs: list[Any]) -> dict[str, Any]:
    """The reference timed on this machine's GPU: warm (no flush) and cold (L2 flushed by writing
    twice its size), the median and the spread of each, and one empty launch's cost."""
    import torch

    from lowercheck import cuda_on_cpu

    if not cuda_on_cpu.real_cuda_available():
        return {"skipped": "no CUDA device"}
    device = torch.device("cuda")
    model = model.to(device) if hasattr(model, "to") else model
    inputs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in inputs]
    l2 = torch.cuda.get_device_properties(device).L2_cache_size
    scratch = torch.empty(max(2 * l2, 1 << 20), dtype=torch.uint8, device=device)

    def timed(flush: bool, reps: int = 50) -> list[float]:
        times = []
        for _ in range(reps):
            if flush:
                scratch.zero_()
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            problem.call(model, inputs)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) * 1e-3)
        return times

    for _ in range(3):
        problem.call(model, inputs)
    warm, cold = timed(False), timed(True)
    empty = torch.empty(1, device=device)
    launch = []
    for _ in range(50):
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        empty.add_(0)
        end.record()
        torch.cuda.synchronize()
        launch.append(start.elapsed_time(end) * 1e-3)
    spread = lambda xs: float(np.std(xs) / np.mean(xs)) if np.mean(xs) > 0 else 0.0  # noqa: E731
    return {"device": torch.cuda.get_device_name(device), "warm_s": float(np.median(warm)),
            "cold_s": float(np.median(cold)), "warm_cv": spread(warm), "cold_cv": spread(cold),
            "launch_s": float(np.median(launch))}
