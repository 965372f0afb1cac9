"""The plan stage: the sizes each pair is judged at.

A side that can only be captured at concrete sizes (a Pallas entry, a Triton wrapper that
branches on its sizes) is captured again at each swept size. Where its own code raises at some
of them (a slice `y_ref[1:]` of a one-row array, an `assert n % 128 == 0`) but not at others,
that is the kernel's fault at those sizes, which the spec says it must handle: an LC902 error
naming the size and the user's line, and the sizes are left out of the static checks and the
runs of both sides (the other side has nothing to be compared with there). Where it raises at
every size, the entry cannot be judged at all: the first error stops lowercheck (bad input).

Without a spec, the sweep is made to break tiling (`infer.default_sweep`: 1, each tile width and
its neighbours, primes), plus a side's own example sizes, plus, for a launch grid capped by a
constant (a persistent kernel's `min(n_rows, NUM_SMS)`), a size past twice the cap: there every
program of the capped axis takes a second turn of its loop, which no size below the cap tests (a
wrong row step passes there). With a spec, its sweep is the domain: a cap no swept size passes is
said in a note, never run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import sympy
from xdsl.dialects.builtin import ModuleOp

from lowercheck import symbolic
from lowercheck.dialects.kernel import EntryOp
from lowercheck.errors import UserCodeRaised
from lowercheck.findings import Finding

if TYPE_CHECKING:
    from lowercheck.diff import SideInfo


def capturable_sizes(sides: Mapping[str, SideInfo], sweep: Sequence[Mapping[str, int]]
                     ) -> tuple[list[dict[str, int]], list[Finding]]:
    """The sizes of `sweep` at which every side captures, and an LC902 for each side and size at
    which its code raised instead."""
    kept: list[dict[str, int]] = []
    found: list[Finding] = []
    first: UserCodeRaised | None = None
    for sizes in sweep:
        raised = False
        for name, side in sides.items():
            if not side.per_size:
                continue
            try:
                side.at(sizes)
            except UserCodeRaised as err:
                first = first or err
                raised = True
                shown = sizes_text(sizes)
                found.append(Finding(
                    "LC902", f"the {name} raises for {shown} while lowercheck captures it: {err.message}",
                    side=name, location=err.location,
                    witness={"sizes": dict(sizes), "error": err.message, "error_kind": "capture"},
                    hint=f"the spec's sweep includes {shown}: make the {name} handle it, or leave the size "
                         "out of the spec if the task excludes it"))
        if not raised:
            kept.append(dict(sizes))
    if not kept and first is not None:
        raise first
    return kept, found


# The largest size a capped grid makes the sweep run at (the runs here are emulated); a cap that
# needs more (a grid of at most 65535 tiles) is left to the static checks.
_CAP_SIZE_LIMIT = 1 << 18


@dataclass(frozen=True)
class GridCap:
    """A launch grid axis `Min(cap, expr)`: past `size = past`, every program takes two turns."""

    kernel: str
    axis_text: str  # the grid expression, as the IR prints it
    cap: int
    size: str
    past: int  # the least value of `size` at which `expr` >= 2 * cap + 1 (other sizes at 1)


def grid_caps(modules: Iterable[ModuleOp], size_names: Sequence[str]) -> list[GridCap]:
    """The launch grid axes capped by a constant, per size their uncapped extent grows with."""
    found: list[GridCap] = []
    for module in modules:
        for op in module.walk():
            if not isinstance(op, EntryOp):
                continue
            for launch in op.launches:
                for text in launch.grid_exprs:
                    for cap in _caps_of(launch.callee.root_reference.data, text, size_names):
                        if cap not in found:
                            found.append(cap)
    return found


def _caps_of(kernel: str, text: str, size_names: Sequence[str]) -> list[GridCap]:
    try:
        expr = symbolic.parse(text)
    except (SyntaxError, TypeError, ValueError):
        return []
    caps: list[GridCap] = []
    for node in expr.atoms(sympy.Min):
        constants = [a for a in node.args if a.is_Integer and int(a) > 0]
        others = [a for a in node.args if not a.is_number]
        if len(constants) != 1 or len(others) != 1:
            continue
        cap, grows = int(constants[0]), others[0]
        names = [n for n in symbolic.params_of([grows]) if n in size_names]
        for name in names:
            past = _least_past(grows, name, names, 2 * cap + 1)
            if past is not None:
                caps.append(GridCap(kernel, text, cap, name, past))
    return caps


def _least_past(expr: sympy.Basic, name: str, names: Sequence[str], bound: int) -> int | None:
    """The least value of `name` (the other sizes at 1) at which `expr` reaches `bound`, up to
    _CAP_SIZE_LIMIT; None when it does not get there (or does not grow with it)."""
    def at(value: int) -> int | None:
        got = symbolic.substitute(expr, {n: (value if n == name else 1) for n in names})
        return int(got) if got.is_Integer else None

    high = 1
    while (reached := at(high)) is not None and reached < bound:
        if high >= _CAP_SIZE_LIMIT:
            return None
        high = min(2 * high, _CAP_SIZE_LIMIT)
    if reached is None:
        return None
    low = high // 2  # at(low) < bound, or low = 0
    while high - low > 1:
        middle = (low + high) // 2
        value = at(middle)
        if value is None:
            return None
        low, high = (middle, high) if value < bound else (low, middle)
    return high


def past_the_caps(sweep: list[dict[str, int]], caps: Sequence[GridCap], size_names: Sequence[str],
                  notes: list[str]) -> list[dict[str, int]]:
    """The default sweep plus, for each capped grid no swept size passes, a size past it (the
    other sizes at the sweep's smallest prime), said in a note."""
    from lowercheck.compare.infer import PRIMES

    added = list(sweep)
    for cap in caps:
        if any(b.get(cap.size, 0) >= cap.past for b in added):
            continue
        sizes = {n: (cap.past if n == cap.size else PRIMES[0]) for n in size_names}
        added.append(sizes)
        notes.append(f"also {sizes_text(sizes)}: the grid of @{cap.kernel} is capped ({cap.axis_text}), and from "
                     f"{cap.size}={cap.past} every program takes a second turn of its loop")
    return added


def caps_the_spec_misses(sweep: Sequence[Mapping[str, int]], caps: Sequence[GridCap], notes: list[str]) -> None:
    """A spec's sweep is the domain: a capped grid none of its sizes passes is only said."""
    for cap in caps:
        if not any(b.get(cap.size, 0) >= cap.past for b in sweep):
            notes.append(f"not checked: at the spec's sizes no program of @{cap.kernel} takes a second turn "
                         f"(its grid is capped: {cap.axis_text}); {cap.size} >= {cap.past} would check that")


def sizes_text(sizes: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sizes.items())


# A task's own sizes are run scaled down to the least value with the same remainder modulo
# CONGRUENCE (a power of two no tile of a kernel exceeds, in practice), from CONGRUENCE up: every
# tile, warp and vector width up to it splits the scaled size as it splits the task's, so a kernel
# right at the task's sizes is right there, and a tail it mishandles has the same length.
CONGRUENCE = 1024
# What a run at the task's (scaled) sizes may cost lowercheck's CPU engines: its largest buffer's
# elements, and the reference's FLOPs (Triton's interpreter does about 20-60 MFLOP/s).
TASK_ELEMENTS = 1 << 22
TASK_FLOPS = 2e8


def task_sizes(example: Mapping[str, int], cost: Callable[[Mapping[str, int]], tuple[int, float]]
               ) -> tuple[dict[str, int], int]:
    """The task's sizes (`example`, its `get_inputs()`), each above the modulus scaled down to the
    least congruent value at least the modulus; the modulus halves (down to 32) while a run there
    costs more than TASK_ELEMENTS or TASK_FLOPS (`cost`: its largest buffer, its FLOPs). Returns the
    sizes and the modulus."""
    modulus = CONGRUENCE
    while True:
        scaled = {name: value if value <= modulus else modulus + value % modulus for name, value in example.items()}
        elements, flops = cost(scaled)
        if (elements <= TASK_ELEMENTS and flops <= TASK_FLOPS) or modulus <= 32:
            return scaled, modulus
        modulus //= 2


def solution_sweep(example: Mapping[str, int], size_names: Sequence[str], others: Sequence[Mapping[str, int]],
                   cost: Callable[[Mapping[str, int]], tuple[int, float]], notes: list[str]
                   ) -> tuple[list[dict[str, int]], list[dict[str, int]]]:
    """The sweep of a solution module against its problem, and its domain: the problem's own sizes
    (scaled: `task_sizes`) are where a verdict is decided (KernelBench judges a solution there); two
    neighbours of them tell whether the solution holds beyond them, which the report says without
    changing the verdict (`judge.outside_the_task`): the first size 1 (a batch of one), and every
    size one more (no power of two splits it as it splits the task's). Without example sizes,
    `others` (sizes that break tiling) are the sweep."""
    if not example or set(example) != set(size_names):
        return [dict(s) for s in others], []
    task, modulus = task_sizes(example, cost)
    first = next(iter(task))
    neighbours = [{**task, first: 1}, {name: value + 1 for name, value in task.items()}]
    extra = sorted((s for s in neighbours if s != task), key=cost)
    shown = sizes_text(task) if task == dict(example) else (
        f"{sizes_text(task)} (the task's {sizes_text(example)}, each size scaled to the least value with the same "
        f"remainder modulo {modulus}: every tile of up to {modulus} splits it as it splits the task's)")
    notes.append(f"the solution is judged at the task's sizes, {shown}; also run at {', '.join(map(sizes_text, extra))}"
                 ", where a difference is a warning (the task does not use these sizes)" if extra else
                 f"the solution is judged at the task's sizes, {shown}")
    return [task, *extra], [task]
