"""The SIMT emulator beyond elementwise (issue 3): shared memory and barriers, warps, atomics, and the
dynamic checks (races LC207/LC203, divergent barriers LC208, uninitialised reads LC210, index
overflow LC209), on hand-written kernels in the CUDA IR conventions."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from test_simt import GLOBAL_ID, buffer, launch, module, poisoned, run, size

BLOCK = ["256", "1", "1"]


def codes(result) -> list[str]:
    return [e.code for e in result.events]


def only(result, code: str):
    found = [e for e in result.events if e.code == code]
    assert len(found) == 1, result.events
    return found[0]


# --- shared memory and barriers -------------------------------------------------------------------

def reduction_ir(loop_barrier: bool = True) -> str:
    """out[block] = sum of the block's 256 elements of x: a shared-memory tree, halving the stride."""
    barrier = '"gpu.barrier"() : () -> () loc("r.cu":14:7)' if loop_barrier else ""
    kernel = f"""
  func.func @reduce(%x: memref<?xf32>, %out: memref<?xf32>, %n: i32) attributes {{gpu.kernel}} {{
    %s = memref.alloca() : memref<256xf32, 3>
    {GLOBAL_ID}
    %zero = arith.constant 0.0 : f32
    %ok = arith.cmpi slt, %i, %n : i32
    %v = scf.if %ok -> (f32) {{
      %l = memref.load %x[%idx] : memref<?xf32>
      scf.yield %l : f32
    }} else {{
      scf.yield %zero : f32
    }}
    memref.store %v, %s[%tx] : memref<256xf32, 3>
    "gpu.barrier"() : () -> ()
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    scf.for %k = %c0 to %c8 step %c1 {{
      %stride = arith.shrui %c128, %k : index
      %active = arith.cmpi ult, %tx, %stride : index
      scf.if %active {{
        %a = memref.load %s[%tx] : memref<256xf32, 3>
        %j = arith.addi %tx, %stride : index
        %b = memref.load %s[%j] : memref<256xf32, 3> loc("r.cu":12:20)
        %sum = arith.addf %a, %b : f32
        memref.store %sum, %s[%tx] : memref<256xf32, 3>
      }}
      {barrier}
    }}
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {{
      %r = memref.load %s[%c0] : memref<256xf32, 3>
      memref.store %r, %out[%bx] : memref<?xf32>
    }}
    func.return
  }}"""
    return module([buffer("x", "in"), buffer("out", "out"), size("n")],
                  [launch("reduce", ["floor((n + 255)/256)", "1", "1"], BLOCK, ["x", "out", "n"])], kernel)


def tree_sums(x: np.ndarray, blocks: int) -> np.ndarray:
    s = np.zeros(blocks * 256, np.float32)
    s[:len(x)] = x
    s = s.reshape(blocks, 256)
    stride = 128
    while stride:
        s[:, :stride] = s[:, :stride] + s[:, stride:2 * stride]
        stride //= 2
    return s[:, 0]


def test_shared_memory_tree_reduction():
    n = 1000
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    result = run(reduction_ir(), x=x, out=poisoned(4), n=n)
    assert result.events == [] and result.oob_total == 0
    np.testing.assert_array_equal(result.outputs["out"], tree_sums(x, 4))


def test_missing_barrier_is_a_shared_race():
    n = 1000
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    result = run(reduction_ir(loop_barrier=False), x=x, out=poisoned(4), n=n)
    # lockstep still computes the right sums: only the access record shows the bug
    np.testing.assert_array_equal(result.outputs["out"], tree_sums(x, 4))
    event = only(result, "LC207")
    # stride 64 after stride 128: thread 0 reads s[64], which thread 64 wrote in the previous step
    assert event.buffer == "s"
    assert event.where == {"block": 0, "thread": 0, "other_thread": 64, "index": 64}
    assert event.location == ("r.cu", 12, 20)
    assert "thread 0 reads it and thread 64 wrote it" in event.message


def test_barrier_under_thread_condition_is_divergent():
    kernel = f"""
  func.func @half(%out: memref<?xi32>) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %c16 = arith.constant 16 : i32
    %low = arith.cmpi ult, %t32, %c16 : i32
    scf.if %low {{
      "gpu.barrier"() : () -> () loc("b.cu":5:20)
    }}
    memref.store %i, %out[%idx] : memref<?xi32>
    func.return
  }}"""
    ir = module([buffer("out", "out", "i32")], [launch("half", ["8", "1", "1"], ["64", "1", "1"], ["out"])],
                kernel)
    result = run(ir, seed=5, out=poisoned(512, np.int32))
    event = only(result, "LC208")
    assert event.where == {"block": 0, "thread": 0, "other_thread": 16, "arrived": 16}
    assert event.location == ("b.cu", 5, 20)
    np.testing.assert_array_equal(result.outputs["out"], np.arange(512))


def test_block_uniform_barrier_condition_is_fine():
    kernel = f"""
  func.func @some(%out: memref<?xi32>) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %c1 = arith.constant 1 : i32
    %odd = arith.cmpi eq, %b32, %c1 : i32
    scf.if %odd {{
      "gpu.barrier"() : () -> ()
    }}
    memref.store %i, %out[%idx] : memref<?xi32>
    func.return
  }}"""
    ir = module([buffer("out", "out", "i32")], [launch("some", ["2", "1", "1"], ["64", "1", "1"], ["out"])],
                kernel)
    assert run(ir, out=poisoned(128, np.int32)).events == []


def test_uninitialised_shared_read():
    # only the first 128 threads fill the tile; all 256 read their own slot after the barrier
    kernel = f"""
  func.func @partial(%x: memref<?xf32>, %out: memref<?xf32>) attributes {{gpu.kernel}} {{
    %tile = memref.alloca() : memref<256xf32, 3>
    {GLOBAL_ID}
    %c128 = arith.constant 128 : index
    %low = arith.cmpi ult, %tx, %c128 : index
    scf.if %low {{
      %v = memref.load %x[%idx] : memref<?xf32>
      memref.store %v, %tile[%tx] : memref<256xf32, 3>
    }}
    "gpu.barrier"() : () -> ()
    %r = memref.load %tile[%tx] : memref<256xf32, 3> loc("u.cu":9:13)
    memref.store %r, %out[%idx] : memref<?xf32>
    func.return
  }}"""
    ir = module([buffer("x", "in"), buffer("out", "out")],
                [launch("partial", ["2", "1", "1"], BLOCK, ["x", "out"])], kernel)
    result = run(ir, x=np.ones(512, np.float32), out=poisoned(512))
    event = only(result, "LC210")
    assert (event.buffer, event.where) == ("tile", {"block": 0, "thread": 128, "index": 128})
    assert event.location == ("u.cu", 9, 13)
    assert "uninitialised shared array `tile[128]`" in event.message


def test_output_read_before_written():
    # out[i] += x[i] on an output the host never initialised
    kernel = f"""
  func.func @acc(%x: memref<?xf32>, %out: memref<?xf32>) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %o = memref.load %out[%idx] : memref<?xf32>
    %v = memref.load %x[%idx] : memref<?xf32>
    %s = arith.addf %o, %v : f32
    memref.store %s, %out[%idx] : memref<?xf32>
    func.return
  }}"""
    ir = module([buffer("x", "in"), buffer("out", "out")], [launch("acc", ["1", "1", "1"], BLOCK,
                                                                   ["x", "out"])], kernel)
    result = run(ir, x=np.ones(256, np.float32), out=poisoned(256))
    event = only(result, "LC210")
    assert (event.buffer, event.where) == ("out", {"block": 0, "thread": 0, "index": 0})
    # the same kernel on an in/out buffer (the host initialised it) is fine
    inout = ir.replace('name = "out", kind = "buffer", role = "out"',
                       'name = "out", kind = "buffer", role = "inout"')
    assert run(inout, x=np.ones(256, np.float32), out=np.zeros(256, np.float32)).events == []


def test_two_threads_storing_one_global_element():
    # out[i / 2] = i: threads 2k and 2k+1 both store to out[k]
    kernel = f"""
  func.func @clash(%out: memref<?xi32>) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %c2 = arith.constant 2 : index
    %half = arith.divui %idx, %c2 : index
    memref.store %i, %out[%half] : memref<?xi32>
    func.return
  }}"""
    ir = module([buffer("out", "out", "i32")], [launch("clash", ["2", "1", "1"], BLOCK, ["out"])], kernel)
    event = only(run(ir, out=poisoned(512, np.int32)), "LC203")
    w = event.where
    assert w["block"] == w["other_block"] and w["thread"] != w["other_thread"]
    assert w["index"] == w["thread"] // 2 + 128 * w["block"] == w["other_thread"] // 2 + 128 * w["block"]
    assert event.buffer == "out" and "without atomics" in event.message
    # each thread storing to its own element, twice, is fine
    own = ir.replace("memref.store %i, %out[%half]", "memref.store %i, %out[%idx] : memref<?xi32>\n"
                     "    memref.store %i, %out[%idx]")
    assert run(own, out=poisoned(512, np.int32)).events == []
    # out[threadIdx.x]: the same element from every block
    across = ir.replace("memref.store %i, %out[%half]", "memref.store %i, %out[%tx]")
    w = only(run(across, out=poisoned(512, np.int32)), "LC203").where
    assert w["block"] != w["other_block"] and w["thread"] == w["other_thread"] == w["index"]


def matmul_ir() -> str:
    """C = A @ B through 16x16 shared tiles (B's tile padded to 17 columns), one thread per element."""
    kernel = f"""
  func.func @matmul(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>, %M: i32, %N: i32, %K: i32)
      attributes {{gpu.kernel}} {{
    %as = memref.alloca() : memref<16x16xf32, 3>
    %bs = memref.alloca() : memref<16x17xf32, 3>
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %nn = arith.index_cast %N : i32 to index
    %kk = arith.index_cast %K : i32 to index
    %row0 = arith.muli %by, %c16 : index
    %row = arith.addi %row0, %ty : index
    %col0 = arith.muli %bx, %c16 : index
    %col = arith.addi %col0, %tx : index
    %zero = arith.constant 0.0 : f32
    %tiles = arith.divui %kk, %c16 : index
    %acc = scf.for %p = %c0 to %tiles step %c1 iter_args(%sum = %zero) -> (f32) {{
      %p16 = arith.muli %p, %c16 : index
      %arow = arith.muli %row, %kk : index
      %acol = arith.addi %p16, %tx : index
      %aat = arith.addi %arow, %acol : index
      %av = memref.load %a[%aat] : memref<?xf32>
      memref.store %av, %as[%ty, %tx] : memref<16x16xf32, 3>
      %brow = arith.addi %p16, %ty : index
      %brow_n = arith.muli %brow, %nn : index
      %bat = arith.addi %brow_n, %col : index
      %bv = memref.load %b[%bat] : memref<?xf32>
      memref.store %bv, %bs[%ty, %tx] : memref<16x17xf32, 3>
      "gpu.barrier"() : () -> ()
      %inner = scf.for %q = %c0 to %c16 step %c1 iter_args(%s = %sum) -> (f32) {{
        %x = memref.load %as[%ty, %q] : memref<16x16xf32, 3>
        %y = memref.load %bs[%q, %tx] : memref<16x17xf32, 3>
        %xy = arith.mulf %x, %y : f32
        %s2 = arith.addf %s, %xy : f32
        scf.yield %s2 : f32
      }}
      "gpu.barrier"() : () -> ()
      scf.yield %inner : f32
    }}
    %crow = arith.muli %row, %nn : index
    %cat = arith.addi %crow, %col : index
    memref.store %acc, %c[%cat] : memref<?xf32>
    func.return
  }}"""
    return module([buffer("a", "in"), buffer("b", "in"), buffer("c", "out"), size("M"), size("N"), size("K")],
                  [launch("matmul", ["floor(N/16)", "floor(M/16)", "1"], ["16", "16", "1"],
                          ["a", "b", "c", "M", "N", "K"])], kernel)


def test_tiled_matmul_with_2d_shared_tiles():
    m, n, k = 48, 32, 64
    ir = matmul_ir()
    rng = np.random.default_rng(3)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    result = run(ir, a=a.ravel(), b=b.ravel(), c=poisoned(m * n), M=m, N=n, K=k)
    assert result.events == [] and result.oob_total == 0
    expected = np.zeros((m, n), np.float32)
    for q in range(k):  # the kernel's order: fp32 products added one k at a time
        expected = expected + a[:, q:q + 1] * b[q:q + 1, :]
    np.testing.assert_array_equal(result.outputs["c"].reshape(m, n), expected)
    np.testing.assert_allclose(result.outputs["c"].reshape(m, n), a @ b, rtol=1e-4, atol=1e-4)
    # without the second barrier the next tile overwrites what slower threads still read
    racy = ir.replace('''      "gpu.barrier"() : () -> ()
      scf.yield %inner''', "      scf.yield %inner")
    events = run(racy, a=a.ravel(), b=b.ravel(), c=poisoned(m * n), M=m, N=n, K=k).events
    assert [(e.code, e.buffer) for e in events] == [("LC207", "as"), ("LC207", "bs")]
    # the next tile's store to as[0][0] by thread 0 races with the reads of row 0 by threads 0..15
    assert events[0].where == {"block": 0, "thread": 0, "other_thread": 15, "index": 0}


def dynamic_shared_ir(shared_bytes: str | None) -> str:
    kernel = f"""
  func.func @rev(%x: memref<?xf32>, %out: memref<?xf32>) attributes {{gpu.kernel}} {{
    %count = arith.constant 256 : index
    %s = memref.alloca(%count) : memref<?xf32, 3>
    {GLOBAL_ID}
    %v = memref.load %x[%idx] : memref<?xf32>
    memref.store %v, %s[%tx] : memref<?xf32, 3>
    "gpu.barrier"() : () -> ()
    %c255 = arith.constant 255 : index
    %mirror = arith.subi %c255, %tx : index
    %r = memref.load %s[%mirror] : memref<?xf32, 3>
    memref.store %r, %out[%idx] : memref<?xf32>
    func.return
  }}"""
    text = launch("rev", ["2", "1", "1"], BLOCK, ["x", "out"])
    if shared_bytes is not None:
        text = text.replace("args =", f'shared_bytes = "{shared_bytes}", args =')
    return module([buffer("x", "in"), buffer("out", "out"), size("n")], [text], kernel)


def test_extern_shared_memory_sized_by_the_launch():
    x = np.arange(512, dtype=np.float32)
    expected = x.reshape(2, 256)[:, ::-1].ravel()
    for sizing in (None, "n*4"):
        result = run(dynamic_shared_ir(sizing), x=x, out=poisoned(512), n=256)
        assert result.events == [] and result.oob_total == 0
        np.testing.assert_array_equal(result.outputs["out"], expected)
    small = run(dynamic_shared_ir("n*2"), x=x, out=poisoned(512), n=256)  # room for 128 floats only
    assert small.oob_total > 0 and small.oob[0].buffer == "s" and small.oob[0].extent == 128


def test_local_arrays_are_per_thread():
    kernel = f"""
  func.func @local(%out: memref<?xi32>) attributes {{gpu.kernel}} {{
    %a = memref.alloca() : memref<4xi32>
    {GLOBAL_ID}
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    memref.store %i, %a[%c0] : memref<4xi32>
    %r = memref.load %a[%c0] : memref<4xi32>
    %u = memref.load %a[%c3] : memref<4xi32>
    %s = arith.addi %r, %r : i32
    memref.store %s, %out[%idx] : memref<?xi32>
    func.return
  }}"""
    ir = module([buffer("out", "out", "i32")], [launch("local", ["2", "1", "1"], ["64", "1", "1"], ["out"])],
                kernel)
    result = run(ir, out=poisoned(128, np.int32))
    np.testing.assert_array_equal(result.outputs["out"], 2 * np.arange(128))
    assert codes(result) == ["LC210"] and result.events[0].where["index"] == 3


# --- warps ----------------------------------------------------------------------------------------

def warp_sum_ir(mask: int = -1, guard_lanes: int | None = None) -> str:
    """out[warp] = the sum of its lanes' x, by __shfl_down_sync with offsets 16, 8, 4, 2, 1."""
    body = """
      %lb = arith.constant 0 : index
      %ub = arith.constant 5 : index
      %one = arith.constant 1 : index
      %c16 = arith.constant 16 : i32
      %width = arith.constant 32 : i32
      %total = scf.for %k = %lb to %ub step %one iter_args(%acc = %v) -> (f32) {
        %k32 = arith.index_cast %k : index to i32
        %off = arith.shrui %c16, %k32 : i32
        %other = simt.shuffle {mode = "down"} %acc, %off, %mask, %width : f32 loc("w.cu":8:15)
        %acc2 = arith.addf %acc, %other : f32
        scf.yield %acc2 : f32
      }
      %c32 = arith.constant 32 : index
      %lane = arith.remui %tx, %c32 : index
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %lane, %c0 : index
      scf.if %first {
        %warp = arith.divui %idx, %c32 : index
        memref.store %total, %out[%warp] : memref<?xf32>
      }"""
    if guard_lanes is not None:
        body = f"""
      %c32g = arith.constant 32 : index
      %laneg = arith.remui %tx, %c32g : index
      %cg = arith.constant {guard_lanes} : index
      %in = arith.cmpi ult, %laneg, %cg : index
      scf.if %in {{{body}
      }}"""
    kernel = f"""
  func.func @warpsum(%x: memref<?xf32>, %out: memref<?xf32>) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %mask = arith.constant {mask} : i32
    %v = memref.load %x[%idx] : memref<?xf32>
    {body}
    func.return
  }}"""
    return module([buffer("x", "in"), buffer("out", "out")],
                  [launch("warpsum", ["2", "1", "1"], ["64", "1", "1"], ["x", "out"])], kernel)


def shuffle_down_sums(x: np.ndarray) -> np.ndarray:
    v = x.reshape(-1, 32).copy()
    for off in (16, 8, 4, 2, 1):
        shifted = np.concatenate([v[:, off:], v[:, 32 - off:]], axis=1)  # lanes past 31 keep their own
        v = v + shifted
    return v[:, 0]


def test_warp_shuffle_down_reduction():
    x = np.random.default_rng(5).standard_normal(128).astype(np.float32)
    result = run(warp_sum_ir(), x=x, out=poisoned(4))
    assert result.events == []
    np.testing.assert_array_equal(result.outputs["out"], shuffle_down_sums(x))
    np.testing.assert_allclose(result.outputs["out"], x.reshape(4, 32).sum(1), rtol=1e-5, atol=1e-5)


def test_shuffle_with_a_partial_mask():
    x = np.ones(128, np.float32)
    result = run(warp_sum_ir(mask=0xFFFF), x=x, out=poisoned(4))
    assert codes(result) == ["LC212", "LC212"]
    excluded, read = result.events
    assert excluded.where == {"block": 0, "thread": 16, "lane": 16, "mask": 0xFFFF}
    assert "leaves it out" in excluded.message
    assert read.message.startswith("shuffle reads lane 16 outside its mask 0x0000ffff")
    assert read.where == {"block": 0, "thread": 0, "lane": 0, "other_lane": 16, "mask": 0xFFFF}
    assert read.location == ("w.cu", 8, 15)
    # the unreadable lanes got their own value: lane 0 adds itself at offset 16, then sums 16 lanes
    np.testing.assert_array_equal(result.outputs["out"], np.full(4, 32, np.float32))


def test_shuffle_reading_inactive_lanes():
    x = np.ones(128, np.float32)
    result = run(warp_sum_ir(guard_lanes=16), x=x, out=poisoned(4))  # lanes 16..31 skip the loop
    messages = [e.message for e in result.events]
    assert codes(result) == ["LC212", "LC212"]
    assert "names lane 16, which does not execute it" in messages[0]
    assert messages[1].startswith("shuffle reads inactive lane 16")


def test_full_mask_in_a_partial_warp():
    # Blocks of 16 threads: the warp's lanes 16..31 do not exist, so the full mask names no thread
    # that fails to arrive (CUDA asks it of non-exited threads); the 16 lanes sum with offsets 8..1.
    kernel = f"""
  func.func @halfwarp(%x: memref<?xf32>, %out: memref<?xf32>) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %mask = arith.constant -1 : i32
    %v = memref.load %x[%idx] : memref<?xf32>
    %lb = arith.constant 1 : index
    %ub = arith.constant 5 : index
    %one = arith.constant 1 : index
    %c16 = arith.constant 16 : i32
    %width = arith.constant 32 : i32
    %total = scf.for %k = %lb to %ub step %one iter_args(%acc = %v) -> (f32) {{
      %k32 = arith.index_cast %k : index to i32
      %off = arith.shrui %c16, %k32 : i32
      %other = simt.shuffle {{mode = "xor"}} %acc, %off, %mask, %width : f32 loc("w.cu":8:15)
      %acc2 = arith.addf %acc, %other : f32
      scf.yield %acc2 : f32
    }}
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {{
      memref.store %total, %out[%bx] : memref<?xf32>
    }}
    func.return
  }}"""
    ir = module([buffer("x", "in"), buffer("out", "out")],
                [launch("halfwarp", ["2", "1", "1"], ["16", "1", "1"], ["x", "out"])], kernel)
    x = np.arange(32, dtype=np.float32)
    result = run(ir, x=x, out=poisoned(2))
    assert result.events == []
    np.testing.assert_array_equal(result.outputs["out"], x.reshape(2, 16).sum(1))


def test_votes_and_ballot():
    # ballot(x[i] > 0), any, all over full warps; the block's second warp has only 16 threads
    kernel = f"""
  func.func @vote(%x: memref<?xf32>, %ballot: memref<?xi32>, %any: memref<?xi32>, %all: memref<?xi32>)
      attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %full = arith.constant -1 : i32
    %v = memref.load %x[%idx] : memref<?xf32>
    %zero = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %v, %zero : f32
    %b = simt.vote {{mode = "ballot"}} %p, %full : i32
    %y = simt.vote {{mode = "any"}} %p, %full : i1
    %l = simt.vote {{mode = "all"}} %p, %full : i1
    %y32 = arith.extui %y : i1 to i32
    %l32 = arith.extui %l : i1 to i32
    memref.store %b, %ballot[%idx] : memref<?xi32>
    memref.store %y32, %any[%idx] : memref<?xi32>
    memref.store %l32, %all[%idx] : memref<?xi32>
    func.return
  }}"""
    ir = module([buffer("x", "in"), buffer("ballot", "out", "i32"), buffer("any", "out", "i32"),
                 buffer("all", "out", "i32")],
                [launch("vote", ["1", "1", "1"], ["96", "1", "1"], ["x", "ballot", "any", "all"])], kernel)
    x = np.full(96, -1.0, np.float32)
    x[[0, 3, 31]] = 1.0
    x[32:64] = 2.0  # warp 1: all positive
    result = run(ir, x=x, ballot=poisoned(96, np.int32), any=poisoned(96, np.int32),
                 all=poisoned(96, np.int32))
    assert result.events == []
    ballot = result.outputs["ballot"].view(np.uint32)
    assert set(ballot[:32]) == {(1 << 0) | (1 << 3) | (1 << 31)}
    assert set(ballot[32:64]) == {0xFFFFFFFF} and set(ballot[64:]) == {0}
    np.testing.assert_array_equal(result.outputs["any"], np.repeat([1, 1, 0], 32))
    np.testing.assert_array_equal(result.outputs["all"], np.repeat([0, 1, 0], 32))


# --- atomics --------------------------------------------------------------------------------------

def atomic_ir(kind: int, element: str, index: str, use_result: bool, value: str = "%v") -> str:
    store_old = f"memref.store %old, %olds[%idx] : memref<?x{element}>" if use_result else ""
    kernel = f"""
  func.func @atom(%x: memref<?x{element}>, %target: memref<?x{element}>, %olds: memref<?x{element}>,
                  %n: i32) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %ok = arith.cmpi slt, %i, %n : i32
    scf.if %ok {{
      %v = memref.load %x[%idx] : memref<?x{element}>
      {index}
      %old = "memref.atomic_rmw"({value}, %target, %at) <{{kind = {kind} : i64}}>
          : ({element}, memref<?x{element}>, index) -> {element}
      {store_old}
    }}
    func.return
  }}"""
    return module([buffer("x", "in", element), buffer("target", "inout", element),
                   buffer("olds", "out", element), size("n")],
                  [launch("atom", ["floor((n + 255)/256)", "1", "1"], BLOCK, ["x", "target", "olds", "n"])],
                  kernel)


BIN = "%at = arith.index_cast %v : i32 to index"
FIRST = "%at = arith.constant 0 : index"


@pytest.mark.parametrize("use_result", [False, True])
def test_atomic_add_histogram(use_result):
    n = 5000
    x = np.random.default_rng(7).integers(0, 16, n).astype(np.int32)
    one = "%one = arith.constant 1 : i32\n      "
    ir = atomic_ir(1, "i32", one + BIN, use_result, value="%one")
    result = run(ir, x=x, target=np.zeros(16, np.int32), olds=np.zeros(n, np.int32), n=n)
    assert result.events == []
    np.testing.assert_array_equal(result.outputs["target"], np.bincount(x, minlength=16))
    if use_result:  # each thread got a distinct ticket 0, 1, ... within its bin
        olds = result.outputs["olds"]
        for b in range(16):
            assert sorted(olds[x == b]) == list(range(int((x == b).sum())))


def test_atomic_float_add_depends_on_the_order():
    n = 4096
    x = (np.random.default_rng(8).standard_normal(n) * 10.0 ** np.random.default_rng(9).integers(-3, 4, n)) \
        .astype(np.float32)
    ir = atomic_ir(0, "f32", FIRST, use_result=True)
    totals = []
    for seed in (1, 2):
        result = run(ir, seed=seed, x=x, target=np.zeros(1, np.float32), olds=np.zeros(n, np.float32), n=n)
        total = result.outputs["target"][0]
        totals.append(total)
        np.testing.assert_allclose(total, x.astype(np.float64).sum(), rtol=1e-4)
        assert total.dtype == np.float32 and (result.outputs["olds"] == 0).sum() >= 1
    assert totals[0] != totals[1]
    again = run(ir, seed=1, x=x, target=np.zeros(1, np.float32), olds=np.zeros(n, np.float32), n=n)
    assert again.outputs["target"][0] == totals[0]


def test_atomic_float_add_is_a_sequence_of_fp32_adds():
    # the returned old values chain: old + x = the next thread's old, in fp32, ending at the total
    n = 300
    x = np.random.default_rng(10).standard_normal(n).astype(np.float32)
    ir = atomic_ir(0, "f32", FIRST, use_result=True)
    result = run(ir, seed=3, x=x, target=np.zeros(1, np.float32), olds=np.zeros(n, np.float32), n=n)
    olds = result.outputs["olds"]
    following = {float(o): float(np.float32(o + v)) for o, v in zip(olds, x)}
    current, steps = 0.0, 0
    while current in following and steps < n:
        current, steps = following[current], steps + 1
    assert steps == n and current == result.outputs["target"][0]


def test_half_atomic_add_rounds_every_step():
    # 2048 + 1 is not a half: each of the ten atomicAdds rounds back to 2048
    n = 10
    ir = atomic_ir(0, "f16", FIRST, use_result=False)
    result = run(ir, x=np.ones(n, np.float16), target=np.full(1, 2048, np.float16),
                 olds=np.zeros(n, np.float16), n=n)
    assert result.outputs["target"][0] == np.float16(2048)
    bf = atomic_ir(0, "bf16", FIRST, use_result=False)
    one = np.ones(n, ml_dtypes.bfloat16)
    result = run(bf, x=one, target=np.full(1, 256, ml_dtypes.bfloat16), olds=np.zeros(n, ml_dtypes.bfloat16),
                 n=n)
    assert float(result.outputs["target"][0]) == 256.0


@pytest.mark.parametrize(("kind", "fn"), [(4, np.max), (7, np.min), (2, None), (11, np.bitwise_or.reduce),
                                          (12, np.bitwise_and.reduce), (5, "umax"), (8, "umin")])
def test_atomic_kinds(kind, fn):
    n = 700
    x = np.random.default_rng(kind).integers(-1000, 1000, n).astype(np.int32)
    result = run(atomic_ir(kind, "i32", FIRST, use_result=True), x=x, target=np.full(1, 5, np.int32),
                 olds=np.zeros(n, np.int32), n=n)
    got = result.outputs["target"][0]
    values = np.r_[np.int32(5), x]
    if fn is None:  # exchange: the last thread's value stays; the others' old values are the rest
        olds = result.outputs["olds"]
        assert sorted(np.r_[olds, got]) == sorted(values)
    elif fn == "umax":
        assert got.view(np.uint32) == values.view(np.uint32).max()
    elif fn == "umin":
        assert got.view(np.uint32) == values.view(np.uint32).min()
    else:
        assert got == fn(values)


def test_atomic_cas_one_winner():
    # every thread tries atomicCAS(&lock, 0, tid + 1): one wins, the rest see its value
    kernel = f"""
  func.func @cas(%lock: memref<?xi32>, %olds: memref<?xi32>) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %c0 = arith.constant 0 : index
    %z = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %mine = arith.addi %i, %c1 : i32
    %old = simt.atomic_cas %lock[%c0], %z, %mine : memref<?xi32>, i32
    memref.store %old, %olds[%idx] : memref<?xi32>
    func.return
  }}"""
    ir = module([buffer("lock", "inout", "i32"), buffer("olds", "out", "i32")],
                [launch("cas", ["4", "1", "1"], BLOCK, ["lock", "olds"])], kernel)
    winners = set()
    for seed in range(3):
        result = run(ir, seed=seed, lock=np.zeros(1, np.int32), olds=poisoned(1024, np.int32))
        lock, olds = result.outputs["lock"][0], result.outputs["olds"]
        assert (olds == 0).sum() == 1 and olds[lock - 1] == 0
        assert (olds[olds != 0] == lock).all()
        winners.add(int(lock))
    assert len(winners) > 1


def test_atomics_on_shared_memory_then_uninitialised_use():
    # per-block histogram in shared memory; the tile is never zeroed: LC210 on the atomic
    kernel = f"""
  func.func @hist(%x: memref<?xi32>, %out: memref<?xi32>) attributes {{gpu.kernel}} {{
    %h = memref.alloca() : memref<8xi32, 3>
    {GLOBAL_ID}
    %c8 = arith.constant 8 : index
    %low = arith.cmpi ult, %tx, %c8 : index
    %zero = arith.constant 0 : i32
    scf.if %low {{
      memref.store %zero, %h[%tx] : memref<8xi32, 3>
    }}
    "gpu.barrier"() : () -> ()
    %v = memref.load %x[%idx] : memref<?xi32>
    %bin = arith.index_cast %v : i32 to index
    %one = arith.constant 1 : i32
    %old = "memref.atomic_rmw"(%one, %h, %bin) <{{kind = 1 : i64}}> : (i32, memref<8xi32, 3>, index) -> i32
    "gpu.barrier"() : () -> ()
    scf.if %low {{
      %c = memref.load %h[%tx] : memref<8xi32, 3>
      %b8 = arith.muli %bx, %c8 : index
      %at = arith.addi %b8, %tx : index
      memref.store %c, %out[%at] : memref<?xi32>
    }}
    func.return
  }}"""
    ir = module([buffer("x", "in", "i32"), buffer("out", "out", "i32")],
                [launch("hist", ["3", "1", "1"], BLOCK, ["x", "out"])], kernel)
    x = np.random.default_rng(12).integers(0, 8, 768).astype(np.int32)
    result = run(ir, x=x, out=poisoned(24, np.int32))
    assert result.events == []
    expected = np.stack([np.bincount(x[b * 256:(b + 1) * 256], minlength=8) for b in range(3)]).ravel()
    np.testing.assert_array_equal(result.outputs["out"], expected)
    unzeroed = ir.replace("memref.store %zero, %h[%tx] : memref<8xi32, 3>", "")
    event = only(run(unzeroed, x=x, out=poisoned(24, np.int32)), "LC210")
    assert event.buffer == "h"
    # atomics of many threads on one bin in one interval are no race; a plain read of the bins in the
    # same interval as other threads' atomics is (the barrier before the flush removed)
    unsynced = ir.replace(
        '%old = "memref.atomic_rmw"(%one, %h, %bin) <{kind = 1 : i64}> : (i32, memref<8xi32, 3>, index) -> i32\n'
        '    "gpu.barrier"() : () -> ()',
        '%old = "memref.atomic_rmw"(%one, %h, %bin) <{kind = 1 : i64}> : (i32, memref<8xi32, 3>, index) -> i32')
    assert unsynced != ir
    event = only(run(unsynced, x=x, out=poisoned(24, np.int32)), "LC207")
    assert event.buffer == "h" and "reads it and thread" in event.message and "updated it" in event.message


# --- precision, shadow mode, index overflow ------------------------------------------------------

def test_shadow_f64_computes_in_double():
    kernel = f"""
  func.func @third(%x: memref<?xf32>, %out: memref<?xf32>, %h: memref<?xf16>) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %v = memref.load %x[%idx] : memref<?xf32>
    %three = arith.constant 3.0 : f32
    %r = arith.divf %v, %three : f32
    memref.store %r, %out[%idx] : memref<?xf32>
    %rh = arith.truncf %r : f32 to f16
    memref.store %rh, %h[%idx] : memref<?xf16>
    func.return
  }}"""
    ir = module([buffer("x", "in"), buffer("out", "out"), buffer("h", "out", "f16")],
                [launch("third", ["1", "1", "1"], ["32", "1", "1"], ["x", "out", "h"])], kernel)
    x = np.arange(1, 33, dtype=np.float32)
    plain = run(ir, x=x, out=poisoned(32), h=poisoned(32, np.float16))
    shadow = run(ir, options={"shadow_f64": True}, x=x, out=poisoned(32), h=poisoned(32, np.float16))
    assert plain.outputs["out"].dtype == np.float32 and plain.outputs["h"].dtype == np.float16
    np.testing.assert_array_equal(plain.outputs["out"], x / np.float32(3))
    assert shadow.outputs["out"].dtype == np.float64 and shadow.outputs["h"].dtype == np.float64
    np.testing.assert_array_equal(shadow.outputs["out"], x.astype(np.float64) / 3)
    np.testing.assert_array_equal(shadow.outputs["h"], x.astype(np.float64) / 3)


def overflow_ir(feeds_index: bool) -> str:
    use = """
    %big = arith.index_cast %k : i32 to index
    %c4096 = arith.constant 4096 : index
    %at = arith.remsi %big, %c4096 : index
    %one = arith.constant 1 : i32
    memref.store %one, %out[%at] : memref<?xi32>""" if feeds_index else """
    memref.store %k, %out[%idx] : memref<?xi32>"""
    kernel = f"""
  func.func @scaled(%out: memref<?xi32>) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %stride = arith.constant 1048576 : i32
    %k = arith.muli %i, %stride : i32 loc("o.cu":3:17)
    {use}
    func.return
  }}"""
    return module([buffer("out", "inout", "i32")], [launch("scaled", ["9", "1", "1"], BLOCK, ["out"])],
                  kernel)


def test_i32_index_overflow():
    result = run(overflow_ir(feeds_index=True), out=np.zeros(4096, np.int32))
    event = only(result, "LC209")
    # i = 2048 is the first thread whose i * 2^20 passes INT_MAX (block 8, thread 0)
    assert event.where == {"block": 8, "thread": 0, "lhs": 2048, "rhs": 1048576}
    assert event.location == ("o.cu", 3, 17)
    assert "2048 * 1048576 = 2147483648" in event.message and "-2147483648" in event.message


def test_wrapping_value_that_is_not_an_index_is_not_reported():
    result = run(overflow_ir(feeds_index=False), out=np.zeros(2304, np.int32))
    assert "LC209" not in codes(result)
    i = np.arange(2304, dtype=np.int64)
    wrapped = ((i << 20) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(result.outputs["out"], wrapped)


def warp_synchronous_ir(sync: bool) -> str:
    """The last warp of a shared-memory reduction: 32 lanes halve the stride from 16, with
    __syncwarp between the steps (or without)."""
    syncwarp = "simt.syncwarp %full" if sync else ""
    kernel = f"""
  func.func @tail(%x: memref<?xf32>, %out: memref<?xf32>) attributes {{gpu.kernel}} {{
    %s = memref.alloca() : memref<32xf32, 3>
    {GLOBAL_ID}
    %full = arith.constant -1 : i32
    %v = memref.load %x[%idx] : memref<?xf32>
    memref.store %v, %s[%tx] : memref<32xf32, 3>
    {syncwarp}
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %c16 = arith.constant 16 : index
    scf.for %k = %c0 to %c5 step %c1 {{
      %stride = arith.shrui %c16, %k : index
      %low = arith.cmpi ult, %tx, %stride : index
      scf.if %low {{
        %a = memref.load %s[%tx] : memref<32xf32, 3>
        %j = arith.addi %tx, %stride : index
        %b = memref.load %s[%j] : memref<32xf32, 3>
        %sum = arith.addf %a, %b : f32
        memref.store %sum, %s[%tx] : memref<32xf32, 3>
      }}
      {syncwarp}
    }}
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {{
      %r = memref.load %s[%c0] : memref<32xf32, 3>
      memref.store %r, %out[%bx] : memref<?xf32>
    }}
    func.return
  }}"""
    return module([buffer("x", "in"), buffer("out", "out")],
                  [launch("tail", ["3", "1", "1"], ["32", "1", "1"], ["x", "out"])], kernel)


def test_syncwarp_orders_a_warp_synchronous_reduction():
    x = np.arange(96, dtype=np.float32)
    result = run(warp_synchronous_ir(sync=True), x=x, out=poisoned(3))
    assert result.events == []
    np.testing.assert_array_equal(result.outputs["out"], x.reshape(3, 32).sum(1))
    racy = run(warp_synchronous_ir(sync=False), x=x, out=poisoned(3))
    assert codes(racy) == ["LC207"]
    assert racy.events[0].where == {"block": 0, "thread": 0, "other_thread": 16, "index": 16}


@pytest.mark.parametrize(("element", "dtype"), [("bf16", ml_dtypes.bfloat16), ("f16", np.float16)])
def test_narrowing_rounds_to_nearest_even(element, dtype):
    # truncf f32 -> bf16 against round-to-nearest-even done on the bits; f16 against numpy's rounding
    # from float64 (exact for f32 inputs, so it rounds once)
    kernel = f"""
  func.func @narrow(%x: memref<?xf32>, %out: memref<?x{element}>) attributes {{gpu.kernel}} {{
    {GLOBAL_ID}
    %v = memref.load %x[%idx] : memref<?xf32>
    %r = arith.truncf %v : f32 to {element}
    memref.store %r, %out[%idx] : memref<?x{element}>
    func.return
  }}"""
    ir = module([buffer("x", "in"), buffer("out", "out", element)],
                [launch("narrow", ["16", "1", "1"], BLOCK, ["x", "out"])], kernel)
    rng = np.random.default_rng(13)
    u = rng.integers(0, 2 ** 32, 4096, dtype=np.uint64).astype(np.uint32)
    u[:64] = (u[:64] & 0xFFFF0000) | 0x8000  # exact ties for bf16
    x = u.view(np.float32)
    x = np.where(np.isnan(x), np.float32(1), x).astype(np.float32)
    got = run(ir, x=x, out=poisoned(4096, dtype)).outputs["out"]
    if element == "bf16":
        b = x.view(np.uint32).astype(np.uint64)
        rounded = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)  # RNE on the dropped half
        np.testing.assert_array_equal(got.view(np.uint16), rounded)
    else:
        with np.errstate(over="ignore"):
            expected = x.astype(np.float64).astype(np.float16)
        np.testing.assert_array_equal(got.view(np.uint16), expected.view(np.uint16))


def test_shared_memory_and_checks_survive_small_chunks():
    n = 1000
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    small = {"chunk_threads": 256}  # one block per chunk: every chunk allocates its own tile
    result = run(reduction_ir(), options=small, x=x, out=poisoned(4), n=n)
    assert result.events == []
    np.testing.assert_array_equal(result.outputs["out"], tree_sums(x, 4))
    racy = run(reduction_ir(loop_barrier=False), options=small, x=x, out=poisoned(4), n=n)
    assert codes(racy) == ["LC207"] and racy.events[0].where["other_thread"] == 64


def test_atomics_on_many_elements_apply_round_by_round():
    # 2000 threads, 1000 elements, two turns each: fp32 a + b does not depend on the order
    n = 2000
    x = np.random.default_rng(14).standard_normal(n).astype(np.float32)
    mod = "%c1000 = arith.constant 1000 : index\n      %at = arith.remui %idx, %c1000 : index"
    result = run(atomic_ir(0, "f32", mod, use_result=True), x=x, target=np.zeros(1000, np.float32),
                 olds=np.zeros(n, np.float32), n=n)
    np.testing.assert_array_equal(result.outputs["target"], x[:1000] + x[1000:])
    olds = result.outputs["olds"]
    first = olds[:1000] == 0  # the thread that went first saw 0; the other saw its value
    np.testing.assert_array_equal(np.where(first, olds[1000:], olds[:1000]),
                                  np.where(first, x[:1000], x[1000:]))
