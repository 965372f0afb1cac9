"""The grammar of a write's `sources` (see `access`): which read instances its value comes from.

A source is a read id, then steps in order, each saying how the work item that reads relates to
the one that writes (steps nearest the read first):

    r3                  the same work item's read r3 (read variables the write lacks range freely:
                        a loop accumulator reads for every trip)
    r3/LANE7            reduced over LANE7: the read for every value of it (`tl.sum`)
    r3@LANE3=LANE9      the read's lane LANE3 is the write's LANE9 (`tl.trans`, a reshape)
    r3~LANE0x16w32      moved between the threads of a warp: the value at lane l is the read's at
                        lane l XOR 16 (`__shfl_xor_sync(mask, v, 16)`, in groups of 32 lanes)
    r3~LANE0X31w32      the reads at lanes l XOR m for every m whose bits are in 31: the value a
                        butterfly over the whole warp combines (`v += __shfl_xor_sync(.., v, o)`
                        for o = 16, 8, 4, 2, 1)
    r3~LANE0d8w32       the read at lane l + 8 where that is in l's group, else at l itself
                        (`__shfl_down_sync`); `D31` all l + d for d with bits in 31 that stay in
                        the group (a shuffle-down chain: lane 0 of the group combines them all)
    r3~LANE0u1w32       `__shfl_up_sync`: lane l - 1 where that is in the group, else l; `U31` every
                        l - d (a shuffle-up scan: lane l combines lanes 0..l of its group)
    r3~LANE0i0w32       lane 0 of l's group (`__shfl_sync(mask, v, 0)`, a broadcast)
    r3^LANE7            the reads at every LANE7 up to the write's own, inclusive: a prefix
                        (`tl.cumsum(x, axis)`: out[i] combines x[0..i])
    r3<SEQ2             the read at every earlier trip of the loop of SEQ2: a value a loop carries,
                        used inside the loop (`out[k] = carry + x[k]; carry += s[127]`: trip k's
                        carry holds the reads of trips 0..k-1)

A combination such as `v + shfl(v, o)` unions the sources of both operands; `merged` folds each
pair {s, s~LANE0x16w32} into the one span step it spells (s~LANE0X16w32), and so on for each
offset of a butterfly or a chain, so that a whole warp reduction is one source, not 2^5.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

MOVED = "*moved*"  # a source marker: the value's elements changed lanes in a way no step spells

_STEP = re.compile(r"([/@~^<])")
MOVES = "@~^<"  # the steps that move a read between work items (a reduction, `/`, commutes with none)
_LANE_STEP = re.compile(r"^(LANE\d+)([xXdDuUi])(\d+)w(\d+)$")
_SPAN = {"x": "X", "d": "D", "u": "U"}


@dataclass(frozen=True)
class LaneStep:
    """A move between the lanes of a group of `width` consecutive lanes of `lane` (a warp)."""

    lane: str
    kind: str  # x X d D u U i (see the module docstring)
    arg: int
    width: int

    def __str__(self) -> str:
        return f"~{self.lane}{self.kind}{self.arg}w{self.width}"

    def relation(self, outer: str, inner: str) -> str:
        """isl constraints between `outer` (the lane nearer the write) and `inner` (the lane whose
        value it takes): the value at lane `outer` is computed from the value at lane `inner`."""
        w, a = self.width, self.arg
        same_group = f"floor({inner}/{w}) = floor({outer}/{w})"
        if self.kind == "x":
            return f"{same_group} and {inner} = {outer} + {a} - {2 * a}*(floor({outer}/{a}) mod 2)"
        if self.kind == "X":
            kept = [f"floor({inner}/{1 << k}) mod 2 = floor({outer}/{1 << k}) mod 2"
                    for k in range(w.bit_length() - 1) if not (a >> k) & 1]
            return " and ".join([same_group, *kept])
        if self.kind == "d":
            return (f"(({outer} mod {w}) + {a} < {w} and {inner} = {outer} + {a}) or "
                    f"(({outer} mod {w}) + {a} >= {w} and {inner} = {outer})")
        if self.kind == "u":
            return (f"(({outer} mod {w}) >= {a} and {inner} = {outer} - {a}) or "
                    f"(({outer} mod {w}) < {a} and {inner} = {outer})")
        if self.kind in "DU":
            d = f"({inner} - {outer})" if self.kind == "D" else f"({outer} - {inner})"
            bits = [f"floor({d}/{1 << k}) mod 2 = 0" for k in range(w.bit_length() - 1) if not (a >> k) & 1]
            inside = (f"({outer} mod {w}) + {d} < {w}" if self.kind == "D" else f"({outer} mod {w}) >= {d}")
            return " and ".join([f"{d} >= 0", inside, *bits])
        return f"{inner} = {w}*floor({outer}/{w}) + {a}"  # "i": a broadcast from lane `arg` of the group


@dataclass(frozen=True)
class OrderStep:
    """The read's `var` at or before the write's (`^`, a prefix along a lane) or strictly before it
    (`<`, the earlier trips of a loop)."""

    var: str
    strict: bool

    @property
    def lane(self) -> str:  # the variable it relates, as LaneStep names it
        return self.var

    def __str__(self) -> str:
        return f"{'<' if self.strict else '^'}{self.var}"

    def relation(self, outer: str, inner: str) -> str:
        return f"{inner} {'<' if self.strict else '<='} {outer}"


def prefix(source: str, lane: str) -> str:
    """`source` combined over every value of `lane` up to the write's own (an inclusive scan)."""
    return f"{source}^{lane}"


def earlier(source: str, var: str) -> str:
    """`source` read at every earlier trip of the loop of `var` (a loop-carried value inside it)."""
    return f"{source}<{var}"


def lane_step(lane: str, kind: str, arg: int, width: int) -> str:
    return str(LaneStep(lane, kind, arg, width))


def read_id(source: str) -> str:
    """The read a source names: what precedes its first step (`r3` of `r3/LANE7~LANE0x1w32`)."""
    return _STEP.split(source, maxsplit=1)[0]


def parse(source: str) -> tuple[str, list[tuple[str, object]]]:
    """A source's read id and its steps: ("reduce", lane), ("rename", {read lane: write lane}),
    ("lanes", LaneStep or OrderStep)."""
    parts = _STEP.split(source)
    base, steps = parts[0], []
    for kind, text in zip(parts[1::2], parts[2::2], strict=True):
        if kind == "/":
            steps.append(("reduce", text))
        elif kind == "@":
            steps.append(("rename", dict(pair.split("=", 1) for pair in text.split(",") if pair)))
        elif kind in "^<":
            steps.append(("lanes", OrderStep(text, kind == "<")))
        else:
            match = _LANE_STEP.match(text)
            if match is None:
                raise ValueError(f"a lane step lowercheck cannot read: ~{text}")
            lane, step, arg, width = match.groups()
            steps.append(("lanes", LaneStep(lane, step, int(arg), int(width))))
    return base, steps


@functools.lru_cache(maxsize=1 << 16)  # `merged` asks again for each source on each of its passes
def _last_lane_step(source: str) -> tuple[str, LaneStep] | None:
    """`source` split before its last step when that is a lane step (`~...`): (the rest, the step)."""
    head, tilde, tail = source.rpartition("~")
    if not tilde or _STEP.search(tail):
        return None
    match = _LANE_STEP.match(tail)
    if match is None:
        return None
    lane, kind, arg, width = match.groups()
    return head, LaneStep(lane, kind, int(arg), int(width))


def merged(sources: frozenset[str]) -> frozenset[str]:
    """`sources` with each pair {p, p~Lx o} (or {p~LX m, p~LX m~Lx o}, o not among m's bits) folded
    into the one span step that is their union (p~LX o, p~LX (m|o)); likewise for down and up."""
    if not any("~" in s for s in sources):
        return sources
    current = set(sources)
    changed = True
    while changed:
        changed = _absorb(current)
        for s in sorted(current):
            last = _last_lane_step(s)
            if last is None or last[1].kind not in _SPAN or last[1].arg & (last[1].arg - 1):
                continue  # spans are of distinct power-of-two offsets
            prefix, step = last
            if prefix not in current:
                continue
            before = _last_lane_step(prefix)
            span = _SPAN[step.kind]
            if before is not None and before[1].kind == span and before[1].lane == step.lane \
                    and before[1].width == step.width:
                if before[1].arg & step.arg:
                    continue  # an offset taken twice: not the span of distinct offsets
                folded = before[0] + lane_step(step.lane, span, before[1].arg | step.arg, step.width)
            else:
                folded = prefix + lane_step(step.lane, span, step.arg, step.width)
            current -= {s, prefix}
            current.add(folded)
            changed = True
            break
    return frozenset(current)


def _absorb(current: set[str]) -> bool:
    """Drop what a span already holds: p itself (every span holds its own lane), p~LK m for a
    span p~LK M of the same kind whose bits include m's, and a chain of XOR steps after p whose
    offsets and masks are all within the M of a butterfly p~LX M (the partial butterflies a loop
    around a warp reduction leaves beside the whole one). True when something was dropped."""
    spans: dict[tuple[str, str, str, int], list[int]] = {}
    for s in current:
        last = _last_lane_step(s)
        if last is not None and last[1].kind in "XDU":
            prefix, step = last
            spans.setdefault((prefix, step.lane, step.kind, step.width), []).append(step.arg)
    dropped = set()
    for (prefix, lane, kind, width), masks in spans.items():
        dropped.add(prefix)
        for m in masks:
            if any(m != other and m & other == m for other in masks):
                dropped.add(prefix + lane_step(lane, kind, m, width))
    butterflies = {(p, lane, width): masks for (p, lane, kind, width), masks in spans.items() if kind == "X"}
    if butterflies:  # p~LX M holds every lane l ^ m (m within M): so does any chain of XORs within M after p
        for s in current:
            for prefix, lane, width, bits in _xor_tails(s):
                masks = butterflies.get((prefix, lane, width), ())
                if any(bits & m == bits and s != prefix + lane_step(lane, "X", m, width) for m in masks):
                    dropped.add(s)
                    break
    dropped &= current
    current -= dropped
    return bool(dropped)


def _xor_tails(source: str):
    """Each split of `source` into (prefix, lane, width, bits) where what follows the prefix is a chain
    of XOR steps (`x` of a power-of-two offset, `X`) of one lane and width, `bits` their offsets'
    and masks' union: the value at lane l of the chain is one of the prefix's at lanes l ^ m, m
    within `bits`, in l's group. Nearest the write first."""
    bits, where, head = 0, None, source
    while (last := _last_lane_step(head)) is not None:
        head, step = last
        if step.kind not in "xX" or (step.kind == "x" and step.arg & (step.arg - 1)):
            return
        if where is None:
            where = (step.lane, step.width)
        elif where != (step.lane, step.width):
            return
        bits |= step.arg
        yield head, step.lane, step.width, bits


__all__ = ["MOVED", "MOVES", "LaneStep", "OrderStep", "earlier", "lane_step", "merged", "parse", "prefix", "read_id"]
