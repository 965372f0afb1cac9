"""Index expressions over tagged variables, the common language of the `kernel` and `access` dialects.

An expression is a sympy integer expression. Its free symbols are tagged by name:

- ``GRID0..2``: the program (Triton) or block (CUDA) index along each grid axis;
- ``LANE0..``: a position inside the work item: CUDA's threadIdx.x/y/z, or one dimension of a
  Triton tile (``offs_m[:, None]`` and ``offs_n[None, :]`` are distinct lanes even when equal in size);
- ``SEQ0..``: the trip counter of an enclosing loop (0, 1, 2, ...);
- any other name: a PARAM, a size or scalar argument of the entry (``n``, ``stride_x``).

Expressions print as Python-like text (``1024*GRID0 + LANE0``, ``floor((n + 1023)/1024)``,
``Mod(i, 4)``) that `parse` reads back, so IR holding them as strings round-trips. `to_isl` writes the
quasi-affine ones in isl's syntax; a product of two unknowns raises `NonAffine`.
"""

from __future__ import annotations

import enum
import functools
import keyword
import re
from collections.abc import Iterable, Mapping

import sympy
from sympy.printing.str import StrPrinter

Expr = sympy.Expr


class Tag(enum.StrEnum):
    GRID = "GRID"
    LANE = "LANE"
    SEQ = "SEQ"
    PARAM = "PARAM"


_TAGGED = re.compile(r"^(GRID|LANE|SEQ)(\d+)$")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_FUNCTIONS = {"floor": sympy.floor, "ceiling": sympy.ceiling, "Mod": sympy.Mod, "Min": sympy.Min,
              "Max": sympy.Max, "Eq": sympy.Eq, "Ne": sympy.Ne, "And": sympy.And, "Or": sympy.Or,
              "Not": sympy.Not, "true": sympy.true, "false": sympy.false, "True": sympy.true,
              "False": sympy.false, "ITE": sympy.ITE, "Piecewise": sympy.Piecewise}


def var(name: str) -> sympy.Symbol:
    """The symbol for a tagged variable or parameter; tagged variables are non-negative."""
    if _TAGGED.match(name):
        return sympy.Symbol(name, integer=True, nonnegative=True)
    return sympy.Symbol(name, integer=True)


def grid(axis: int) -> sympy.Symbol:
    return var(f"GRID{axis}")


def lane(axis: int) -> sympy.Symbol:
    return var(f"LANE{axis}")


def seq(index: int) -> sympy.Symbol:
    return var(f"SEQ{index}")


def tag_of(symbol: sympy.Symbol) -> Tag:
    match = _TAGGED.match(symbol.name)
    return Tag(match.group(1)) if match else Tag.PARAM


def params_of(exprs: Iterable[sympy.Basic]) -> list[str]:
    """The PARAM names that occur in `exprs`, sorted."""
    names = {s.name for e in exprs for s in e.free_symbols if tag_of(s) is Tag.PARAM}
    return sorted(names)


@functools.lru_cache(maxsize=65536)
def parse(text: str) -> sympy.Basic:
    """Read an expression or relation printed by `format`. Raises ValueError on anything else.
    Cached: sympy's parser is slow, and IR repeats its expressions (sympy objects are immutable)."""
    local: dict[str, object] = dict(_FUNCTIONS)
    for name in _IDENT.findall(text):
        if name in local:
            continue
        if keyword.iskeyword(name) and name not in ("and", "or", "not"):
            # A C parameter may be called `in` or `lambda`: give Python another spelling.
            spelled = f"_kw_{name}_"
            text = re.sub(rf"\b{name}\b", spelled, text)
            local[spelled] = var(name)
        elif name not in local:
            local[name] = var(name)
    try:
        return sympy.sympify(sympy.sympify(text, locals=local, rational=True))
    except (sympy.SympifyError, SyntaxError, TypeError) as err:
        raise ValueError(f"not an index expression: {text!r} ({err})") from None


class _Printer(StrPrinter):
    """sympy's printer, but `floor((n + 255)/256)` rather than `floor(n/256 + 255/256)`."""

    def _print_floor(self, expr: sympy.floor) -> str:
        return f"floor({self._division(expr.args[0])})"

    def _print_ceiling(self, expr: sympy.ceiling) -> str:
        return f"ceiling({self._division(expr.args[0])})"

    def _division(self, arg: sympy.Basic) -> str:
        num, den = sympy.fraction(sympy.together(arg))
        if den == 1:
            return self._print(arg)
        num = sympy.expand(num)
        text = self._print(num)
        if isinstance(num, sympy.Add):
            text = f"({text})"
        den_text = self._print(den)
        if not den.is_Atom:  # `floor(i/(4*t))`, not `floor(i/4*t)`
            den_text = f"({den_text})"
        return f"{text}/{den_text}"


_PRINTER = _Printer()


def format(expr: sympy.Basic | int) -> str:  # noqa: A001 - the dialects' one printer
    """The text form `parse` reads back."""
    return _PRINTER.doprint(sympy.sympify(expr))


def substitute(expr: sympy.Basic, values: Mapping[str, int | sympy.Basic]) -> sympy.Basic:
    """Replace the named variables (by name, whatever their assumptions) with values."""
    mapping = {s: values[s.name] for s in expr.free_symbols if s.name in values}
    return expr.xreplace({k: sympy.sympify(v) for k, v in mapping.items()}) if mapping else expr


class NonAffine(ValueError):
    """The expression is not quasi-affine (a product of unknowns, a division by an unknown, ...)."""


def to_isl(expr: sympy.Basic) -> str:
    """isl syntax for a quasi-affine expression, relation, or conjunction/disjunction of relations."""
    return _Isl().emit(expr)


def _rational_coefficients(e: sympy.Basic) -> bool:
    """A linear expression with a non-integer rational coefficient (`x/64 - 2`)."""
    e = sympy.expand(e)
    coeffs = e.as_coefficients_dict()
    return e.is_polynomial() and all(c.is_Rational for c in coeffs.values()) \
        and any(not c.is_Integer for c in coeffs.values()) and sympy.Poly(e).total_degree() <= 1 \
        if e.free_symbols else False


def _without_cases(e: sympy.Basic) -> sympy.Basic:
    """A condition with its case distinctions made logic: `x < Piecewise((a, c), (b, True))` (a
    ternary's value) becomes `(c and x < a) or (not c and x < b)`, `ITE(c, p, q)` the same way."""
    if isinstance(e, sympy.ITE):
        c, p, q = e.args
        return sympy.Or(sympy.And(c, p), sympy.And(sympy.Not(c), q))
    if isinstance(e, sympy.Piecewise):  # boolean cases, in order: each holds where the earlier ones do not
        terms, earlier = [], []
        for value, cond in e.args:
            terms.append(sympy.And(*[sympy.Not(c) for c in earlier], cond, value))
            earlier.append(cond)
        return sympy.Or(*terms)
    folded = sympy.piecewise_fold(e)
    if folded == e:
        _fail(e)
    return _without_cases(folded) if isinstance(folded, (sympy.Piecewise, sympy.ITE)) else folded


def _has_cases(e: sympy.Basic) -> bool:
    return isinstance(e, sympy.Basic) and e.has(sympy.Piecewise, sympy.ITE)


class _Isl:
    def emit(self, e: sympy.Basic) -> str:
        if isinstance(e, (sympy.Rel, sympy.ITE, sympy.Piecewise)) and _has_cases(e):
            return self.emit(_without_cases(e))
        if e is sympy.true:
            return "0 = 0"
        if e is sympy.false:
            return "1 = 0"
        if isinstance(e, sympy.And):
            return " and ".join(f"({self.emit(a)})" for a in e.args)
        if isinstance(e, sympy.Or):
            return " or ".join(f"({self.emit(a)})" for a in e.args)
        if isinstance(e, sympy.Not):
            inner = e.args[0]
            if isinstance(inner, sympy.Rel):
                return self.emit(inner.negated)
            if isinstance(inner, (sympy.And, sympy.Or)):  # De Morgan
                dual = sympy.Or if isinstance(inner, sympy.And) else sympy.And
                return self.emit(dual(*[sympy.Not(a) for a in inner.args], evaluate=False))
            if isinstance(inner, sympy.Not):
                return self.emit(inner.args[0])
            if _has_cases(inner):
                return self.emit(sympy.Not(_without_cases(inner)))
            return _fail(e)
        if isinstance(e, sympy.Rel):
            if e.rel_op in ("<", "<=", ">", ">=") and _rational_coefficients(e.lhs - e.rhs):
                # `GRID0/64 >= 2`, which sympy makes of `floor(GRID0/64) >= 2`: scaled to integers
                diff = e.lhs - e.rhs
                scale = sympy.ilcm(*[sympy.fraction(c)[1] for c in diff.as_coefficients_dict().values()])
                return self.emit(type(e)(sympy.expand(diff * scale), 0))
            op = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "=", "!=": "!="}[e.rel_op]
            if op == "!=":
                lhs, rhs = self.term(e.lhs), self.term(e.rhs)
                return f"({lhs} < {rhs}) or ({lhs} > {rhs})"
            return f"{self.term(e.lhs)} {op} {self.term(e.rhs)}"
        return self.term(e)

    def term(self, e: sympy.Basic) -> str:
        if isinstance(e, sympy.Integer):
            return str(int(e))
        if isinstance(e, sympy.Rational):
            return _fail(e)
        if isinstance(e, sympy.Symbol):
            return e.name
        if isinstance(e, sympy.Add):
            return "(" + " + ".join(self.term(a) for a in e.args) + ")"
        if isinstance(e, sympy.Mul):
            const, rest = e.as_coeff_Mul()
            if isinstance(rest, sympy.Mul):  # a product of two unknowns
                return _fail(e)
            if isinstance(const, sympy.Rational) and not isinstance(const, sympy.Integer):
                return _fail(e)
            return f"({int(const)}*{self.term(rest)})"
        if isinstance(e, sympy.floor):
            num, den = _split_division(e.args[0])
            return f"floor(({self.term(num)})/{den})"
        if isinstance(e, sympy.ceiling):
            num, den = _split_division(e.args[0])
            return f"ceil(({self.term(num)})/{den})"
        if isinstance(e, sympy.Mod):
            a, m = e.args
            if not isinstance(m, sympy.Integer):
                return _fail(e)
            return f"(({self.term(a)}) mod {int(m)})"
        if isinstance(e, (sympy.Min, sympy.Max)):
            name = "min" if isinstance(e, sympy.Min) else "max"
            return f"{name}(" + ", ".join(self.term(a) for a in e.args) + ")"
        return _fail(e)


def _split_division(e: sympy.Basic) -> tuple[sympy.Basic, int]:
    """floor(a/c) -> (a, c) for an integer c: the only division isl accepts."""
    num, den = sympy.fraction(sympy.together(e))
    if not isinstance(den, sympy.Integer) or den <= 0:
        _fail(e)
    return sympy.expand(num), int(den)


def _fail(e: sympy.Basic) -> str:
    raise NonAffine(f"not quasi-affine: {format(e)}")
