"""Inline PTX as LLM kernels write it: the memory moves of `asm volatile(...)` statements.

Libraries such as DeepSpeed wrap every vector load and store of a kernel in inline assembly
(`ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];`), with a portable C fallback that only compilers
without PTX take. `parse` reads such a statement into `Move`s (a load or a store of one to four
registers through an address operand, predicated or not, with the registers' defaults for a load
that does not happen); anything else in the template (arithmetic, `cp.async`, barriers, ...) is
`Unsupported` naming the instruction, at the statement. lower.py lowers the moves with the same
reinterpreted-pointer machinery as the C fallback.

The grammar kept: `{`/`}` scopes, `.reg .pred p;` declarations, `setp.ne.{b,s,u}32 p, %k, 0;`
(the predicate: operand k is not zero), `mov.b32 %i, 0;` (a default), and
`[@p] {ld,st}.{global,shared,local}[.qualifier]*[.v2|.v4].{b,u,s,f}{16,32,64} ...;`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import clang.cindex as ci

# The qualifiers of a load or store that change nothing the checks see (cache and eviction hints,
# memory-model strength).
_HINTS = re.compile(r"^(ca|cg|cs|lu|cv|wb|wt|nc|volatile|relaxed|weak|acquire|release|sys|gpu|cta|"
                    r"L1::\w+|L2::\w+|L2::cache_hint)$")
_MOVE = re.compile(r"^(?:@(?P<pred>!?\w+)\s+)?(?P<op>ld|st)\.(?P<quals>[\w.:]+)\s+(?P<rest>.*)$")
_REGISTERS = re.compile(r"^\{?\s*(%\d+(?:\s*,\s*%\d+)*)\s*\}?$")


@dataclass(frozen=True)
class Move:
    """`ld`: registers `registers` (operand numbers) <- the `width`-bit elements at operand `address`;
    `st`: the reverse. `predicate`: the operand whose non-zero value enables it (None: always)."""

    kind: str  # load | store
    space: str  # global | shared | local
    width: int  # bits per register
    registers: tuple[int, ...]
    address: int
    predicate: int | None = None
    defaults: dict[int, int] = field(default_factory=dict)  # register -> value when a load is off


@dataclass(frozen=True)
class Asm:
    template: str
    outputs: int  # operands 0 .. outputs-1 are outputs, the rest inputs
    operands: list[ci.Cursor]


class NotModelled(Exception):
    """An instruction of the template lowercheck does not model (the message names it)."""


def statement(s: ci.Cursor) -> Asm:
    """The template, the number of outputs and the operand expressions of an `asm` statement."""
    tokens = [t.spelling for t in s.get_tokens()]
    strings, constraints, depth, colons = [], [], 0, 0
    for token in tokens:
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        elif token == ":" and depth == 1:
            colons += 1
        elif token.startswith('"') and depth == 1:
            (strings if colons == 0 else constraints).append((colons, _unquote(token)))
    template = "".join(text for _, text in strings)
    outputs = sum(1 for section, c in constraints if section == 1)
    operands = [c for c in s.get_children() if c.kind.is_expression()]
    return Asm(template, outputs, operands)


def _unquote(token: str) -> str:
    return bytes(token[1:-1], "utf-8").decode("unicode_escape")


def parse(asm: Asm) -> list[Move]:
    """The moves of the template, in order; NotModelled for any other instruction."""
    predicates: dict[str, int] = {}  # predicate register -> the operand it tests
    defaults: dict[int, int] = {}
    moves: list[Move] = []
    for raw in asm.template.replace("\n", ";").split(";"):
        line = raw.strip()
        while line.startswith("{") and not line.startswith("{%"):  # a scope's brace, not registers'
            line = line[1:].strip()
        while line.endswith("}") and line.count("}") > line.count("{"):
            line = line[:-1].strip()
        if not line or line.startswith(".reg"):
            continue
        if m := re.fullmatch(r"setp\.ne\.[bsu]32\s+(\w+)\s*,\s*%(\d+)\s*,\s*0", line):
            predicates[m.group(1)] = int(m.group(2))
            continue
        if m := re.fullmatch(r"mov\.[bsu](?:16|32|64)\s+%(\d+)\s*,\s*(-?\d+)", line):
            defaults[int(m.group(1))] = int(m.group(2))
            continue
        move = _move(line, predicates, defaults)
        if move is None:
            raise NotModelled(f"the PTX instruction `{line}`")
        moves.append(move)
    return moves


def _move(line: str, predicates: dict[str, int], defaults: dict[int, int]) -> Move | None:
    m = _MOVE.match(line)
    if m is None:
        return None
    quals = m.group("quals").split(".")
    space, *rest = quals
    if space not in ("global", "shared", "local") or not rest:
        return None
    *middle, element = rest
    lanes = 1
    if middle and middle[-1] in ("v2", "v4"):
        lanes = int(middle.pop()[1])
    if any(not _HINTS.match(q) for q in middle):
        return None
    width = re.fullmatch(r"[bsuf](16|32|64)", element)
    if width is None:
        return None
    pred = m.group("pred")
    if pred is not None and (pred.startswith("!") or pred not in predicates):
        return None
    parts = [p.strip() for p in re.split(r",(?![^{]*\})", m.group("rest"))]
    if len(parts) != 2:
        return None
    registers_text, address_text = (parts[0], parts[1]) if m.group("op") == "ld" else (parts[1], parts[0])
    address = re.fullmatch(r"\[\s*%(\d+)\s*\]", address_text)
    registers = _REGISTERS.fullmatch(registers_text)
    if address is None or registers is None:
        return None
    regs = tuple(int(r.strip().lstrip("%")) for r in registers.group(1).split(","))
    if len(regs) != lanes:
        return None
    kind = "load" if m.group("op") == "ld" else "store"
    kept = {r: defaults[r] for r in regs if r in defaults} if kind == "load" else {}
    return Move(kind, space, int(width.group(1)), regs, int(address.group(1)),
                predicates[pred] if pred is not None else None, kept)
