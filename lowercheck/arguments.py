"""The arguments of both sides for one run (a stage of `diff`, shared by the differential runs,
the observed dependences and the native benchmark): the same input values on both sides, outputs
poisoned, index inputs inside what they index, and the `RunRequest` each side's runner receives.
Buffers are recipes (`runners.draws.Draw`) that the sandboxed child makes."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from lowercheck import symbolic
from lowercheck.bind import dtype_name, zeroed_accumulators
from lowercheck.dialects.kernel import ParamOp
from lowercheck.errors import UserError
from lowercheck.frontends import module
from lowercheck.runners.base import RunRequest
from lowercheck.runners.draws import Draw

if TYPE_CHECKING:
    from lowercheck.diff import SideInfo

TYPICAL_DRAWS = ("normal", "uniform", "rand01")  # the input kinds an inferred index range applies to


def plan_arguments(sides: dict[str, SideInfo], correspondence: dict[str, str], sizes: Mapping[str, int],
                   seed: int, kind: str = "normal") -> dict[str, dict[str, Any]]:
    """Arguments of both sides for one size binding: sizes and scalars as values, every buffer as a
    `Draw` the run's child makes (the same values on both sides, outputs poisoned, each side's
    inputs checked unchanged after its run). No buffer is made here, in lowercheck's own process."""
    source, target = sides["source"].at(sizes), sides["target"].at(sizes)
    reverse: dict[str, list[str]] = {}
    for t, s in correspondence.items():
        reverse.setdefault(s, []).append(t)
    tgt_params = {p.pname: p for p in target.params()}
    rng = np.random.default_rng(seed)
    zeroed = zeroed_accumulators(source, target, correspondence, is_argument)
    args: dict[str, dict[str, Any]] = {"source": {}, "target": {}}

    def give(side: SideInfo, name: str, value: Any, role: str | None) -> None:
        if isinstance(value, Draw):
            value = replace(value, flat=side.language == "cuda", check=role == "in")  # an inout is meant to change
        args[side.name][name] = value

    for param in source.params():
        name = param.pname
        if param.role.data == "size":
            args["source"][name] = int(sizes.get(name, 0))
            continue
        if param.kind.data == "scalar":
            value: Any = float(np.float32(rng.uniform(0.5, 2.0))) if dtype_name(param).startswith("float") else 3
        else:
            def bounds_in(field: str):  # the source's by its name, else the target's by a partner's
                found = getattr(source, field).get(name)
                return found or next((getattr(target, field)[p] for p in reverse.get(name, ())
                                      if p in getattr(target, field)), None)

            bounds = bounds_in("ranges") or (bounds_in("index_ranges") if kind in TYPICAL_DRAWS else None)
            fill = "zero" if name in zeroed else "poison" if param.role.data == "out" else None
            value = Draw(concrete_shape(param, sizes), dtype_name(param), kind, seed, key=name,
                         bounds=_resolved(bounds, sizes) if bounds is not None else None, fill=fill)
        if is_argument(source, param):
            give(source, name, value, param.role.data)
        for partner in reverse.get(name, ()):  # an input written in place has two: the input, the result
            if partner in tgt_params and is_argument(target, tgt_params[partner]):
                give(target, partner, value, target.roles.get(partner))
    for name, param in tgt_params.items():
        if param.role.data == "size" and name in sizes:
            args["target"][name] = int(sizes[name])
    return args


_RETURNED = re.compile(r"^(return|temp)\d+$")


def is_argument(side: SideInfo, param: ParamOp) -> bool:
    """Whether the caller passes this parameter (a Python entry's returned tensors and temporaries,
    `return0`, `temp0`, ..., are allocated inside it)."""
    return side.language == "cuda" or not _RETURNED.match(param.pname)


def run_request(side: SideInfo, args: dict[str, Any], options: Any, sizes: Mapping[str, int]) -> RunRequest:
    engines = module.engines(side.path) if side.language == module.LANGUAGE else []
    env = {"TRITON_INTERPRET": "1"} if side.language == "triton" or "triton" in engines else {}
    params = [p.pname for p in side.params() if is_argument(side, p)]  # the call order
    args = {**args, **side.fixed}  # passed by name (the runners of Python entries call by keyword)
    # Absolute: the run's child starts in another directory (its fork server's), where a relative
    # path would name another file, or none.
    return RunRequest(language=side.language, path=os.path.abspath(side.path), entry=side.entry,
                      ir=side.ir_text() if side.language == "cuda" else None,
                      args=args, seed=options.seed, options={"env": env, "sizes": dict(sizes), "params": params,
                               "fixed": list(side.fixed), "tuples": side.tuples,
                               **({"problem": side.problem, "engines": engines, "task_sizes": side.task_sizes}
                                  if side.problem else {}),
                               **({"grid": grid_at(side.grid, sizes)} if side.grid is not None else {})})


def grid_at(grid: tuple[str, ...], sizes: Mapping[str, int]) -> list[int]:
    """A kernel entry's grid at one run's sizes."""
    values = {symbolic.var(name): value for name, value in sizes.items()}
    return [int(symbolic.parse(g).subs(values)) for g in grid]


def concrete_shape(param: ParamOp, sizes: Mapping[str, int]) -> tuple[int, ...]:
    shape = []
    for dim in param.shape.data:
        value = symbolic.substitute(symbolic.parse(dim.data), sizes)
        if not value.is_Integer:
            from lowercheck.compare.accesses import location_of

            raise UserError(f"the extent `{dim.data}` of `{param.pname}` needs sizes not in the sweep",
                            location_of(param), hint="give every size in [sizes]")
        shape.append(int(value))
    return tuple(shape)


def _resolved(bounds: tuple[str | int, str | int], sizes: Mapping[str, int]) -> tuple[int, int]:
    """The spec's `range = [lo, hi]` of an integer input at a run's sizes (lo <= v < hi)."""
    lo, hi = (int(symbolic.substitute(symbolic.parse(str(b)), sizes)) for b in bounds)
    return lo, hi
