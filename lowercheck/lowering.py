"""Lowering one file: pick the front end and the entry, lower, and run `extract-accesses`.

Shared by `lowercheck lower` and `lowercheck diff`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp

from lowercheck import ir
from lowercheck.errors import SourceLocation, Unsupported, UserError
from lowercheck.frontends import frontend_for, language_of, split_entry
from lowercheck.frontends.base import (
    Arg,
    Binding,
    EntryCandidate,
    NeedsConcreteSizes,
    ScalarArg,
    SizeArg,
    TensorArg,
    TupleArg,
    ValueArg,
    function_def,
)
from lowercheck.passes.extract_accesses import ExtractAccessesPass
from lowercheck.spec import ArgSpec, Spec

# Integer parameters with these names are sizes when nothing else says so.
SIZE_NAME = re.compile(r"^(n|m|k|N|M|K|B|H|W|C|D|L|T|size|numel|length|n_\w+|num_\w+|\w+_size|\w+_len)$")


def resolve_entry(path: str, entry: str | None, candidates: list[EntryCandidate],
                  other_entry: str | None = None, other_candidates: Sequence[EntryCandidate] = ()) -> str:
    """ENTRY as given; else the one named like the other side's entry; else the only candidate."""
    names = [c.name for c in candidates]
    if entry is not None:
        if entry not in names:
            raise UserError(f"no entry `{entry}` in {path}", SourceLocation(path, 1),
                            hint=f"entries found: {', '.join(names) or 'none'}")
        return entry
    names = [c.name for c in candidates if c.chosen_unnamed]  # never another instance, never a wrapper
    if len(names) == 1:
        return names[0]
    preferred = [c.name for c in candidates if c.chosen_unnamed and c.preferred]
    if len(preferred) == 1:  # the one a KernelBench file's `forward` calls
        return preferred[0]
    if not names:
        raise UserError(f"no entry point found in {path}", SourceLocation(path, 1),
                        hint="a CUDA file needs a host function that launches a kernel with <<<...>>>; "
                             "a Triton file a Python function that launches a @triton.jit kernel")
    others = [c for c in other_candidates if c.chosen_unnamed]  # never a kernel entry, another instance
    partner = other_entry or (others[0].name if len(others) == 1 else None)
    if partner in names:
        return partner
    raise UserError(f"{path} has several entry points: {', '.join(names)}",
                    candidates[0].location, hint=f"name one: {path}:{names[0]}")


def spec_binding(spec: Spec) -> Binding:
    """The binding a spec alone gives: shapes and dtypes of the arguments it describes (a shape
    without a dtype: float32 where the code does not type it; a typed side keeps its own)."""
    args: dict[str, Arg] = {}
    for name, arg in spec.args.items():
        if arg.items is not None:
            args[name] = TupleArg(tuple(ValueArg(i.value) if i.fixed else TensorArg(tuple(i.shape), i.dtype or "float32")
                                        for i in arg.items))
        elif arg.fixed:
            args[name] = fixed_argument(arg)
        elif arg.shape is not None:
            args[name] = TensorArg(tuple(arg.shape), arg.dtype or "float32")
    for name in spec.sizes:
        args.setdefault(name, SizeArg(name))
    return Binding(args=args, sizes=None, grid=spec.grid)


def fixed_argument(arg: ArgSpec) -> Arg:
    """A spec's `value`: a float is a scalar parameter of the IR with that value in every run; an
    integer, a boolean, a string or None is passed as it is (an integer is no size to sweep: the spec
    sweeps sizes in [sizes])."""
    if isinstance(arg.value, float):
        return ScalarArg(arg.dtype or "float32", arg.value)
    return ValueArg(arg.value)


def extract_accesses(module: ModuleOp) -> ModuleOp:
    """The access IR of a lowered module (the module itself is left unchanged)."""
    clone = module.clone()
    ExtractAccessesPass().apply(ir.context(), clone)
    return clone


_TENSOR_ATTRIBUTES = {"shape", "numel", "stride", "dtype", "device", "size", "dim", "is_contiguous",
                      "contiguous", "view", "reshape", "data_ptr", "element_size", "ndim"}


def defaulted_parameters(path: str, entry: str) -> set[str]:
    """The parameters of the Python function `entry` that have a default (`axis=-1`, `eps=1e-6`,
    `interpret=False`, a block size): the wrapper keeps its defaults unless the spec names them."""
    func = function_def(path, entry)
    if func is None:
        return set()
    positional = [*func.args.posonlyargs, *func.args.args]
    names = {a.arg for a in positional[len(positional) - len(func.args.defaults):]} if func.args.defaults else set()
    names |= {a.arg for a, d in zip(func.args.kwonlyargs, func.args.kw_defaults) if d is not None}
    return names


def _parameter_kinds(path: str, entry: str) -> dict[str, str]:
    """What the wrapper's source says each parameter is: its annotation (`torch.Tensor`, `float`,
    `int`), else how it is used (`x.shape`, `torch.empty_like(x)`: a tensor)."""
    import ast

    func = function_def(path, entry)
    if func is None:
        return {}
    kinds: dict[str, str] = {}
    for arg in func.args.args:
        text = ast.unparse(arg.annotation) if arg.annotation is not None else ""
        if "Tensor" in text:
            kinds[arg.arg] = "tensor"
        elif text == "float":
            kinds[arg.arg] = "scalar"
        elif text == "int":
            kinds[arg.arg] = "size"
    params = {a.arg for a in func.args.args}
    for node in ast.walk(func):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in params \
                and node.attr in _TENSOR_ATTRIBUTES:
            kinds.setdefault(node.value.id, "tensor")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.endswith("_like"):
            for a in node.args:
                if isinstance(a, ast.Name) and a.id in params:
                    kinds.setdefault(a.id, "tensor")
    return kinds


def _unpacked_shapes(path: str, entry: str) -> dict[str, tuple[str, ...]]:
    """Shapes the wrapper spells out: `m, n = x.shape` (x is [m, n]); `n = b.shape[1]` or
    `n = b.size(1)` (b has at least 2 dimensions, the second is n; others get `b_size0`...)."""
    import ast

    func = function_def(path, entry)
    if func is None:
        return {}
    params = {a.arg for a in func.args.args}
    named: dict[str, dict[int, str]] = {}

    def shape_of(value: ast.expr) -> str | None:  # `x.shape` -> "x"
        if isinstance(value, ast.Attribute) and value.attr == "shape" and isinstance(value.value, ast.Name) \
                and value.value.id in params:
            return value.value.id
        return None

    for node in ast.walk(func):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Tuple) and (param := shape_of(value)):
            for i, t in enumerate(target.elts):
                if isinstance(t, ast.Name) and t.id != "_":
                    named.setdefault(param, {})[i] = t.id
                else:
                    named.setdefault(param, {}).setdefault(i, f"{param}_size{i}")
        elif isinstance(target, ast.Name):
            index, param = None, None
            if isinstance(value, ast.Subscript) and (param := shape_of(value.value)) \
                    and isinstance(value.slice, ast.Constant):
                index = value.slice.value
            elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                    and value.func.attr == "size" and isinstance(value.func.value, ast.Name) \
                    and value.func.value.id in params and value.args and isinstance(value.args[0], ast.Constant):
                param, index = value.func.value.id, value.args[0].value
            if param is not None and isinstance(index, int) and index >= 0:
                named.setdefault(param, {})[index] = target.id
    return {p: tuple(dims.get(i, f"{p}_size{i}") for i in range(max(dims) + 1)) for p, dims in named.items()}


def lower_file(file_arg: str, spec: Spec, emit: str = "ir") -> ModuleOp:
    """`lowercheck lower`: one file on its own. Untyped (Python) parameters without a spec are
    assumed to be float32 vectors of a size `n`; the assumption is printed on stderr."""
    path, entry = split_entry(file_arg)
    language = language_of(path)
    frontend = frontend_for(path)
    candidates = frontend.entries(path)
    entry = resolve_entry(path, entry, candidates)
    binding = spec_binding(spec)
    if not typed(language, path):
        assumed = assume_arguments(path, next(c for c in candidates if c.name == entry), binding)
        if assumed:
            print(f"note: assumed {', '.join(assumed)} (give shapes and dtypes in --spec)", file=sys.stderr)
    try:
        module = frontend.lower(path, entry, binding)
    except NeedsConcreteSizes as why:
        candidate = next(c for c in candidates if c.name == entry)
        names = sorted({d for a in binding.args.values() if isinstance(a, TensorArg) for d in a.shape
                        if isinstance(d, str)} | {a.size for a in binding.args.values() if isinstance(a, SizeArg)}
                       | set(typed_sizes(candidate)))
        sizes = spec.sweep()[0] if spec.sizes else {name: 1000 for name in names}
        print(f"note: lowered for {', '.join(f'{k}={v}' for k, v in sizes.items())} only: {why}", file=sys.stderr)
        try:
            module = frontend.lower(path, entry, Binding(binding.args, sizes, binding.grid))
            if not spec.sizes and not _launches_any(module):
                module, sizes = _at_compared_values(frontend, path, entry, binding, sizes, module)
        except NeedsConcreteSizes as still:  # a front end that cannot lower even at these sizes
            raise Unsupported(f"`{entry}` cannot be lowered even at concrete sizes: {still}",
                              next(c for c in candidates if c.name == entry).location) from None
        _check_launches(module, next(c for c in candidates if c.name == entry), sizes)
    for note in source_notes(frontend, path):
        print(f"note: {note}", file=sys.stderr)
    for finding in stage_findings(frontend, path):
        print(f"{finding.level}[{finding.code}]: {finding.message}", file=sys.stderr)
    return extract_accesses(module) if emit == "access" else module


def typed_sizes(candidate: EntryCandidate) -> list[str]:
    """A typed entry's integer scalar parameters (a CUDA launcher's `int n`): the sizes it is lowered
    at when it can only be lowered at concrete sizes."""
    return [p.name for p in candidate.params if p.kind == "scalar" and (p.dtype or "").startswith(("int", "uint"))]


def _launches_any(module: ModuleOp) -> bool:
    from lowercheck.dialects.kernel import LaunchOp

    return any(isinstance(op, LaunchOp) for op in module.walk())


# How many combinations of compared values `lower` tries before it gives up.
_COMPARED_TRIES = 64


def _at_compared_values(frontend, path: str, entry: str, binding: Binding, sizes: dict[str, int],
                        module: ModuleOp) -> tuple[ModuleOp, dict[str, int]]:
    """A launcher that makes none of its launches at `lower`'s default values (every integer 1000)
    chooses them by comparing parameters with constants (`if (num_bits == 8 && q_type ==
    Symmetric)`): lowered at the first combination of those constants (in source order, the fewest
    parameters off their default first) that launches, and said. Only front ends that can say what a launcher compares (`compared_values`)."""
    import itertools

    compared = getattr(frontend, "compared_values", None)
    choices = {k: v for k, v in (compared(path, entry) if callable(compared) else {}).items() if k in sizes}
    if not choices:
        return module, sizes
    names = list(choices)
    # Each parameter at its default or at a constant it is compared with; the fewest changes first.
    options = [[sizes[n], *(v for v in choices[n] if v != sizes[n])] for n in names]
    combinations = sorted(itertools.islice(itertools.product(*options), _COMPARED_TRIES * 16),
                          key=lambda c: sum(v != sizes[n] for n, v in zip(names, c, strict=True)))
    for combination in combinations[:_COMPARED_TRIES]:
        tried = {**sizes, **dict(zip(names, combination, strict=True))}
        try:
            candidate = frontend.lower(path, entry, Binding(binding.args, tried, binding.grid))
        except (NeedsConcreteSizes, UserError):
            continue  # an Unsupported construct in what these values launch is what the row should name
        if _launches_any(candidate):
            shown = ", ".join(f"{n}={tried[n]}" for n in names if tried[n] != sizes[n])
            print(f"note: `{entry}` launches nothing at the default values; lowered at {shown}, values its "
                  "conditions compare with (give the ones its callers pass in a spec)", file=sys.stderr)
            return candidate, tried
    return module, sizes


def _check_launches(module: ModuleOp, candidate: EntryCandidate, sizes: dict[str, int]) -> None:
    """A launcher lowered at the sizes `lower` chose that makes none of the launches it has (a
    `switch` on a mode none of whose cases is taken) models nothing: inconclusive, not clean."""
    from lowercheck.dialects.kernel import LaunchOp

    if candidate.launches and not any(isinstance(op, LaunchOp) for op in module.walk()):
        raise Unsupported(f"`{candidate.name}` makes none of its launches at "
                          f"{', '.join(f'{k}={v}' for k, v in sizes.items())}: the values that choose them are not "
                          "the ones its callers pass", candidate.location,
                          hint="give those values in a spec ([args.NAME] value = ..., or [sizes])")


def stage_findings(frontend, path: str, side: str | None = None) -> list:
    """What running `path`'s code in the front end's sandbox showed (LC903: processes it left
    running); none for a front end that runs no user code (CUDA)."""
    found = getattr(frontend, "stage_findings", None)
    return list(found(path, side)) if callable(found) else []


def source_notes(frontend, path: str) -> list[str]:
    """What a front end replaced or skipped while reading `path` (the CUDA front end's empty
    headers and unparsed host functions); none for the others."""
    notes = getattr(frontend, "source_notes", None)
    return list(notes(path)) if callable(notes) else []


def assume_arguments(path: str, candidate: EntryCandidate, binding: Binding) -> list[str]:
    """Fill `binding` with what an untyped Python entry's arguments most likely are: a tensor's
    shape as the wrapper unpacks it (`m, n = x.shape`), else float32[n]; a parameter used as a number
    is a float32 scalar, one named like a size (`n`, `rows`) a size. Returns the assumptions made, for
    the user to see (the spec overrides each)."""
    kinds = _parameter_kinds(path, candidate.name)
    shapes = _unpacked_shapes(path, candidate.name)
    defaulted = defaulted_parameters(path, candidate.name)
    assumed = []
    for p in candidate.params:
        if p.name in binding.args or p.name in defaulted:  # a default is the wrapper's own choice
            continue
        if p.name in shapes:
            binding.args[p.name] = TensorArg(shapes[p.name], p.dtype or "float32")
            assumed.append(f"{p.name}: float32[{', '.join(shapes[p.name])}]")
            continue
        kind = kinds.get(p.name) or ("size" if SIZE_NAME.match(p.name) else "tensor")
        if kind == "size":
            binding.args[p.name] = SizeArg(p.name)
        elif kind == "scalar":
            binding.args[p.name] = ScalarArg("float32", 1.5)
            assumed.append(f"{p.name}: float32 scalar")
        else:
            binding.args[p.name] = TensorArg(("n",), p.dtype or "float32")
            assumed.append(f"{p.name}: float32[n]")
    return assumed


def typed(language: str, path: str) -> bool:
    """Whether a side says its own parameters: a CUDA signature, or a PyTorch reference with
    example inputs (`get_inputs()`)."""
    if language == "torch":
        from lowercheck.frontends.torch.source import has_example_inputs

        return has_example_inputs(path)
    return language == "cuda"


# Seconds `lower` may spend on the relations it prints: they are a reading aid, never a verdict.
RELATIONS_BUDGET_S = 30
DEPENDENCE_BUDGET_S = 10  # seconds `lower --emit access` spends on the dependence maps of all outputs


class _TooCostly(Exception):
    """The alarm of `relations_text`: its budget of seconds ran out."""


def relations_text(module: ModuleOp, sizes: dict[str, int] | None = None,
                   budget_s: float = RELATIONS_BUDGET_S, dependence_budget_s: float = DEPENDENCE_BUDGET_S) -> str:
    """The access relations of an access module in isl notation, each with its words, as `//`
    comment lines (the IR printed before them stays parsable): for all sizes where the indices are
    quasi-affine in them, else for one size (`sizes`, the spec's first; else 1000 each). Relations
    that take longer than `budget_s` to build are left out with a line that says so. Then each
    output's dependence maps (`_dependences_text`), within `dependence_budget_s`."""
    import signal
    import threading

    def expired(signum, frame):
        raise _TooCostly

    timed = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGALRM, expired) if timed else None
    try:
        try:
            if timed:
                signal.setitimer(signal.ITIMER_REAL, budget_s)
            text, rel = _relations_text(module, sizes)
            if timed:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except _TooCostly:
            return (f"// access relations not shown: building them took more than {budget_s:.0f} s (isl; the "
                    "access IR above is complete)\n")
        return text + _dependences_text(module, rel, dependence_budget_s, timed)
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


NOT_EXACT = "not exact"  # the words of a dependence `diff` does not compare (`realworld` counts them)
OBSERVED_LINE = "//   observed: "  # `lower --observe`'s lines for the maps observed in runs (`realworld` counts them)
COMPARED_LINE = "//   compared: "  # and for those `diff`'s static checks composed where `lower` gave up
DEPENDENCE_OPERATIONS = 2 * 10**7  # isl operations one (output, input) map may take in `lower`


def _dependences_text(module: ModuleOp, rel, budget_s: float, timed: bool) -> str:
    """Each output's dependence map on each input (what `diff` compares: LC204) in words, with the
    operators that combined its values; "not exact" with the reason where it cannot be composed
    (within `DEPENDENCE_OPERATIONS` isl operations per map, and `budget_s` in all: an output the
    alarm cuts short is "not exact" too)."""
    import signal

    import islpy as isl

    from lowercheck.dialects.kernel import EntryOp

    entry = next(op for op in module.ops if isinstance(op, EntryOp))
    buffers = [p for p in entry.params if p.kind.data == "buffer"]
    outputs = list(dict.fromkeys(p.pname for p in buffers if p.role.data in ("out", "inout") and rel.of(p.pname, "write")))
    inputs = list(dict.fromkeys(p.pname for p in buffers if p.role.data in ("in", "inout")))
    if not outputs or rel.unmodelled:
        return ""
    lines = ["// dependences: the input elements each output element's stored value is computed from (LC204)"]
    done: set[str] = set()
    context = isl.DEFAULT_CONTEXT
    context.set_max_operations(DEPENDENCE_OPERATIONS)
    try:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, budget_s)
        _dependence_lines(rel, outputs, inputs, lines, done, context)
    except _TooCostly:
        lines += [f"//   {out} on its inputs: {NOT_EXACT} (composing it took more than {budget_s:.0f} s): "
                  "`diff` may not compare it" for out in outputs if out not in done]
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
        context.set_max_operations(0)
        context.reset_operations()
    return "\n".join(lines) + "\n"


def _dependence_lines(rel, outputs: list[str], inputs: list[str], lines: list[str], done: set[str],
                      context) -> None:
    import islpy as isl

    from lowercheck.compare import explain
    from lowercheck.compare.combining import combined_by
    from lowercheck.compare.static import UNKNOWN, dependence

    for out in outputs:
        found = []
        for inp in inputs:
            context.reset_operations()
            try:
                dep = dependence(rel, out, inp)
            except isl.Error as err:
                if "maximal number of operations exceeded" not in str(err):
                    raise
                rel.memo.clear()  # what the budget cut short is not a result
                found.append(f"//   {out} on {inp}: {NOT_EXACT} (composing it takes more than "
                             f"{DEPENDENCE_OPERATIONS:,} isl operations): `diff` may not compare it")
                continue
            if dep is UNKNOWN:
                found.append(f"//   {out} on {inp}: {NOT_EXACT} ({rel.memo.get(('inexact', out, inp))}): "
                             "`diff` does not compare it")
            elif dep is not None:
                try:
                    found.append(f"//   {explain.dependence_sentence(dep, combined_by(rel, out))}")
                except isl.Error:
                    found.append(f"//   {out}[...] reads {inp} (isl's budget ran out putting it in words)")
        lines += found
        done.add(out)


def _relations_text(module: ModuleOp, sizes: dict[str, int] | None) -> str:
    from lowercheck import symbolic
    from lowercheck.compare import explain
    from lowercheck.compare.accesses import build
    from lowercheck.dialects.access import AccessOp, KernelOp
    from lowercheck.dialects.kernel import EntryOp

    texts = []
    for op in module.walk():
        if isinstance(op, AccessOp):
            texts += [a.data for a in op.indices.data] + [a.data for a in op.domain.data] + \
                [a.data for a in op.guard.data]
        elif isinstance(op, KernelOp):
            texts += list(op.grid_exprs)
        elif isinstance(op, EntryOp):
            texts += [d.data for p in op.params for d in p.shape.data]
    names = symbolic.params_of([symbolic.parse(t) for t in texts])
    entry = next(op for op in module.ops if isinstance(op, EntryOp))
    triton = entry.language.data != "cuda"
    try:
        rel = build(module, None, names)
        header = "// access relations, for all sizes"
    except symbolic.NonAffine as why:
        sizes = {name: (sizes or {}).get(name, 1000) for name in names}
        rel = build(module, sizes, names)
        header = (f"// access relations for {', '.join(f'{k}={v}' for k, v in sizes.items())} "
                  f"(not quasi-affine in the sizes: {why})")
    lines = [header] + explain.describe_all(rel, triton)
    lines += [f"// partly proved: {part}" for part in rel.partly_proved()]
    lines += [f"// not modelled: {u.buffer} ({u.location}): {u.reason}" for u in rel.unmodelled]
    return "\n".join(line if line.startswith("//") else f"//   {line}" for line in lines) + "\n", rel
