"""z3 proofs of every index rewrite the analysis makes.

`extract-accesses` reads C's and Triton's 32-bit integer operations as exact integer expressions
(`arith.divsi` as floor division, `x & 7` as `x mod 8`, ...), each valid under a precondition the
analysis relies on (non-negative indices, no wrap: a wrap is LC209's business). Each rule of the
pass's table is proved here against the bit-vector semantics of the op, under its precondition: a
rule added to the table without a proof fails `test_every_rule_has_a_proof`.

The coordinate splits of `lowercheck.compare.coordinates` are proved to recombine to the flat index.
"""

from __future__ import annotations

import pytest
import sympy
import z3

from lowercheck import symbolic
from lowercheck.compare import coordinates
from lowercheck.passes.extract_accesses import _INT_BINARY

BITS = 32
INT_MIN, INT_MAX = -(2 ** (BITS - 1)), 2 ** (BITS - 1) - 1


WIDE = 64  # the rewritten expressions are evaluated exactly: 32-bit operands, 64-bit arithmetic


def to_z3(expr: sympy.Basic, env: dict[str, z3.BitVecRef]) -> z3.BitVecRef:
    """An integer sympy expression (the pass's index language) as a 64-bit z3 term: exact for the
    values of 32-bit operands (products of two of them fit)."""
    if isinstance(expr, sympy.Integer):
        return z3.BitVecVal(int(expr), WIDE)
    if isinstance(expr, sympy.Symbol):
        return env[expr.name]
    if isinstance(expr, sympy.Add):
        terms = [to_z3(a, env) for a in expr.args]
        return sum(terms[1:], terms[0])
    if isinstance(expr, sympy.Mul):
        factors = [to_z3(a, env) for a in expr.args]
        out = factors[0]
        for f in factors[1:]:
            out = out * f
        return out
    if isinstance(expr, sympy.Pow) and expr.exp.is_Integer and expr.exp >= 0:
        base = to_z3(expr.base, env)
        out = z3.BitVecVal(1, WIDE)
        for _ in range(int(expr.exp)):
            out = out * base
        return out
    if isinstance(expr, sympy.floor):
        num, den = sympy.fraction(sympy.together(expr.args[0]))
        n, d = to_z3(sympy.expand(num), env), to_z3(den, env)
        return (n - z3.SRem(n, d) - z3.If(z3.And(z3.SRem(n, d) != 0, (n < 0) != (d < 0)), d, 0)) / d
    if isinstance(expr, sympy.Mod):  # sympy's Mod takes the divisor's sign: bvsmod
        return to_z3(expr.args[0], env) % to_z3(expr.args[1], env)  # z3py: `%` on bit-vectors is bvsmod
    if isinstance(expr, sympy.Min):
        a, b = (to_z3(x, env) for x in expr.args)
        return z3.If(a <= b, a, b)
    if isinstance(expr, sympy.Max):
        a, b = (to_z3(x, env) for x in expr.args)
        return z3.If(a >= b, a, b)
    raise NotImplementedError(f"no z3 form for {expr!r}")


def to_z3_int(expr: sympy.Basic, env: dict[str, z3.ArithRef]) -> z3.ArithRef:
    """The same over z3's integers, for divisions by a variable (bit-blasting a 64-bit division is
    slow). z3's integer `/` and `%` are Euclidean: for a positive divisor, floor and sympy's Mod."""
    if isinstance(expr, sympy.Integer):
        return z3.IntVal(int(expr))
    if isinstance(expr, sympy.Symbol):
        return env[expr.name]
    if isinstance(expr, sympy.Add):
        terms = [to_z3_int(a, env) for a in expr.args]
        return sum(terms[1:], terms[0])
    if isinstance(expr, sympy.Mul):
        factors = [to_z3_int(a, env) for a in expr.args]
        out = factors[0]
        for f in factors[1:]:
            out = out * f
        return out
    if isinstance(expr, sympy.floor):
        num, den = sympy.fraction(sympy.together(expr.args[0]))
        return to_z3_int(sympy.expand(num), env) / to_z3_int(den, env)
    if isinstance(expr, sympy.Mod):
        return to_z3_int(expr.args[0], env) % to_z3_int(expr.args[1], env)
    raise NotImplementedError(f"no z3 form for {expr!r}")


def proved(claim: z3.BoolRef) -> bool:
    solver = z3.Solver()
    solver.set("timeout", 60_000)
    solver.add(z3.Not(claim))
    return solver.check() == z3.unsat


# The op's semantics on 32-bit words, its precondition (on the operands' values, widened), and,
# for shifts and masks, the constant operand the rule needs.
A, B = z3.BitVecs("a b", BITS)
IA, IB = z3.SignExt(WIDE - BITS, A), z3.SignExt(WIDE - BITS, B)
NON_NEGATIVE = z3.And(IA >= 0, IB > 0)  # an index and a positive divisor
SHIFT = 5


def fits(value: z3.BitVecRef) -> z3.BoolRef:
    return z3.And(value >= INT_MIN, value <= INT_MAX)


PROOFS = {
    # op: (bit-vector semantics, precondition, the constant b is fixed to)
    "arith.addi": (A + B, fits(IA + IB), None),
    "arith.subi": (A - B, fits(IA - IB), None),
    "arith.muli": (A * B, fits(IA * IB), None),
    "arith.divsi": (A / B, NON_NEGATIVE, None),  # z3's bit-vector `/` is signed, truncating (C's)
    "arith.divui": (z3.UDiv(A, B), NON_NEGATIVE, None),
    "arith.floordivsi": (z3.If(z3.And(z3.SRem(A, B) != 0, (A < 0) != (B < 0)), A / B - 1, A / B),
                         z3.And(IB > 0, IA > INT_MIN), None),
    "arith.remsi": (z3.SRem(A, B), NON_NEGATIVE, None),
    "arith.remui": (z3.URem(A, B), NON_NEGATIVE, None),
    "arith.maxsi": (z3.If(A >= B, A, B), z3.BoolVal(True), None),
    "arith.maxui": (z3.If(z3.UGE(A, B), A, B), z3.And(IA >= 0, IB >= 0), None),
    "arith.minsi": (z3.If(A <= B, A, B), z3.BoolVal(True), None),
    "arith.minui": (z3.If(z3.ULE(A, B), A, B), z3.And(IA >= 0, IB >= 0), None),
    "arith.andi": (A & B, IA >= 0, 2 ** SHIFT - 1),  # a mask 2^k - 1 on a non-negative index
    "arith.shli": (A << B, fits(IA * 2 ** SHIFT), SHIFT),
    "arith.shrsi": (A >> B, z3.BoolVal(True), SHIFT),  # arithmetic shift: floor division, any sign
    "arith.shrui": (z3.LShR(A, B), IA >= 0, SHIFT),
}
# Rules on booleans (i1): and/or/xor of conditions are the logical connectives, no integer rewrite.
CONDITION_ONLY = {"arith.ori", "arith.xori"}


def test_every_rule_has_a_proof():
    assert set(_INT_BINARY) - CONDITION_ONLY == set(PROOFS)
    assert set(DIVISIONS) <= set(PROOFS)


# Divisions by a variable, proved over the integers: C's truncating division and remainder, for
# 32-bit operands (the precondition bounds them), against the rewrite.
IA_INT, IB_INT = z3.Ints("a b")
IN_RANGE = z3.And(IA_INT >= INT_MIN, IA_INT <= INT_MAX, IB_INT >= INT_MIN, IB_INT <= INT_MAX)
TRUNC = z3.If(IA_INT >= 0, IA_INT / IB_INT, -((-IA_INT) / IB_INT))  # for a positive divisor
INDEX = z3.And(IA_INT >= 0, IB_INT > 0)
DIVISIONS = {
    "arith.divsi": (TRUNC, INDEX),
    "arith.divui": (TRUNC, INDEX),  # non-negative operands: unsigned and signed agree
    "arith.floordivsi": (IA_INT / IB_INT, IB_INT > 0),
    "arith.remsi": (IA_INT - IB_INT * TRUNC, INDEX),
    "arith.remui": (IA_INT - IB_INT * TRUNC, INDEX),
}


@pytest.mark.parametrize("name", sorted(DIVISIONS))
def test_division_rule_matches_c(name):
    semantics, precondition = DIVISIONS[name]
    rewritten = _INT_BINARY[name](symbolic.var("a"), symbolic.var("b"))
    claim = z3.Implies(z3.And(IN_RANGE, precondition),
                       semantics == to_z3_int(rewritten, {"a": IA_INT, "b": IB_INT}))
    assert proved(claim), f"{name}: {symbolic.format(rewritten)}"


@pytest.mark.parametrize("name", sorted(set(PROOFS) - set(DIVISIONS)))
def test_rule_matches_the_machine_op(name):
    semantics, precondition, constant = PROOFS[name]
    a, b = symbolic.var("a"), symbolic.var("b")
    operand = sympy.Integer(constant) if constant is not None else b
    rewritten = _INT_BINARY[name](a, operand)
    env = {"a": IA, "b": IB}
    claim = z3.Implies(precondition, z3.SignExt(WIDE - BITS, semantics) == to_z3(rewritten, env))
    if constant is not None:
        claim = z3.Implies(B == constant, claim)
    assert proved(claim), f"{name}: {symbolic.format(rewritten)} differs from the op under its precondition"


def test_a_wrong_rule_is_refuted():
    """The harness can fail: truncating division read as floor division is wrong for negatives."""
    rewritten = _INT_BINARY["arith.divsi"](symbolic.var("a"), symbolic.var("b"))
    claim = z3.Implies(z3.And(IN_RANGE, IB_INT > 0), TRUNC == to_z3_int(rewritten, {"a": IA_INT, "b": IB_INT}))
    assert not proved(claim)


# ---------------------------------------------------------------------------------------------
# Coordinate splits

N, M, R, C, K = (symbolic.var(x) for x in ("n", "m", "GRID0", "LANE4", "SEQ0"))
SPLITS = [
    ([M, N], R * N + C),  # row-major 2-D
    ([M, N], (R + 1) * N - 1 - C),  # a reversed row (the borrowed split)
    ([M, N], 32 * R + C),  # a flat walk: floor/mod only
    ([M, N], R * N + C - 1),  # a left neighbour
    ([K, M, N], R * M * N + C * N + K),  # 3-D (its floor/mod split is nonlinear: not proved here)
    ([M, sympy.Integer(64)], 256 * R + C),  # constant inner extent
    ([K, M, N], (R + C) * N + K),  # [B, T, C] indexed `idx * C + c`: B and T merged (issue 15)
    ([K, M, N], R * M * N + C),  # a flat walk inside each slice: M and N merged
    ([K, M, N], (R + 1) * N + K),  # the next row of a merged [B*T, C]
]


@pytest.mark.parametrize("shape, index", SPLITS, ids=[symbolic.format(i) for _, i in SPLITS])
def test_every_split_recombines_to_the_flat_index(shape, index):
    """For sizes >= 1 and variables >= 0 (the tagged variables' domain), over the integers."""
    names = {s.name for s in index.free_symbols} | {s.name for d in shape for s in d.free_symbols}
    env = {name: z3.Int(name) for name in names}
    sizes = {s.name for d in shape for s in d.free_symbols}
    domain = z3.And(*[env[n] >= (1 if n in sizes else 0) for n in names])
    for candidate in coordinates.candidates(index, shape):
        if candidate.how == "flat" and len(shape) > 2:
            continue  # floor(i/(m*n)) and Mod(floor(i/n), m) together: beyond z3's nonlinear arithmetic
        flat = coordinates.flatten(candidate.exprs, shape)
        assert proved(z3.Implies(domain, to_z3_int(flat, env) == to_z3_int(sympy.expand(index), env))), \
            f"{candidate.how}: {[symbolic.format(c) for c in candidate.exprs]}"


def test_splits_are_chosen_as_documented():
    assert [c.how for c in coordinates.candidates(R * N + C, [M, N])] == ["split", "flat"]
    assert coordinates.candidates(R * N + C, [M, N])[0].exprs == (R, C)
    assert [c.how for c in coordinates.candidates((R + 1) * N - 1 - C, [M, N])] == ["split", "borrowed", "flat"]
    assert coordinates.candidates((R + 1) * N - 1 - C, [M, N])[1].exprs == (R, N - 1 - C)
    assert [c.how for c in coordinates.candidates(32 * R + C, [M, N])] == ["flat"]  # no stride in it
    assert [c.how for c in coordinates.candidates(256 * R + C, [M, sympy.Integer(64)])] == ["flat"]  # constant stride
    # [B, T, C] indexed `idx * C + c`: no term has B's stride T*C, so B and T are one dimension of
    # B*T elements, split again by floor and modulo; C, whose stride the index uses, is kept.
    merged = coordinates.candidates((R + C) * N + K, [K, M, N])
    assert [c.how for c in merged] == ["split", "merged", "flat"]
    assert merged[0].exprs == (0, R + C, K)
    assert merged[1].exprs == (sympy.floor((R + C) / M), sympy.Mod(R + C, M), K)
    assert coordinates.candidates(R * M * N + C, [K, M, N])[1].exprs == (R, sympy.floor(C / N), sympy.Mod(C, N))
