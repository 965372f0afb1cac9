"""A diff's state as its stages pass it on: `run(case) -> case`, one stage after another, as
Triton's compiler runs its stages over one module ([w3 4/7]).

Today the integrity stage (`integrity.run`) takes and returns a `Case`; the diff's other stages
(bind, plan, static, differential, observe, judge) move onto it with the pipeline refactor, and
`diff.py` becomes the loop over them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lowercheck.diff import DiffOptions, Report, SideInfo


@dataclass
class Case:
    options: DiffOptions
    report: Report  # what the stages found so far: findings and notes are appended to it
    sides: dict[str, SideInfo]  # "source" and "target", lowered
    correspondence: dict[str, str]  # source parameter -> target parameter
    sweep: list[dict[str, int]] = field(default_factory=list)  # the sizes run (a solution's task first)
