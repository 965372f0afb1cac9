"""Lowering one file: pick the front end and the entry, lower, and run `extract-accesses`.

Shared by `lowercheck lower` and `lowercheck diff`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp

from lowercheck import ir
from lowercheck.errors import UserError
from lowercheck.frontends import frontend_for, language_of, split_entry
from lowercheck.frontends.base import Binding, EntryCandidate, SizeArg, TensorArg
from lowercheck.passes.extract_accesses import ExtractAccessesPass
from lowercheck.spec import Spec

# Integer parameters with these names are sizes when nothing else says so.
SIZE_NAME = re.compile(r"^(n|m|k|N|M|K|B|H|W|C|D|L|T|size|numel|length|n_\w+|num_\w+|\w+_size|\w+_len)$")


def resolve_entry(path: str, entry: str | None, candidates: list[EntryCandidate],
                  other_entry: str | None = None, other_candidates: Sequence[EntryCandidate] = ()) -> str:
    """ENTRY as given; else the one named like the other side's entry; else the only candidate."""
    names = [c.name for c in candidates]
    if entry is not None:
        if entry not in names:
            raise UserError(f"no entry `{entry}` in {path}", hint=f"entries found: {', '.join(names) or 'none'}")
        return entry
    if len(names) == 1:
        return names[0]
    if not names:
        raise UserError(f"no entry point found in {path}",
                        hint="a CUDA file needs a host function that launches a kernel with <<<...>>>; "
                             "a Triton file a Python function that launches a @triton.jit kernel")
    partner = other_entry or (other_candidates[0].name if len(other_candidates) == 1 else None)
    if partner in names:
        return partner
    raise UserError(f"{path} has several entry points: {', '.join(names)}",
                    candidates[0].location, hint=f"name one: {path}:{names[0]}")


def spec_binding(spec: Spec) -> Binding:
    """The binding a spec alone gives: shapes and dtypes of the arguments it describes."""
    args = {}
    for name, arg in spec.args.items():
        if arg.shape is not None and arg.dtype is not None:
            args[name] = TensorArg(tuple(arg.shape), arg.dtype)
    for name in spec.sizes:
        args.setdefault(name, SizeArg(name))
    return Binding(args=args, sizes=None)


def extract_accesses(module: ModuleOp) -> ModuleOp:
    """The access IR of a lowered module (the module itself is left unchanged)."""
    clone = module.clone()
    ExtractAccessesPass().apply(ir.context(), clone)
    return clone


def lower_file(file_arg: str, spec: Spec, emit: str = "ir") -> ModuleOp:
    """`lowercheck lower`: one file on its own. Untyped (Python) parameters without a spec are
    assumed to be float32 vectors of a size `n`; the assumption is printed on stderr."""
    path, entry = split_entry(file_arg)
    language = language_of(path)
    frontend = frontend_for(path)
    candidates = frontend.entries(path)
    entry = resolve_entry(path, entry, candidates)
    binding = spec_binding(spec)
    if language != "cuda":
        cand = next(c for c in candidates if c.name == entry)
        assumed = []
        for p in cand.params:
            if p.name in binding.args:
                continue
            if SIZE_NAME.match(p.name):
                binding.args[p.name] = SizeArg(p.name)
            else:
                binding.args[p.name] = TensorArg(("n",), p.dtype or "float32")
                assumed.append(p.name)
        if assumed:
            print(f"note: assumed {', '.join(assumed)}: float32[n] (give shapes and dtypes in --spec)",
                  file=sys.stderr)
    module = frontend.lower(path, entry, binding)
    return extract_accesses(module) if emit == "access" else module
