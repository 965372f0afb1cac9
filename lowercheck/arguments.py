"""The arguments of both sides for one run (a stage of `diff`, shared by the differential runs,
the observed dependences and the native benchmark): the same input values on both sides, outputs
poisoned, index inputs inside what they index, and the `RunRequest` each side's runner receives."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from lowercheck import ir, symbolic
from lowercheck.bind import dtype_name, zeroed_accumulators
from lowercheck.compare import inputs
from lowercheck.dialects.kernel import ParamOp
from lowercheck.errors import UserError
from lowercheck.runners import poison
from lowercheck.runners.base import RunRequest

if TYPE_CHECKING:
    from lowercheck.diff import SideInfo

TYPICAL_DRAWS = ("normal", "uniform", "rand01")  # the input kinds an inferred index range applies to


def plan_arguments(sides: dict[str, SideInfo], correspondence: dict[str, str], sizes: Mapping[str, int],
          seed: int, kind: str = "normal") -> dict[str, Any]:
    """Arguments of both sides for one size binding: the same input values on both sides, outputs
    poisoned, and a copy of every input to check it is unchanged after the run."""
    source, target = sides["source"].at(sizes), sides["target"].at(sizes)
    reverse: dict[str, list[str]] = {}
    for t, s in correspondence.items():
        reverse.setdefault(s, []).append(t)
    tgt_params = {p.pname: p for p in target.params()}
    rng = np.random.default_rng(seed)
    zeroed = zeroed_accumulators(source, target, correspondence, is_argument)
    args: dict[str, dict[str, Any]] = {"source": {}, "target": {}}
    originals: dict[str, tuple[str, np.ndarray]] = {}

    def give(side: SideInfo, name: str, value: Any) -> None:
        if isinstance(value, np.ndarray) and side.language == "cuda":
            value = value.ravel()  # the emulator sees flat buffers, as C pointers are
        args[side.name][name] = value.copy() if isinstance(value, np.ndarray) else value

    for param in source.params():
        name = param.pname
        if param.role.data == "size":
            args["source"][name] = int(sizes.get(name, 0))
            continue
        if param.kind.data == "scalar":
            value: Any = float(np.float32(rng.uniform(0.5, 2.0))) if dtype_name(param).startswith("float") else 3
        else:
            value = _fresh(param, concrete_shape(param, sizes), kind, seed)
            def bounds_in(field: str):  # the source's by its name, else the target's by a partner's
                found = getattr(source, field).get(name)
                return found or next((getattr(target, field)[p] for p in reverse.get(name, ())
                                      if p in getattr(target, field)), None)

            bounds = bounds_in("ranges") or (bounds_in("index_ranges") if kind in TYPICAL_DRAWS else None)
            if bounds is not None:
                value = _within(value, bounds, sizes)
            if name in zeroed:
                value[...] = 0
            elif param.role.data == "out":
                poison.fill(value)
            if param.role.data == "in":  # an inout buffer is meant to change
                originals[name] = ("source", value.copy())
        if is_argument(source, param):
            give(source, name, value)
        for partner in reverse.get(name, ()):  # an input written in place has two: the input, the result
            if partner in tgt_params and is_argument(target, tgt_params[partner]):
                give(target, partner, value)
                if isinstance(value, np.ndarray) and target.roles.get(partner) == "in":
                    originals[partner] = ("target", value.copy())
    for name, param in tgt_params.items():
        if param.role.data == "size" and name in sizes:
            args["target"][name] = int(sizes[name])
    return {**args, "originals": originals}


_RETURNED = re.compile(r"^(return|temp)\d+$")


def is_argument(side: SideInfo, param: ParamOp) -> bool:
    """Whether the caller passes this parameter (a Python entry's returned tensors and temporaries,
    `return0`, `temp0`, ..., are allocated inside it)."""
    return side.language == "cuda" or not _RETURNED.match(param.pname)


def run_request(side: SideInfo, args: dict[str, Any], options: Any, sizes: Mapping[str, int]) -> RunRequest:
    env = {"TRITON_INTERPRET": "1"} if side.language == "triton" else {}
    params = [p.pname for p in side.params() if is_argument(side, p)]  # the call order
    args = {**args, **side.fixed}  # passed by name (the runners of Python entries call by keyword)
    # Absolute: the run's child starts in another directory (its fork server's), where a relative
    # path would name another file, or none.
    return RunRequest(language=side.language, path=os.path.abspath(side.path), entry=side.entry,
                      ir=ir.print_ir(side.module) if side.language == "cuda" else None,
                      args=args, seed=options.seed, options={"env": env, "sizes": dict(sizes), "params": params,
                               "fixed": list(side.fixed), "tuples": side.tuples,
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


def _within(value: np.ndarray, bounds: tuple[str | int, str | int], sizes: Mapping[str, int]) -> np.ndarray:
    """An integer input's values folded into the spec's `range = [lo, hi]` (lo <= v < hi), the
    draw's pattern kept (an index table of a lookup: every id a valid row)."""
    lo, hi = (int(symbolic.substitute(symbolic.parse(str(b)), sizes)) for b in bounds)
    if hi <= lo:
        return np.full_like(value, lo)
    return (np.mod(value.astype(np.int64) - lo, hi - lo) + lo).astype(value.dtype)


def _fresh(param: ParamOp, shape: tuple[int, ...], kind: str, seed: int) -> np.ndarray:
    """A buffer's values for one run: `kind` (`lowercheck.compare.inputs`), drawn from the run's
    seed and the parameter's name, so `--seed` reproduces every input."""
    return inputs.generate(kind, shape, dtype_name(param), seed, key=param.pname)
