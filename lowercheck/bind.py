"""The bind stage of `diff`: what each side's entry receives and which parameter of one side
stands for which of the other. A rule of each, in the order `diff` applies them (docs/ARCHITECTURE.md
has the table):

- the spec names only parameters of the two entries, their returned outputs (by the variable in
  the `return` statement, or `return0`, `return1`, ...), and sizes the sides have
  (`check_spec_names`, `check_size_names`); a swept value fits its parameter's integer type (`check_size_values`);
- `[args.NAME] role` replaces the role read from the code, and says so (`spec_roles`);
- an untyped first side's arguments are assumed as `lower` assumes them (`assume_untyped`);
- extents the spec does not give are inferred from guarded accesses (`fill_extents`);
- the other side's parameters are matched with the typed side's, all of them (destination passing)
  or its inputs; sizes by name; defaulted parameters keep their defaults and spec values are passed
  as given (`bind_other`);
- the other side may take only the typed side's pure inputs and return every output, an
  accumulator (`inout`, a reduction into `out[0]` zeroed by its caller) included (`bind_other`);
- outputs correspond by destination passing, else returned tensors, else written inputs; a
  returned output whose variable has the name of an output of the other side is that one's
  counterpart, the others pair in order (`correspond`);
- an accumulator whose counterpart the other side returns starts at zero in the runs, as its
  caller zeroes it: the returned result is the sum from zero (`zeroed_accumulators`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr

from lowercheck import symbolic
from lowercheck.compare import infer
from lowercheck.dialects.kernel import ParamOp
from lowercheck.errors import UserError
from lowercheck.frontends.base import Binding, EntryCandidate, ScalarArg, SizeArg, TensorArg, TupleArg, returned_names
from lowercheck.lowering import assume_arguments, defaulted_parameters, fixed_argument, spec_binding
from lowercheck.spec import Spec

if TYPE_CHECKING:
    from lowercheck.diff import SideInfo


def check_spec_names(spec: Spec, candidates: dict[str, list[EntryCandidate]], entries: dict[str, str],
                     paths: dict[str, str]) -> None:
    """Every argument the spec describes is a parameter of one of the two entries, or an output one
    returns (its variable in the `return` statement, or `return0`, ...), which the spec may only
    call an output."""
    known = {p.name for side, found in candidates.items() for c in found if c.name == entries[side]
             for p in c.params}
    returned: set[str] = set()
    for side, path in paths.items():
        names = returned_names(path, entries[side])
        returned |= {n for n in names if n is not None} | {f"return{i}" for i in range(len(names))}
    returned -= known
    for name, given in spec.args.items():
        where = spec.where(f"args.{name}")
        if name in returned:
            if given.fixed or given.role not in (None, "out"):
                raise UserError(f"the spec gives `{name}`, an output an entry returns, a value or a role other "
                                "than out", where, hint="a returned output is computed by its entry: give its "
                                                        "shape and dtype, or nothing")
            continue
        if name not in known:
            raise UserError(f"the spec describes `{name}`, which is not a parameter of either entry",
                            where, hint=f"parameters: {', '.join(sorted(known))}"
                            + (f"; returned: {', '.join(sorted(returned))}" if returned else ""))


def check_size_names(spec: Spec, sides: dict[str, SideInfo]) -> None:
    """Every size the spec or `--size` sweeps is a size of one of the two sides (a parameter, or a
    name in a buffer's shape): a misspelt size would otherwise sweep nothing."""
    known: list[str] = []
    for side in sides.values():
        names = [p.pname for p in side.params() if p.role.data == "size"]
        names += [n for p in side.params() for d in p.shape.data for n in symbolic.params_of([symbolic.parse(d.data)])]
        known += [n for n in dict.fromkeys(names) if n not in known]
    for name in spec.sizes:
        if name not in known:
            raise UserError(f"the size `{name}` to sweep is not a size of either side ({spec.origin(name)})",
                            spec.where(f"sizes.{name}"),
                            hint=f"the sides' sizes: {', '.join(known) or 'none'} (--size NAME=V1,V2 or "
                                 "[sizes] in the spec)")


def check_size_values(spec: Spec, sides: dict[str, SideInfo]) -> None:
    """Each swept value of a size fits the integer type of every size parameter of that name
    (`int n` cannot be 2^63): a value the kernel could never be called with is bad input."""
    for side in sides.values():
        for p in side.params():
            width = getattr(p.element_type, "bitwidth", None)
            if p.role.data != "size" or p.pname not in spec.sizes or not width:
                continue
            limit = 2 ** (width - 1) - 1
            for value in spec.sizes[p.pname]:
                if value > limit:
                    raise UserError(f"the size {p.pname} = {value} ({spec.origin(p.pname)}) does not fit the "
                                    f"{width}-bit parameter `{p.pname}` of {side.path}:{side.entry} (at most {limit})",
                                    spec.where(f"sizes.{p.pname}"),
                                    hint="sweep sizes the kernel can be called with")


def spec_roles(module: ModuleOp, spec: Spec | None, said: list[str]) -> ModuleOp:
    """The spec's `[args.NAME] role` on each buffer parameter of that name: the user's word wins over
    what lowercheck read from the code, and a disagreement is said (`said`)."""
    if spec is None:
        return module
    for op in module.walk():
        if not isinstance(op, ParamOp) or op.kind.data != "buffer":
            continue
        given = spec.args.get(op.pname)
        if given is None or given.role is None or given.role == op.role.data:
            continue
        said.append(f"`{op.pname}` is {given.role} (inferred: {op.role.data})")
        op.properties["role"] = StringAttr(given.role)
    return module


def entry_binding(spec: Spec, candidate: EntryCandidate) -> Binding:
    """The spec's binding for one entry: its sizes, and the arguments the spec gives for the entry's
    own parameters (a spec written for a pair names the parameters of both sides; a value for the
    other side's `eps` is never passed to this one)."""
    binding = spec_binding(spec)
    own = {p.name for p in candidate.params}
    return Binding(args={name: arg for name, arg in binding.args.items() if name in own or isinstance(arg, SizeArg)},
                   sizes=binding.sizes, grid=binding.grid if candidate.kernel else None)


def assume_untyped(path: str, entry: str, candidates: list[EntryCandidate], binding: Binding,
                    notes: list[str]) -> None:
    """Neither side has a typed signature (Triton against Pallas, say): what the spec does not say
    about the first side's arguments is assumed from its wrapper (`rows, cols = x.shape`), and said."""
    cand = next(c for c in candidates if c.name == entry)
    assumed = assume_arguments(path, cand, binding)
    if assumed:
        notes.append(f"neither side has a typed signature: assumed {', '.join(assumed)} for {path}:{entry} "
                     "(give shapes and dtypes in a spec: [args.NAME] shape = [...], dtype = \"...\")")


def side_size_names(side: SideInfo) -> list[str]:
    """The entry's integer size parameters; for an entry that takes only tensors (a KernelBench host
    function), the names its tensor shapes are written in (`x_size0`, ...)."""
    names = [p.pname for p in side.params() if p.role.data == "size"]
    if names:
        return names
    found: list[str] = []
    for p in side.params():
        for dim in p.shape.data:
            for name in symbolic.params_of([symbolic.parse(dim.data)]):
                if name not in found:
                    found.append(name)
    return found


_DTYPE_OF_TYPE = {"f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2", "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64", "i1": "bool",
                  "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64"}


def dtype_name(param: ParamOp) -> str:
    return _DTYPE_OF_TYPE.get(str(param.element_type), str(param.element_type))


def set_shape(module: ModuleOp | None, name: str, shape: Sequence[str]) -> None:
    if module is None:
        return
    for op in module.walk():
        if isinstance(op, ParamOp) and op.pname == name:
            op.properties["shape"] = ArrayAttr([StringAttr(s) for s in shape])


def fill_extents(side: SideInfo, size_names: list[str], sweep, notes: list[str]) -> None:
    if not side.entry_op.scheduled:  # a program's shapes are its own: [] is a 0-d tensor (a loss), none missing
        return
    missing = [p.pname for p in side.params() if p.kind.data == "buffer" and not p.shape.data]
    if not missing:
        return
    found = infer.infer_extents(side.accesses, missing, size_names, sweep)
    for name in missing:
        if name not in found:
            from lowercheck.compare.accesses import location_of

            param = next((p for p in side.params() if p.pname == name), None)
            raise UserError(f"cannot infer the extent of `{name}` in {side.path}: no access of it is guarded "
                            "by a size", location_of(param) if param is not None else None,
                            hint=f"give it in a spec: [args.{name}] shape = [...], dtype = \"float32\"")
        _check_inferred_extents(side, name, found[name], sweep)
        set_shape(side.module, name, found[name])
        set_shape(side.accesses, name, found[name])
        side.inferred[name] = found[name]
    notes.append(f"inferred from {side.path}'s accesses: "
                 + ", ".join(f"{n}[{', '.join(found[n])}]" for n in missing))


def _check_inferred_extents(side: SideInfo, name: str, extents: list[str], sweep) -> None:
    """An extent inferred from the guards is no extent where it is negative at a swept size (a
    launch grid the side divides by a negative constant): the user gives the shape instead."""
    for sizes in sweep or []:
        for text in extents:
            value = symbolic.substitute(symbolic.parse(text), sizes)
            if value.is_number and value < 0:
                from lowercheck.compare.accesses import location_of

                param = next((p for p in side.params() if p.pname == name), None)
                at = ", ".join(f"{k}={v}" for k, v in sizes.items())
                raise UserError(f"the extent of `{name}` inferred from {side.path}'s accesses, {text}, is negative at "
                                f"{at}", location_of(param) if param is not None else None,
                                hint=f"give it in a spec: [args.{name}] shape = [...], dtype = \"float32\"")


def bind_other(typed: SideInfo, candidates: list[EntryCandidate], entry: str, spec: Spec,
                size_names: list[str], path: str) -> tuple[Binding, dict[str, str]]:
    """What the other side's entry parameters receive, and which typed parameter each stands for."""
    cand = next(c for c in candidates if c.name == entry)
    fixed = {name for name, a in spec.args.items() if a.fixed}
    # A value the spec gives either side is that side's own (`epsilon` here, `eps` there): no partner.
    typed_params = [p for p in typed.params() if p.role.data != "size" and p.pname not in fixed]
    inputs = [p for p in typed_params if p.role.data in ("in", "inout", "scalar")]
    pure_inputs = [p for p in typed_params if p.role.data in ("in", "scalar")]
    # A parameter with a default keeps it (`eps=1e-6`, `BLOCK=1024`), unless the spec names it.
    defaulted = defaulted_parameters(path, entry) if path.endswith(".py") else set()
    # A tuple the spec gives (`[args.res] items = [...]`) stands for its arrays, `res_0`, `res_1`, ...
    tuples = {name: a for name, a in spec_binding(spec).args.items() if isinstance(a, TupleArg)}
    names = []
    for p in cand.params:
        if p.name in tuples:
            names += [n for n in tuples[p.name].item_names(p.name) if n is not None]
        elif p.name not in size_names and p.name not in fixed and (p.name not in defaulted or p.name in spec.args):
            names.append(p.name)
    if len(names) == len(typed_params):
        partners = typed_params  # destination-passing on both sides
    elif len(names) == len(inputs):
        partners = inputs
    elif len(names) == len(pure_inputs):
        partners = pure_inputs  # it returns the accumulators' results too (`return x.sum()` for `out[0] +=`)
    else:
        raise UserError(
            f"cannot match the parameters of `{entry}` ({', '.join(names) or 'none'}) with those of "
            f"`{typed.entry}` ({', '.join(p.pname for p in typed_params)})", cand.location,
            hint="give each argument's shape and dtype in a spec ([args.NAME])")
    args: dict[str, Any] = {}
    match: dict[str, str] = {}
    for p in cand.params:
        if p.name in size_names:
            args[p.name] = SizeArg(p.name)
        elif p.name in fixed:
            args[p.name] = fixed_argument(spec.args[p.name])
        elif p.name in tuples:
            args[p.name] = tuples[p.name]
    items = {n for name, a in tuples.items() for n in a.item_names(name) if n is not None}
    for name, partner in zip(names, partners, strict=True):
        match[name] = partner.pname
        if name in items:
            continue
        given = spec.args.get(name)
        if partner.kind.data == "buffer":
            shape = tuple(given.shape) if given and given.shape else tuple(s.data for s in partner.shape.data)
            dtype = given.dtype if given and given.dtype else dtype_name(partner)
            args[name] = TensorArg(shape, dtype)
        else:
            args[name] = ScalarArg(dtype_name(partner), 1.5 if dtype_name(partner).startswith("float") else 3)
    return Binding(args=args, sizes=None, grid=spec.grid if cand.kernel else None), match


def correspond(typed: SideInfo, other: SideInfo, match: dict[str, str]) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Other-side name -> typed-side name for every matched parameter, and the (typed, other) output pairs.

    The other side's parameters play the role of their typed partner: an input stays an input even
    when the port writes it (that is LC211, not a new output). Its outputs are the parameters matched
    with typed outputs (destination passing), else the tensors it returns, else the inputs it writes."""
    correspondence = dict(match)
    typed_roles = {p.pname: p.role.data for p in typed.params()}
    written = {name for name, role in other.roles.items() if role in ("out", "inout")}
    for other_name, typed_name in match.items():
        if other_name in other.roles:  # an input the other side leaves alone stays one
            keep = typed_roles[typed_name] == "inout" and other_name not in written and other.returns()
            other.roles[other_name] = "in" if keep else typed_roles[typed_name]
    typed_outputs = [p.pname for p in typed.params() if p.role.data in ("out", "inout")]
    # A partner of a typed output is the other side's output; of an output written in place (inout),
    # only where the other side writes it too: a port that returns its result leaves its input alone.
    other_outputs = ([o for o, t in match.items()
                      if typed_roles[t] == "out" or (typed_roles[t] == "inout" and (o in written or not other.returns()))]
                     or [p.pname for p in other.params() if p.pname.startswith("return")]
                     or [p.pname for p in other.params() if p.role.data in ("out", "inout")])
    pairs = _pair_outputs(typed, other, typed_outputs, other_outputs)
    for typed_name, other_name in pairs:
        if other_name not in correspondence:
            correspondence[other_name] = typed_name
            other.roles[other_name] = "out"
    return correspondence, pairs


def _pair_outputs(typed: SideInfo, other: SideInfo, typed_outputs: list[str], other_outputs: list[str]
                  ) -> list[tuple[str, str]]:
    """(typed, other) output pairs: an output whose name (a returned one's variable) is the name of
    an output on the other side pairs with it; the others pair in order."""
    def named(side: SideInfo, names: list[str]) -> dict[str, str]:
        params = {p.pname: p for p in side.params()}
        found: dict[str, str] = {}
        for name in names:
            variable = params[name].variable if name in params else None
            found[variable.data if variable is not None else name] = name
        return found

    typed_named, other_named = named(typed, typed_outputs), named(other, other_outputs)
    by_name = {typed_named[k]: other_named[k] for k in typed_named if k in other_named}
    rest = iter([o for o in other_outputs if o not in by_name.values()])
    pairs = []
    for t in typed_outputs:
        o = by_name.get(t) or next(rest, None)
        if o is not None:
            pairs.append((t, o))
    return pairs


def zeroed_accumulators(source: SideInfo, target: SideInfo, correspondence: dict[str, str],
                        is_argument) -> dict[str, str]:
    """The source buffers whose run values start at zero, each with its counterpart: an accumulator
    (`inout`, passed in) of one side whose counterpart the other side returns (not passed in). A
    caller zeroes an accumulator before the launch; the returned result is the sum from zero, and
    poison or random values there would be a false difference."""
    src_params = {p.pname: p for p in source.params()}
    tgt_params = {p.pname: p for p in target.params()}
    zeroed: dict[str, str] = {}
    for t_name, s_name in correspondence.items():
        s_param, t_param = src_params.get(s_name), tgt_params.get(t_name)
        if s_param is None or t_param is None or s_param.kind.data != "buffer":
            continue
        s_passed, t_passed = is_argument(source, s_param), is_argument(target, t_param)
        if (s_param.role.data == "inout" and s_passed and not t_passed) or \
                (t_param.role.data == "inout" and t_passed and not s_passed):
            zeroed[s_name] = t_name
    return zeroed
