"""The SIMT emulator against numpy, on small kernels written by hand in the CUDA IR conventions."""

from __future__ import annotations

import math
import re

import ml_dtypes
import numpy as np
import pytest

from lowercheck.errors import Unsupported
from lowercheck.runners import poison, simt
from lowercheck.runners.base import RunRequest
from lowercheck.runners.sandbox import run_isolated

# MLIR's custom form `gpu.thread_id x`; xDSL reads only the generic form, so the helper rewrites it.
_GPU_ID = re.compile(r"\bgpu\.(thread_id|block_id|block_dim|grid_dim) ([xyz])\b")


def buffer(name: str, role: str, element: str = "f32") -> str:
    return (f'kernel.param {{name = "{name}", kind = "buffer", role = "{role}", '
            f'element_type = {element}, shape = []}}')


def size(name: str, element: str = "i32") -> str:
    return (f'kernel.param {{name = "{name}", kind = "scalar", role = "size", '
            f'element_type = {element}, shape = []}}')


def scalar(name: str, element: str = "f32") -> str:
    return (f'kernel.param {{name = "{name}", kind = "scalar", role = "scalar", '
            f'element_type = {element}, shape = []}}')


def launch(callee: str, grid: list[str], block: list[str], args: list[str]) -> str:
    def strings(xs: list[str]) -> str:
        return ", ".join(f'"{x}"' for x in xs)
    return (f"kernel.launch @{callee} {{grid = [{strings(grid)}], block = [{strings(block)}], "
            f"args = [{strings(args)}]}}")


def module(params: list[str], launches: list[str], kernels: str, name: str = "entry") -> str:
    body = "\n    ".join(params + launches)
    kernels = _GPU_ID.sub(r'"gpu.\1"() <{dimension = #gpu<dim \2>}> : () -> index', kernels)
    return (f'builtin.module {{\n  kernel.entry @{name} attributes {{language = "cuda", file = "t.cu"}} {{\n'
            f"    {body}\n  }}\n{kernels}\n}}\n")


def run(ir: str, seed: int = 0, options: dict | None = None, **args):
    return simt.run(RunRequest(language="cuda", path="t.cu", entry="entry", ir=ir, args=args, seed=seed,
                               options=options or {}))


def poisoned(n: int, dtype=np.float32) -> np.ndarray:
    return poison.fill(np.empty(n, dtype))


# i = blockIdx.x * blockDim.x + threadIdx.x, in i32 as the front end writes it
GLOBAL_ID = """
    %tx = gpu.thread_id x
    %bx = gpu.block_id x
    %dx = gpu.block_dim x
    %t32 = arith.index_cast %tx : index to i32
    %b32 = arith.index_cast %bx : index to i32
    %d32 = arith.index_cast %dx : index to i32
    %bd32 = arith.muli %b32, %d32 : i32
    %i = arith.addi %bd32, %t32 : i32
    %idx = arith.index_cast %i : i32 to index"""

ONE_D = (["floor((n + 255)/256)", "1", "1"], ["256", "1", "1"])


def vadd(guard: bool = True) -> str:
    body = """
      %x = memref.load %a[%idx] : memref<?xf32>
      %y = memref.load %b[%idx] : memref<?xf32>
      %s = arith.addf %x, %y : f32
      memref.store %s, %c[%idx] : memref<?xf32>"""
    if guard:
        body = f"""
    %ok = arith.cmpi slt, %i, %n : i32
    scf.if %ok {{{body}
    }}"""
    kernel = f"""
  func.func @vadd(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>, %n: i32)
      attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    {body}
    func.return
  }}"""
    return module([buffer("a", "in"), buffer("b", "in"), buffer("c", "out"), size("n")],
                  [launch("vadd", *ONE_D, ["a", "b", "c", "n"])], kernel)


def test_vadd_with_guard():
    n = 1000
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    result = run(vadd(), a=a, b=b, c=poisoned(n), n=n)
    assert result.error is None and result.oob == [] and result.oob_total == 0
    np.testing.assert_array_equal(result.outputs["c"], a + b)
    assert result.outputs["c"].dtype == np.float32
    np.testing.assert_array_equal(result.outputs["a"], a)  # inputs come back too, unchanged


def test_vadd_without_guard_records_out_of_bounds():
    n = 1000  # 4 blocks of 256: threads 1000..1023 run past the end of a, b and c
    a, b = np.arange(n, dtype=np.float32), np.ones(n, np.float32)
    result = run(vadd(guard=False), a=a, b=b, c=poisoned(n), n=n)
    np.testing.assert_array_equal(result.outputs["c"], a + b)  # in-bounds lanes did their work
    assert result.oob_total == 3 * 24
    assert len(result.oob) == 20
    first = result.oob[0]
    assert (first.buffer, first.kind, first.index, first.extent) == ("a", "read", 1000, n)
    assert first.where == {"block": 3, "thread": 232}
    assert [e.index for e in result.oob] == list(range(1000, 1020))


def test_out_of_bounds_accesses_are_skipped():
    n = 1000
    a = np.arange(1, n + 1, dtype=np.float32)
    result = run(vadd(guard=False), options={"max_oob_events": 100}, a=a, b=a, c=poisoned(n), n=n)
    assert len(result.oob) == result.oob_total == 72
    writes = [e for e in result.oob if e.kind == "write"]
    assert [(e.buffer, e.index, e.extent) for e in writes] == [("c", i, n) for i in range(1000, 1024)]
    assert result.outputs["c"].shape == (n,)


def test_out_of_bounds_load_yields_zero_and_negative_index_is_caught():
    # out[i] = x[i + 24]: the last 24 threads read past the end. i * 1e9 wraps negative in i32.
    kernel = f"""
  func.func @shift(%x: memref<?xf32>, %out: memref<?xf32>, %n: i32) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %ok = arith.cmpi slt, %i, %n : i32
    scf.if %ok {{
      %c24 = arith.constant 24 : i32
      %j = arith.addi %i, %c24 : i32
      %jdx = arith.index_cast %j : i32 to index
      %v = memref.load %x[%jdx] : memref<?xf32>
      memref.store %v, %out[%idx] : memref<?xf32>
      %giga = arith.constant 1000000000 : i32
      %k = arith.muli %i, %giga : i32
      %kdx = arith.index_cast %k : i32 to index
      %w = memref.load %x[%kdx] : memref<?xf32>
    }}
    func.return
  }}"""
    ir = module([buffer("x", "in"), buffer("out", "out"), size("n")],
                [launch("shift", *ONE_D, ["x", "out", "n"])], kernel)
    n = 100
    x = np.arange(1, n + 1, dtype=np.float32)
    result = run(ir, options={"max_oob_events": 1000}, x=x, out=poisoned(n), n=n)
    np.testing.assert_array_equal(result.outputs["out"], np.concatenate([x[24:], np.zeros(24, np.float32)]))
    reads = sorted(e.index for e in result.oob)
    wrapped = [(i * 10**9 + 2**31) % 2**32 - 2**31 for i in range(1, n)]
    assert reads == sorted([i + 24 for i in range(76, n)] + wrapped)
    assert min(reads) < 0


def test_saxpy_stays_fp32():
    n = 777
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    alpha = 1.1  # not representable: the kernel sees float32(1.1)
    kernel = f"""
  func.func @saxpy(%n: i32, %alpha: f32, %x: memref<?xf32>, %y: memref<?xf32>) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %ok = arith.cmpi slt, %i, %n : i32
    scf.if %ok {{
      %xv = memref.load %x[%idx] : memref<?xf32>
      %yv = memref.load %y[%idx] : memref<?xf32>
      %ax = arith.mulf %alpha, %xv : f32
      %r = arith.addf %ax, %yv : f32
      memref.store %r, %y[%idx] : memref<?xf32>
    }}
    func.return
  }}"""
    ir = module([size("n"), scalar("alpha"), buffer("x", "in"), buffer("y", "inout")],
                [launch("saxpy", *ONE_D, ["n", "alpha", "x", "y"])], kernel)
    result = run(ir, n=n, alpha=alpha, x=x, y=y.copy())
    expected = np.float32(alpha) * x + y  # two roundings in fp32, no fma, no float64
    np.testing.assert_array_equal(result.outputs["y"], expected)


def test_transpose_2d_grid_and_block():
    h, w = 37, 50
    kernel = """
  func.func @transpose(%src: memref<?xf32>, %dst: memref<?xf32>, %h: i32, %w: i32) attributes {gpu.kernel} {
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %dx = gpu.block_dim x
    %dy = gpu.block_dim y
    %bxd = arith.muli %bx, %dx : index
    %byd = arith.muli %by, %dy : index
    %colx = arith.addi %bxd, %tx : index
    %rowx = arith.addi %byd, %ty : index
    %col = arith.index_cast %colx : index to i32
    %row = arith.index_cast %rowx : index to i32
    %in_w = arith.cmpi slt, %col, %w : i32
    %in_h = arith.cmpi slt, %row, %h : i32
    %ok = arith.andi %in_w, %in_h : i1
    scf.if %ok {
      %rw = arith.muli %row, %w : i32
      %s = arith.addi %rw, %col : i32
      %si = arith.index_cast %s : i32 to index
      %ch = arith.muli %col, %h : i32
      %d = arith.addi %ch, %row : i32
      %di = arith.index_cast %d : i32 to index
      %v = memref.load %src[%si] : memref<?xf32>
      memref.store %v, %dst[%di] : memref<?xf32>
    }
    func.return
  }"""
    ir = module([buffer("src", "in"), buffer("dst", "out"), size("h"), size("w")],
                [launch("transpose", ["floor((w + 15)/16)", "floor((h + 15)/16)", "1"], ["16", "16", "1"],
                        ["src", "dst", "h", "w"])], kernel)
    src = np.arange(h * w, dtype=np.float32)
    result = run(ir, src=src, dst=poisoned(h * w), h=h, w=w)
    assert result.oob == []
    np.testing.assert_array_equal(result.outputs["dst"], src.reshape(h, w).T.ravel())


GRID_STRIDE = f"""
  func.func @stride(%x: memref<?xf32>, %out: memref<?xf32>, %partial: memref<?xf32>, %n: i32)
      attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %gx = gpu.grid_dim x
    %stride = arith.muli %dx, %gx : index
    %end = arith.index_cast %n : i32 to index
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    %sum = scf.for %k = %idx to %end step %stride iter_args(%acc = %zero) -> (f32) {{
      %v = memref.load %x[%k] : memref<?xf32>
      %v2 = arith.mulf %v, %two : f32
      memref.store %v2, %out[%k] : memref<?xf32>
      %acc2 = arith.addf %acc, %v : f32
      scf.yield %acc2 : f32
    }}
    memref.store %sum, %partial[%idx] : memref<?xf32>
    func.return
  }}"""


def grid_stride_ir() -> str:
    return module([buffer("x", "in"), buffer("out", "out"), buffer("partial", "out"), size("n")],
                  [launch("stride", ["3", "1", "1"], ["64", "1", "1"], ["x", "out", "partial", "n"])],
                  GRID_STRIDE)


def test_grid_stride_loop_has_per_thread_trip_counts():
    n, threads = 1000, 192  # 1000 = 5*192 + 40: threads 0..39 run 6 times, the others 5
    x = np.random.default_rng(3).standard_normal(n, np.float32)
    result = run(grid_stride_ir(), x=x, out=poisoned(n), partial=poisoned(threads), n=n)
    np.testing.assert_array_equal(result.outputs["out"], x * np.float32(2))
    expected = np.zeros(threads, np.float32)
    for t in range(threads):
        for v in x[t::threads]:  # the kernel's order, in fp32
            expected[t] = np.float32(expected[t] + v)
    np.testing.assert_array_equal(result.outputs["partial"], expected)


def test_uniform_loop_row_sums():
    rows, k = 40, 33
    kernel = f"""
  func.func @rowsum(%x: memref<?xf32>, %out: memref<?xf32>, %rows: i32, %k: i32) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %ok = arith.cmpi slt, %i, %rows : i32
    scf.if %ok {{
      %lb = arith.constant 0 : index
      %one = arith.constant 1 : index
      %kk = arith.index_cast %k : i32 to index
      %zero = arith.constant 0.0 : f32
      %base = arith.muli %idx, %kk : index
      %s = scf.for %j = %lb to %kk step %one iter_args(%acc = %zero) -> (f32) {{
        %at = arith.addi %base, %j : index
        %v = memref.load %x[%at] : memref<?xf32>
        %acc2 = arith.addf %acc, %v : f32
        scf.yield %acc2 : f32
      }}
      memref.store %s, %out[%idx] : memref<?xf32>
    }}
    func.return
  }}"""
    ir = module([buffer("x", "in"), buffer("out", "out"), size("rows"), size("k")],
                [launch("rowsum", ["floor((rows + 31)/32)", "1", "1"], ["32", "1", "1"],
                        ["x", "out", "rows", "k"])], kernel)
    x = np.random.default_rng(4).standard_normal(rows * k, np.float32)
    result = run(ir, x=x, out=poisoned(rows), rows=rows, k=k)
    expected = np.zeros(rows, np.float32)
    for j in range(k):
        expected = expected + x.reshape(rows, k)[:, j]
    np.testing.assert_array_equal(result.outputs["out"], expected)


def test_uniform_if_takes_one_branch():
    kernel = f"""
  func.func @pick(%y: memref<?xi32>, %n: i32, %m: i32) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %ok = arith.cmpi slt, %i, %n : i32
    scf.if %ok {{
      %big = arith.cmpi sgt, %m, %n : i32
      %v = scf.if %big -> (i32) {{
        scf.yield %m : i32
      }} else {{
        scf.yield %i : i32
      }}
      memref.store %v, %y[%idx] : memref<?xi32>
    }}
    func.return
  }}"""
    ir = module([buffer("y", "out", "i32"), size("n"), size("m")], [launch("pick", *ONE_D, ["y", "n", "m"])],
                kernel)
    for m, expected in ((500, np.full(300, 500)), (5, np.arange(300))):
        result = run(ir, y=poisoned(300, np.int32), n=300, m=m)
        np.testing.assert_array_equal(result.outputs["y"], expected)


def test_nested_if_with_yields():
    kernel = f"""
  func.func @clip(%x: memref<?xf32>, %y: memref<?xf32>, %n: i32) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %ok = arith.cmpi slt, %i, %n : i32
    scf.if %ok {{
      %v = memref.load %x[%idx] : memref<?xf32>
      %zero = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      %slope = arith.constant 0.125 : f32
      %pos = arith.cmpf ogt, %v, %zero : f32
      %r = scf.if %pos -> (f32) {{
        %big = arith.cmpf ogt, %v, %one : f32
        %c = scf.if %big -> (f32) {{
          scf.yield %one : f32
        }} else {{
          scf.yield %v : f32
        }}
        scf.yield %c : f32
      }} else {{
        %s = arith.mulf %v, %slope : f32
        scf.yield %s : f32
      }}
      memref.store %r, %y[%idx] : memref<?xf32>
    }}
    func.return
  }}"""
    ir = module([buffer("x", "in"), buffer("y", "out"), size("n")], [launch("clip", *ONE_D, ["x", "y", "n"])],
                kernel)
    x = np.linspace(-3, 3, 301, dtype=np.float32)
    result = run(ir, x=x, y=poisoned(301), n=301)
    expected = np.where(x > 0, np.minimum(x, np.float32(1)), x * np.float32(0.125))
    np.testing.assert_array_equal(result.outputs["y"], expected)


def test_while_loop_collatz_steps():
    kernel = f"""
  func.func @collatz(%x: memref<?xi32>, %steps: memref<?xi32>, %n: i32) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %ok = arith.cmpi slt, %i, %n : i32
    scf.if %ok {{
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c3 = arith.constant 3 : i32
      %x0 = memref.load %x[%idx] : memref<?xi32>
      %last, %count = scf.while (%v = %x0, %s = %c0) : (i32, i32) -> (i32, i32) {{
        %go = arith.cmpi ne, %v, %c1 : i32
        scf.condition(%go) %v, %s : i32, i32
      }} do {{
      ^bb0(%v1: i32, %s1: i32):
        %r = arith.remsi %v1, %c2 : i32
        %odd = arith.cmpi ne, %r, %c0 : i32
        %next = scf.if %odd -> (i32) {{
          %m = arith.muli %v1, %c3 : i32
          %p = arith.addi %m, %c1 : i32
          scf.yield %p : i32
        }} else {{
          %h = arith.divsi %v1, %c2 : i32
          scf.yield %h : i32
        }}
        %s2 = arith.addi %s1, %c1 : i32
        scf.yield %next, %s2 : i32, i32
      }}
      memref.store %count, %steps[%idx] : memref<?xi32>
    }}
    func.return
  }}"""
    ir = module([buffer("x", "in", "i32"), buffer("steps", "out", "i32"), size("n")],
                [launch("collatz", *ONE_D, ["x", "steps", "n"])], kernel)
    x = np.arange(1, 301, dtype=np.int32)

    def steps(v: int) -> int:
        count = 0
        while v != 1:
            v = 3 * v + 1 if v % 2 else v // 2
            count += 1
        return count

    result = run(ir, x=x, steps=poisoned(300, np.int32), n=300)
    np.testing.assert_array_equal(result.outputs["steps"], [steps(int(v)) for v in x])


def elementwise_ir(lines: str, inputs: dict[str, str], outputs: dict[str, str]) -> str:
    """A guarded kernel: loads every input at i, runs `lines`, stores %<name> to every output."""
    names = list(inputs) + list(outputs)
    formals = ", ".join(f"%{k}_buf: memref<?x{t}>" for k, t in {**inputs, **outputs}.items())
    loads = "\n".join(f"      %{k} = memref.load %{k}_buf[%idx] : memref<?x{t}>" for k, t in inputs.items())
    stores = "\n".join(f"      memref.store %{k}, %{k}_buf[%idx] : memref<?x{t}>" for k, t in outputs.items())
    kernel = f"""
  func.func @ew({formals}, %n: i32) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %ok = arith.cmpi slt, %i, %n : i32
    scf.if %ok {{
{loads}
{lines}
{stores}
    }}
    func.return
  }}"""
    params = [buffer(k, "in", t) for k, t in inputs.items()]
    params += [buffer(k, "out", t) for k, t in outputs.items()]
    return module(params + [size("n")], [launch("ew", *ONE_D, names + ["n"])], kernel)


def run_elementwise(lines: str, inputs: dict[str, tuple[str, np.ndarray]], outputs: dict[str, str]):
    n = len(next(iter(inputs.values()))[1])
    ir = elementwise_ir(lines, {k: t for k, (t, _) in inputs.items()}, outputs)
    dtypes = {"f32": np.float32, "i32": np.int32, "f16": np.float16, "bf16": ml_dtypes.bfloat16,
              "i8": np.int8, "i16": np.int16, "i64": np.int64}
    args = {k: v for k, (_, v) in inputs.items()}
    args.update({k: poisoned(n, dtypes[t]) for k, t in outputs.items()})
    result = run(ir, n=n, **args)
    assert result.error is None and result.oob == []
    return result.outputs


I32_EDGES = np.array([0, 1, -1, 7, -7, 100, -100, 2**31 - 1, -2**31, 12345678, -87654321], np.int32)
I32_DIVISORS = np.array([3, 2, 2, -2, 2, 7, 7, 16, 16, -5, 1000], np.int32)


def test_unsigned_ops_read_the_bits_unsigned():
    a, b = I32_EDGES, I32_DIVISORS
    out = run_elementwise("""
      %q = arith.divui %a, %b : i32
      %r = arith.remui %a, %b : i32
      %three = arith.constant 3 : i32
      %sh = arith.shrui %a, %three : i32
      %ltb = arith.cmpi ult, %a, %b : i32
      %lt = arith.extui %ltb : i1 to i32
      %mx = arith.maxui %a, %b : i32
      %f = arith.uitofp %a : i32 to f32
      %w64 = arith.extui %a : i32 to i64""",
                          {"a": ("i32", a), "b": ("i32", b)},
                          {"q": "i32", "r": "i32", "sh": "i32", "lt": "i32", "mx": "i32", "f": "f32",
                           "w64": "i64"})
    ua, ub = a.view(np.uint32), b.view(np.uint32)
    np.testing.assert_array_equal(out["q"].view(np.uint32), ua // ub)
    np.testing.assert_array_equal(out["r"].view(np.uint32), ua % ub)
    np.testing.assert_array_equal(out["sh"].view(np.uint32), ua >> 3)
    np.testing.assert_array_equal(out["lt"], (ua < ub).astype(np.int32))
    np.testing.assert_array_equal(out["mx"].view(np.uint32), np.maximum(ua, ub))
    np.testing.assert_array_equal(out["f"], ua.astype(np.float32))
    np.testing.assert_array_equal(out["w64"], ua.astype(np.int64))


def test_signed_division_truncates_like_c():
    a, b = I32_EDGES, I32_DIVISORS
    out = run_elementwise("""
      %q = arith.divsi %a, %b : i32
      %r = arith.remsi %a, %b : i32
      %fl = arith.floordivsi %a, %b : i32
      %ce = arith.ceildivsi %a, %b : i32
      %three = arith.constant 3 : i32
      %sh = arith.shrsi %a, %three : i32
      %w64 = arith.extsi %a : i32 to i64""",
                          {"a": ("i32", a), "b": ("i32", b)},
                          {"q": "i32", "r": "i32", "fl": "i32", "ce": "i32", "sh": "i32", "w64": "i64"})
    trunc = [int(x / y) if abs(x) < 2**24 else int(math.copysign(abs(int(x)) // abs(int(y)), x * y))
             for x, y in zip(a.tolist(), b.tolist())]
    np.testing.assert_array_equal(out["q"], trunc)
    np.testing.assert_array_equal(out["r"], [x - q * y for x, y, q in zip(a.tolist(), b.tolist(), trunc)])
    np.testing.assert_array_equal(out["fl"], a // b)
    np.testing.assert_array_equal(out["ce"], -(-a.astype(np.int64) // b))
    np.testing.assert_array_equal(out["sh"], a >> 3)
    np.testing.assert_array_equal(out["w64"], a.astype(np.int64))


def test_i32_arithmetic_wraps():
    a = np.array([0, 1, 40000, 2**31 - 1, -2**31, 123456789], np.int32)
    out = run_elementwise("""
      %k = arith.constant 65537 : i32
      %big = arith.constant 2147483647 : i32
      %m = arith.muli %a, %k : i32
      %s = arith.addi %m, %big : i32
      %n8 = arith.trunci %a : i32 to i8""",
                          {"a": ("i32", a)}, {"s": "i32", "n8": "i8"})
    wide = (a.astype(np.int64) * 65537 + (2**31 - 1)) & 0xFFFFFFFF
    np.testing.assert_array_equal(out["s"], wide.astype(np.uint32).view(np.int32))
    np.testing.assert_array_equal(out["n8"], a.astype(np.int8))


def test_float_to_int_saturates_and_nan_is_zero():
    x = np.array([1e10, -1e10, np.nan, -2.7, 2.7, 16777217, -0.5], np.float32)
    k = np.array([16777217, -3, 0, 5, 2**31 - 1, -2**31, 1], np.int32)
    out = run_elementwise("""
      %s = arith.fptosi %x : f32 to i32
      %u = arith.fptoui %x : f32 to i32
      %f = arith.sitofp %k : i32 to f32""",
                          {"x": ("f32", x), "k": ("i32", k)}, {"s": "i32", "u": "i32", "f": "f32"})
    np.testing.assert_array_equal(out["s"], [2**31 - 1, -2**31, 0, -2, 2, 16777216, 0])
    np.testing.assert_array_equal(out["u"].view(np.uint32), [2**32 - 1, 0, 0, 0, 2, 16777216, 0])
    np.testing.assert_array_equal(out["f"], k.astype(np.float32))


def test_half_and_bfloat16_round_at_their_precision():
    # 1 + 2**-11 is a tie in f16 (rounds to 1); 1 + 2**-8 a tie in bf16; plus random values.
    x = np.concatenate([np.array([1.0, 1.0, 3.0, 65504.0], np.float32),
                        np.random.default_rng(5).standard_normal(60, np.float32)])
    y = np.concatenate([np.array([2**-11, 2**-8, 2**-10 + 2**-20, 64.0], np.float32),
                        np.random.default_rng(6).standard_normal(60, np.float32)])
    out = run_elementwise("""
      %xh = arith.truncf %x : f32 to f16
      %yh = arith.truncf %y : f32 to f16
      %sh = arith.addf %xh, %yh : f16
      %ph = arith.mulf %sh, %xh : f16
      %h = arith.extf %ph : f16 to f32
      %xb = arith.truncf %x : f32 to bf16
      %yb = arith.truncf %y : f32 to bf16
      %sb = arith.addf %xb, %yb : bf16
      %pb = arith.mulf %sb, %xb : bf16
      %b = arith.extf %pb : bf16 to f32""",
                          {"x": ("f32", x), "y": ("f32", y)}, {"h": "f32", "b": "f32"})
    xh, yh = x.astype(np.float16), y.astype(np.float16)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out["h"], ((xh + yh) * xh).astype(np.float32))
    bf = ml_dtypes.bfloat16
    xb, yb = x.astype(bf), y.astype(bf)
    np.testing.assert_array_equal(out["b"], ((xb + yb) * xb).astype(np.float32))
    assert out["h"][0] == 1.0 and out["b"][1] == 1.0  # the ties rounded to even
    assert np.isinf(out["h"][3])  # 65504 + 64 overflows f16


def test_half_buffers():
    x = np.random.default_rng(7).standard_normal(100).astype(np.float16)
    y = np.random.default_rng(8).standard_normal(100).astype(ml_dtypes.bfloat16)
    out = run_elementwise("""
      %h = arith.mulf %x, %x : f16
      %b = arith.addf %y, %y : bf16""",
                          {"x": ("f16", x), "y": ("bf16", y)}, {"h": "f16", "b": "bf16"})
    assert out["h"].dtype == np.float16 and out["b"].dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(out["h"], x * x)
    np.testing.assert_array_equal(out["b"].astype(np.float32), (y + y).astype(np.float32))


UNARY = {
    "math.exp": np.exp, "math.log": np.log, "math.sqrt": np.sqrt, "math.rsqrt": lambda v: 1 / np.sqrt(v),
    "math.tanh": np.tanh, "math.erf": np.vectorize(math.erf), "math.absf": np.abs, "math.floor": np.floor,
    "math.ceil": np.ceil, "math.sin": np.sin, "math.cos": np.cos, "arith.negf": np.negative,
    "math.round": lambda v: np.where(v >= 0, np.floor(v + 0.5), np.ceil(v - 0.5)),
}


@pytest.mark.parametrize("op", sorted(UNARY))
def test_math_unary_in_fp32(op):
    x = np.concatenate([np.array([0.5, 1.5, 2.5, -2.5, 0.49999997], np.float32),
                        np.random.default_rng(9).uniform(0.01, 4, 95).astype(np.float32)])
    out = run_elementwise(f"      %r = {op} %x : f32", {"x": ("f32", x)}, {"r": "f32"})
    assert out["r"].dtype == np.float32
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = UNARY[op](x.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(out["r"], expected, rtol=4e-7, atol=1e-30)


def test_binary_and_ternary_math():
    rng = np.random.default_rng(10)
    x, y, z = (rng.uniform(0.1, 3, 50).astype(np.float32) for _ in range(3))
    x[0], y[1] = np.nan, np.nan
    out = run_elementwise("""
      %p = math.powf %x, %y : f32
      %f = math.fma %x, %y, %z : f32
      %mx = arith.maximumf %x, %y : f32
      %mn = arith.minimumf %x, %y : f32
      %nx = arith.maxnumf %x, %y : f32""",
                          {"x": ("f32", x), "y": ("f32", y), "z": ("f32", z)},
                          {"p": "f32", "f": "f32", "mx": "f32", "mn": "f32", "nx": "f32"})
    x64, y64, z64 = (v.astype(np.float64) for v in (x, y, z))
    np.testing.assert_allclose(out["p"], np.power(x64, y64).astype(np.float32), rtol=4e-7)
    np.testing.assert_array_equal(out["f"], (x64 * y64 + z64).astype(np.float32))  # rounded once
    np.testing.assert_array_equal(out["mx"], np.maximum(x, y))
    assert np.isnan(out["mx"][0]) and np.isnan(out["mn"][1])  # maximumf/minimumf propagate NaN
    assert out["nx"][0] == y[0] and out["nx"][1] == x[1]  # maxnumf (fmaxf) ignores it


def racy_ir() -> str:
    kernel = """
  func.func @race(%out: memref<?xi32>) attributes {gpu.kernel} {
    %bx = gpu.block_id x
    %b = arith.index_cast %bx : index to i32
    %zero = arith.constant 0 : index
    memref.store %b, %out[%zero] : memref<?xi32>
    func.return
  }"""
    return module([buffer("out", "out", "i32")],
                  [launch("race", ["64", "1", "1"], ["32", "1", "1"], ["out"])], kernel)


def test_block_order_depends_on_the_seed():
    winners = {int(run(racy_ir(), seed=seed, out=np.zeros(1, np.int32)).outputs["out"][0])
               for seed in range(8)}
    assert len(winners) > 1
    assert winners <= set(range(64))
    again = {int(run(racy_ir(), seed=3, out=np.zeros(1, np.int32)).outputs["out"][0]) for _ in range(3)}
    assert len(again) == 1  # one seed, one order


def test_last_block_in_order_wins_across_chunks():
    # one block per chunk: the winner is still a block id, and the same for the same seed
    small = {"chunk_threads": 32}
    a = run(racy_ir(), seed=5, options=small, out=np.zeros(1, np.int32)).outputs["out"][0]
    b = run(racy_ir(), seed=5, out=np.zeros(1, np.int32)).outputs["out"][0]
    assert a == b


def test_buffers_keep_the_callers_integer_dtype():
    result = run(racy_ir(), out=np.zeros(1, np.uint32))
    assert result.outputs["out"].dtype == np.uint32


def test_kernel_reads_a_buffer_through_its_own_pointer_type():
    # the entry hands over bytes, the kernel reads them as floats: (float*)raw
    kernel = f"""
  func.func @bytes(%raw: memref<?xf32>, %out: memref<?xf32>, %n: i32) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %ok = arith.cmpi slt, %i, %n : i32
    scf.if %ok {{
      %v = memref.load %raw[%idx] : memref<?xf32>
      memref.store %v, %out[%idx] : memref<?xf32>
    }}
    func.return
  }}"""
    ir = module([buffer("raw", "in", "i8"), buffer("out", "out"), size("n")],
                [launch("bytes", *ONE_D, ["raw", "out", "n"])], kernel)
    values = np.array([1.5, -2.0, 3.25, 1e-3], np.float32)
    result = run(ir, raw=values.view(np.int8), out=poisoned(4), n=4)
    np.testing.assert_array_equal(result.outputs["out"], values)
    assert result.outputs["raw"].dtype == np.int8


def test_small_chunks_give_the_same_results():
    n = 1000
    x = np.random.default_rng(11).standard_normal(n, np.float32)
    args = dict(x=x, out=poisoned(n), partial=poisoned(192), n=n)
    whole = run(grid_stride_ir(), **args)
    chunked = run(grid_stride_ir(), options={"chunk_threads": 64}, **args)
    for name in ("out", "partial"):
        np.testing.assert_array_equal(whole.outputs[name], chunked.outputs[name])


def test_barrier_orders_global_memory_within_a_block():
    # each thread writes its id, syncs, then reads its neighbour's slot (reversed within the block)
    kernel = f"""
  func.func @swap(%buf: memref<?xi32>, %out: memref<?xi32>) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    memref.store %i, %buf[%idx] : memref<?xi32>
    "gpu.barrier"() : () -> ()
    %last = arith.constant 31 : index
    %base = arith.subi %idx, %tx : index
    %mirror = arith.subi %last, %tx : index
    %other = arith.addi %base, %mirror : index
    %v = memref.load %buf[%other] : memref<?xi32>
    memref.store %v, %out[%idx] : memref<?xi32>
    func.return
  }}"""
    ir = module([buffer("buf", "temp", "i32"), buffer("out", "out", "i32")],
                [launch("swap", ["4", "1", "1"], ["32", "1", "1"], ["buf", "out"])], kernel)
    result = run(ir, buf=poisoned(128, np.int32), out=poisoned(128, np.int32))
    np.testing.assert_array_equal(result.outputs["out"], np.arange(128).reshape(4, 32)[:, ::-1].ravel())


def test_launches_run_in_order_and_temps_are_allocated():
    scale = f"""
  func.func @scale(%x: memref<?xf32>, %tmp: memref<?xf32>, %n: i32) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %ok = arith.cmpi slt, %i, %n : i32
    scf.if %ok {{
      %v = memref.load %x[%idx] : memref<?xf32>
      %two = arith.constant 2.0 : f32
      %r = arith.mulf %v, %two : f32
      memref.store %r, %tmp[%idx] : memref<?xf32>
    }}
    func.return
  }}"""
    inc = scale.replace("@scale", "@inc").replace("%two = arith.constant 2.0", "%two = arith.constant 1.0") \
        .replace("arith.mulf", "arith.addf")
    temp = 'kernel.param {name = "tmp", kind = "buffer", role = "temp", element_type = f32, shape = ["n"]}'
    ir = module([buffer("x", "in"), temp, buffer("out", "out"), size("n")],
                [launch("scale", *ONE_D, ["x", "tmp", "n"]), launch("inc", *ONE_D, ["tmp", "out", "n"])],
                scale + inc)
    x = np.arange(300, dtype=np.float32)
    result = run(ir, x=x, out=poisoned(300), n=300)
    assert "tmp" not in result.outputs
    np.testing.assert_array_equal(result.outputs["out"], x * 2 + 1)


def test_unsupported_op_names_itself_and_its_line():
    kernel = """
  func.func @local(%out: memref<?xf32>) attributes {gpu.kernel} {
    %m = memref.alloc() : memref<4xf32> loc("t.cu":7:5)
    func.return
  }"""
    ir = module([buffer("out", "out")], [launch("local", ["1", "1", "1"], ["32", "1", "1"], ["out"])], kernel)
    with pytest.raises(Unsupported, match="memref.alloc` at t.cu:7:5"):
        run(ir, out=np.zeros(4, np.float32))


def test_vadd_runs_isolated():
    n = 500
    a, b = np.arange(n, dtype=np.float32), np.full(n, 0.25, np.float32)
    request = RunRequest(language="cuda", path="t.cu", entry="entry", ir=vadd(),
                         args={"a": a, "b": b, "c": poisoned(n), "n": n})
    result = run_isolated(request, timeout_s=120)
    assert result.error is None, result.error
    np.testing.assert_array_equal(result.outputs["c"], a + b)
