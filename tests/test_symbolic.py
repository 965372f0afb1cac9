"""Index expressions: text round trip, isl translation, and the index rewrites proved with z3."""

from __future__ import annotations

import pytest
import sympy
import z3

from lowercheck import symbolic
from lowercheck.passes.extract_accesses import _INT_BINARY


@pytest.mark.parametrize("text", ["1024*GRID0 + LANE0", "floor((n + 1023)/1024)", "Mod(LANE3, 4) + 2*SEQ0",
                                  "256*GRID0 + LANE0 < n", "Min(n, 64)", "Ne(LANE0, 3)"])
def test_text_round_trip(text: str) -> None:
    expr = symbolic.parse(text)
    assert symbolic.parse(symbolic.format(expr)) == expr


def test_tags() -> None:
    e = symbolic.parse("GRID0*1024 + LANE3 + SEQ1*stride + n")
    tags = {s.name: symbolic.tag_of(s) for s in e.free_symbols}
    assert tags == {"GRID0": symbolic.Tag.GRID, "LANE3": symbolic.Tag.LANE, "SEQ1": symbolic.Tag.SEQ,
                    "stride": symbolic.Tag.PARAM, "n": symbolic.Tag.PARAM}


def test_isl_accepts_quasi_affine_and_rejects_products() -> None:
    assert symbolic.to_isl(symbolic.parse("floor((n + 1023)/1024)")) == "floor(((1023 + n))/1024)"
    with pytest.raises(symbolic.NonAffine):
        symbolic.to_isl(symbolic.parse("GRID0*n"))
    with pytest.raises(symbolic.NonAffine):
        symbolic.to_isl(symbolic.parse("floor(LANE0/n)"))


def test_parse_rejects_garbage() -> None:
    with pytest.raises(ValueError):
        symbolic.parse("1 +* 2")


# The integer rewrites of extract-accesses, proved on 32-bit values with z3 (for the non-negative
# operands index arithmetic has): the bit operation on the left equals the algebra on the right.
def _z3_of(expr: sympy.Basic, env: dict) -> z3.BitVecRef:
    """The sympy algebra as 32-bit unsigned bit-vector arithmetic (exact for small non-negative x)."""
    if isinstance(expr, sympy.Symbol):
        return env[expr.name]
    if isinstance(expr, sympy.Integer):
        return z3.BitVecVal(int(expr), 32)
    if isinstance(expr, sympy.Add):
        out = z3.BitVecVal(0, 32)
        for a in expr.args:
            out = out + _z3_of(a, env)
        return out
    if isinstance(expr, sympy.Mul):
        out = z3.BitVecVal(1, 32)
        for a in expr.args:
            out = out * _z3_of(a, env)
        return out
    if isinstance(expr, sympy.Mod):
        return z3.URem(_z3_of(expr.args[0], env), _z3_of(expr.args[1], env))
    if isinstance(expr, sympy.floor):
        num, den = sympy.fraction(sympy.together(expr.args[0]))
        return z3.UDiv(_z3_of(sympy.expand(num), env), _z3_of(den, env))
    raise NotImplementedError(expr)


@pytest.mark.parametrize("op, bits, constant", [
    ("arith.andi", lambda a, b: a & b, 15),
    ("arith.andi", lambda a, b: a & b, 1023),
    ("arith.shli", lambda a, b: a << b, 4),
    ("arith.shrsi", lambda a, b: z3.LShR(a, b), 3),
    ("arith.shrui", lambda a, b: z3.LShR(a, b), 5),
    ("arith.divsi", lambda a, b: z3.UDiv(a, b), 7),
    ("arith.remsi", lambda a, b: z3.URem(a, b), 12),
])
def test_rewrite_is_exact(op: str, bits, constant: int) -> None:
    x = symbolic.var("x")
    algebra = _INT_BINARY[op](x, sympy.Integer(constant))
    bv = z3.BitVec("x", 32)
    solver = z3.Solver()
    # Non-negative operands whose result does not overflow 31 bits.
    solver.add(z3.ULT(bv, 2**26))
    solver.add(bits(bv, z3.BitVecVal(constant, 32)) != _z3_of(algebra, {"x": bv}))
    assert solver.check() == z3.unsat, solver.model() if solver.check() == z3.sat else None


def test_a_composite_divisor_keeps_its_parentheses() -> None:
    """`floor(i/(4*t))` printed as `floor(i/4*t)` would read back as floor(i*t/4)."""
    expr = symbolic.parse("floor(GRID0/(4*floor((n + 31)/32)))")
    text = symbolic.format(expr)
    assert text == "floor(GRID0/(4*floor((n + 31)/32)))"
    assert symbolic.parse(text) == expr


def test_negations_and_rational_bounds_are_written_for_isl() -> None:
    """`~((floor(g/64) >= 2) | (g mod 64 >= 64))` as sympy leaves it (the floor became `g/64 >= 2`):
    De Morgan, and the rational bound scaled to integers, so isl reads it as one affine set."""
    import islpy as isl
    import sympy

    g = symbolic.var("GRID0")
    condition = sympy.Not(sympy.Or(sympy.floor(g / 64) >= 2, sympy.Mod(g, 64) >= 64))
    space = isl.Set(f"{{ [GRID0] : GRID0 >= 0 and {symbolic.to_isl(condition)} }}")
    assert space == isl.Set("{ [GRID0] : 0 <= GRID0 <= 127 }")
    assert isl.Set(f"{{ [GRID0] : {symbolic.to_isl(sympy.Lt(g / 3, 5))} }}") == isl.Set("{ [GRID0] : GRID0 <= 14 }")


def test_a_ternary_in_a_bound_or_an_index_becomes_cases_for_isl() -> None:
    """A loop bound that is a ternary (`i < (tid < rem ? q + 1 : q)`, DeepSpeed's LayerNorm) and a
    modulus chosen by one (`lane % (n < 128 ? 64 : 128)`) read back from the IR and become a
    disjunction of cases in isl; `ITE` (what sympy makes of a boolean ternary) and `True` as the last
    case's condition read back too."""
    import islpy as isl
    import sympy

    bound = symbolic.parse("SEQ1 < Piecewise((floor(n/4) + 1, n > LANE0 + 4*floor(n/4)), (floor(n/4), True))")
    assert symbolic.parse(symbolic.format(bound)) == bound
    trips = isl.Set(f"[n] -> {{ [LANE0, SEQ1] : 0 <= LANE0 < 4 and SEQ1 >= 0 and ({symbolic.to_isl(bound)}) }}")
    # For n = 6: lanes 0 and 1 take two trips, lanes 2 and 3 one.
    at_six = trips.fix_val(isl.dim_type.param, 0, isl.Val("6"))
    assert at_six == isl.Set("[n] -> { [LANE0, SEQ1] : n = 6 and ((0 <= LANE0 <= 1 and 0 <= SEQ1 <= 1) or "
                             "(2 <= LANE0 <= 3 and SEQ1 = 0)) }")
    index = symbolic.parse("Mod(LANE0, Piecewise((64, n < 128), (128, True)))")
    text = symbolic.to_isl(sympy.Eq(sympy.Symbol("i0"), index, evaluate=False))
    cases = isl.Set(f"[n] -> {{ [LANE0, i0] : 0 <= LANE0 < 256 and ({text}) }}")
    assert cases.fix_val(isl.dim_type.param, 0, isl.Val("200")) == isl.Set(
        "[n] -> { [LANE0, i0] : n = 200 and 0 <= LANE0 < 256 and i0 = LANE0 mod 128 }")
    chosen = symbolic.parse("ITE(Eq(flag, 0), x < 3, x < 5)")
    assert symbolic.parse(symbolic.format(chosen)) == chosen
    assert isl.Set(f"[flag] -> {{ [x] : 0 <= x and ({symbolic.to_isl(chosen)}) }}").fix_val(
        isl.dim_type.param, 0, isl.Val("1")) == isl.Set("[flag] -> { [x] : flag = 1 and 0 <= x <= 4 }")
    assert isl.Set(f"[flag] -> {{ [x] : 0 <= x < 9 and ({symbolic.to_isl(sympy.Not(chosen))}) }}").fix_val(
        isl.dim_type.param, 0, isl.Val("0")) == isl.Set("[flag] -> { [x] : flag = 0 and 3 <= x <= 8 }")
