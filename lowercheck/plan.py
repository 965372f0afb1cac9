"""The plan stage: the sizes each pair is judged at.

A side that can only be captured at concrete sizes (a Pallas entry, a Triton wrapper that
branches on its sizes) is captured again at each swept size. Where its own code raises at some
of them (a slice `y_ref[1:]` of a one-row array, an `assert n % 128 == 0`) but not at others,
that is the kernel's fault at those sizes, which the spec says it must handle: an LC902 error
naming the size and the user's line, and the sizes are left out of the static checks and the
runs of both sides (the other side has nothing to be compared with there). Where it raises at
every size, the entry cannot be judged at all: the first error stops lowercheck (bad input).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

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
                shown = ", ".join(f"{k}={v}" for k, v in sizes.items())
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
