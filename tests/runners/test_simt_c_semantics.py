"""The emulator's integer and float semantics against the host C compiler (C's rules are CUDA's).

One table of expressions: each has a C form, compiled with gcc (`-fwrapv`, as the GPU wraps signed
overflow, and without FP contraction) over every pair of interesting operands, and the same expression
as CUDA IR run by the emulator over the same pairs; the bits must agree (any NaN equals any NaN:
x86 and the GPU choose different default NaNs). Pairs C leaves undefined are filtered out.
"""

from __future__ import annotations

import itertools
import shutil
import subprocess
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest
from test_simt import GLOBAL_ID, buffer, launch, module, run

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

# C type, MLIR storage type, numpy dtype of the values
TYPES = {
    "i32": ("int32_t", "i32", np.int32),
    "u32": ("uint32_t", "i32", np.uint32),
    "i64": ("int64_t", "i64", np.int64),
    "f32": ("float", "f32", np.float32),
    "f64": ("double", "f64", np.float64),
    "f16": ("_Float16", "f16", np.float16),
}

I32 = [0, 1, -1, 2, -2, 3, 7, -7, 100, -100, 46341, -46341, 65536, 0x55555555, 0x7FFFFFFF, -0x80000000,
       123456789, -987654321]
SHIFTS = [0, 1, 3, 16, 31]
F32 = [0.0, -0.0, 1.0, -1.0, 0.1, -2.5, 2.5, 1.5, 3.0, 1e-30, 1e-45, 3.4e38, 1e10, -1e10, 2147483520.0,
       4294967040.0, 65519.0, 65520.0, 6.1e-5, 3e-8, np.inf, -np.inf, np.nan]
F64 = [0.1, 1 / 3, 1e300, 1e-300, 3.4028235677973366e38, 1.0000000596046448, -2.5, 1e-40, 16777217.0]
F16 = [0.0, 1.0, -2.5, 0.1, 65504.0, 6e-8, 1e-4, np.inf, np.nan]


@dataclass
class Case:
    name: str
    a: str  # operand types (keys of TYPES); b is None for unary expressions
    b: str | None
    result: str
    c: str  # C expression over a and b
    ir: str  # MLIR computing %r from %x (and %y)
    ok: Callable[[int | float, int | float], bool] = lambda a, b: True
    a_values: list | None = None
    b_values: list | None = None


def _no_trap(a, b):
    return b != 0 and not (a == -0x80000000 and b == -1)


def _binary(name, t, c, op, **kw):
    return Case(name, t, t, t, f"a {c} b", f"%r = arith.{op} %x, %y : {TYPES[t][1]}", **kw)


def _compare(name, t, c, pred, cmp="cmpi"):
    return Case(name, t, t, "i32", f"a {c} b",
                f"%c = arith.{cmp} {pred}, %x, %y : {TYPES[t][1]}\n    %r = arith.extui %c : i1 to i32")


CASES = [
    _binary("add", "i32", "+", "addi"),
    _binary("sub", "i32", "-", "subi"),
    _binary("mul", "i32", "*", "muli"),
    _binary("sdiv", "i32", "/", "divsi", ok=_no_trap),
    _binary("srem", "i32", "%", "remsi", ok=_no_trap),
    _binary("shl", "i32", "<<", "shli", b_values=SHIFTS),
    _binary("ashr", "i32", ">>", "shrsi", b_values=SHIFTS),
    _binary("and", "i32", "&", "andi"),
    _binary("or", "i32", "|", "ori"),
    _binary("xor", "i32", "^", "xori"),
    _compare("slt", "i32", "<", "slt"),
    _compare("sge", "i32", ">=", "sge"),
    _binary("umul", "u32", "*", "muli"),
    _binary("udiv", "u32", "/", "divui", ok=lambda a, b: b != 0),
    _binary("urem", "u32", "%", "remui", ok=lambda a, b: b != 0),
    _binary("lshr", "u32", ">>", "shrui", b_values=SHIFTS),
    _compare("ult", "u32", "<", "ult"),
    _binary("i64mul", "i64", "*", "muli", a_values=[x * 40503 for x in I32], b_values=I32),
    _binary("fadd", "f32", "+", "addf"),
    _binary("fsub", "f32", "-", "subf"),
    _binary("fmul", "f32", "*", "mulf"),
    _binary("fdiv", "f32", "/", "divf"),
    _binary("dadd", "f64", "+", "addf", a_values=F64, b_values=F64),
    _binary("ddiv", "f64", "/", "divf", a_values=F64, b_values=F64),
    _compare("folt", "f32", "<", "olt", cmp="cmpf"),
    _compare("fune", "f32", "!=", "une", cmp="cmpf"),
    Case("fneg", "f32", None, "f32", "-a", "%r = arith.negf %x : f32"),
    Case("sitofp", "i32", None, "f32", "(float)a", "%r = arith.sitofp %x : i32 to f32"),
    Case("uitofp", "u32", None, "f32", "(float)a", "%r = arith.uitofp %x : i32 to f32"),
    Case("fptosi", "f32", None, "i32", "(int32_t)a", "%r = arith.fptosi %x : f32 to i32",
         ok=lambda a, b: -2.0 ** 31 <= a < 2.0 ** 31),
    Case("fptoui", "f32", None, "u32", "(uint32_t)a", "%r = arith.fptoui %x : f32 to i32",
         ok=lambda a, b: -1.0 < a < 2.0 ** 32),
    Case("extf", "f32", None, "f64", "(double)a", "%r = arith.extf %x : f32 to f64"),
    Case("truncf", "f64", None, "f32", "(float)a", "%r = arith.truncf %x : f64 to f32", a_values=F64),
    Case("to_half", "f32", None, "f16", "(_Float16)a", "%r = arith.truncf %x : f32 to f16"),
    Case("from_half", "f16", None, "f32", "(float)a", "%r = arith.extf %x : f16 to f32", a_values=F16),
    Case("int_to_half", "i32", None, "f16", "(_Float16)a", "%r = arith.sitofp %x : i32 to f16"),
    Case("short", "i32", None, "i32", "(int32_t)(int16_t)a",
         "%s = arith.trunci %x : i32 to i16\n    %r = arith.extsi %s : i16 to i32"),
    Case("uchar", "i32", None, "i32", "(int32_t)(uint8_t)a",
         "%s = arith.trunci %x : i32 to i8\n    %r = arith.extui %s : i8 to i32"),
    Case("widen_mul", "i32", "i32", "i64", "(int64_t)a * (int64_t)b",
         "%wx = arith.extsi %x : i32 to i64\n    %wy = arith.extsi %y : i32 to i64\n"
         "    %r = arith.muli %wx, %wy : i64"),
    Case("narrow", "i64", None, "i32", "(int32_t)a", "%r = arith.trunci %x : i64 to i32",
         a_values=[x * 40503 for x in I32]),
]

_DEFAULTS = {"i32": I32, "u32": [x & 0xFFFFFFFF for x in I32], "i64": I32, "f32": F32, "f64": F64, "f16": F16}


def operands(case: Case) -> tuple[np.ndarray, np.ndarray | None]:
    a_values = case.a_values or _DEFAULTS[case.a]
    if case.b is None:
        pairs = [(a, 0) for a in a_values]
    else:
        b_values = case.b_values or _DEFAULTS[case.b]
        if case.b == "u32":
            b_values = [x & 0xFFFFFFFF for x in b_values]
        pairs = list(itertools.product(a_values, b_values))
    a_type = TYPES[case.a][2]
    pairs = [(a, b) for a, b in pairs if case.ok(a_type(a).item(), b)]
    a = np.array([p[0] for p in pairs]).astype(a_type)
    b = None if case.b is None else np.array([p[1] for p in pairs]).astype(TYPES[case.b][2])
    return a, b


def c_results() -> dict[str, np.ndarray]:
    """Run every case through gcc; each case's results as raw bits (uint64)."""
    lines = ["#include <stdint.h>", "#include <stdio.h>", "#include <string.h>", "int main(void) {"]
    for case in CASES:
        a, b = operands(case)
        ca = TYPES[case.a][0]
        lines.append("  {")
        lines.append(f"    static const uint64_t A[] = {{{', '.join(hex(int(v)) for v in _raw(a))}}};")
        if b is not None:
            lines.append(f"    static const uint64_t B[] = {{{', '.join(hex(int(v)) for v in _raw(b))}}};")
        lines.append(f"    for (int k = 0; k < {len(a)}; k++) {{")
        lines.append(f"      {ca} a; memcpy(&a, &A[k], sizeof a);")
        if b is not None:
            cb = TYPES[case.b][0]
            lines.append(f"      {cb} b; memcpy(&b, &B[k], sizeof b);")
        lines.append(f"      volatile {TYPES[case.result][0]} r = {case.c};")
        lines.append("      uint64_t u = 0; memcpy(&u, (const void *)&r, sizeof r);")
        lines.append(f'      printf("{case.name} %llx\\n", (unsigned long long)u);')
        lines.append("    }")
        lines.append("  }")
    lines += ["  return 0;", "}"]
    return lines


def _raw(x: np.ndarray) -> np.ndarray:
    """Bits of each value as uint64 (little-endian hosts: memcpy of the low bytes gives it back)."""
    return x.view(f"u{x.dtype.itemsize}").astype(np.uint64)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict[str, list[int]]:
    where = tmp_path_factory.mktemp("csem")
    source, binary = where / "sem.c", where / "sem"
    source.write_text("\n".join(c_results()) + "\n")
    built = subprocess.run(["gcc", "-std=c11", "-O0", "-fwrapv", "-ffp-contract=off", "-o", str(binary),
                            str(source)], capture_output=True, text=True)
    if built.returncode != 0:
        pytest.skip(f"gcc could not build the table: {built.stderr[-500:]}")
    out = subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout
    results: dict[str, list[int]] = {}
    for line in out.splitlines():
        name, bits = line.split()
        results.setdefault(name, []).append(int(bits, 16))
    return results


def emulated(case: Case) -> np.ndarray:
    a, b = operands(case)
    n = len(a)
    padded = -(-n // 32) * 32
    ta, tr = TYPES[case.a][1], TYPES[case.result][1]
    params = [buffer("a", "in", ta), buffer("out", "out", tr)]
    formals = f"%a: memref<?x{ta}>, %out: memref<?x{tr}>"
    loads = f"%x = memref.load %a[%idx] : memref<?x{ta}>"
    args = {"a": np.resize(a, padded)}
    if b is not None:
        tb = TYPES[case.b][1]
        params.insert(1, buffer("b", "in", tb))
        formals = f"%a: memref<?x{ta}>, %b: memref<?x{tb}>, %out: memref<?x{tr}>"
        loads += f"\n    %y = memref.load %b[%idx] : memref<?x{tb}>"
        args["b"] = np.resize(b, padded)
    kernel = f"""
  func.func @expr({formals}) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    {loads}
    {case.ir}
    memref.store %r, %out[%idx] : memref<?x{tr}>
    func.return
  }}"""
    names = [p.split('"')[1] for p in params]
    ir = module(params, [launch("expr", [str(padded // 32), "1", "1"], ["32", "1", "1"], names)], kernel)
    result = run(ir, out=np.zeros(padded, TYPES[case.result][2]), **args)
    assert result.error is None and result.oob_total == 0
    return result.outputs["out"][:n]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_emulator_agrees_with_gcc(case, compiled):
    expected = np.array(compiled[case.name], np.uint64)
    got = emulated(case)
    got_bits = _raw(got.astype(TYPES[case.result][2]))
    assert len(got_bits) == len(expected)
    same = got_bits == expected
    if got.dtype.kind == "f":  # any NaN matches any NaN
        c_values = expected.astype(f"u{got.dtype.itemsize}").view(got.dtype)
        same |= np.isnan(got) & np.isnan(c_values)
    a, b = operands(case)
    bad = [(a[k], None if b is None else b[k], got[k], hex(int(expected[k]))) for k in np.flatnonzero(~same)]
    assert not bad, f"{case.name}: (a, b, emulator, gcc bits) {bad[:5]}"
