"""Constructs of jax's own Pallas ops (`jax.experimental.pallas.ops`), each in a small kernel of ours
under inputs/constructs/: vmap over a pallas_call, refs indexed by index arrays, scalar prefetch,
scratch buffers, grids of more than three axes, fori_loops with traced bounds, what an entry does
around its pallas_call (reshapes, broadcasts, residuals, an epilogue), unit reshapes and `jnp.tile`
of masks and values, and Mosaic GPU / mesh kernels, which are said to be unsupported at their line."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
import sympy

os.environ.setdefault("JAX_PLATFORMS", "cpu")

from lowercheck import ir  # noqa: E402
from lowercheck.dialects.access import AccessOp, BufferOp, IndirectOp, UnmodelledOp  # noqa: E402
from lowercheck.dialects.kernel import BOUNDS_CHECKED, EntryOp, ParamOp  # noqa: E402
from lowercheck.errors import Unsupported  # noqa: E402
from lowercheck.frontends import language_of  # noqa: E402
from lowercheck.frontends import pallas as frontend  # noqa: E402
from lowercheck.frontends.base import Binding, TensorArg  # noqa: E402
from lowercheck.lowering import extract_accesses  # noqa: E402

INPUTS = Path(__file__).parent / "inputs" / "constructs"
F32 = "float32"


def lower(name: str, args: dict[str, tuple], sizes: dict[str, int], entry: str | None = None):
    binding = Binding(args={k: TensorArg(shape, dtype) for k, (shape, dtype) in args.items()}, sizes=sizes)
    module = frontend.lower(str(INPUTS / name), entry, binding)
    text = ir.print_ir(module)
    assert ir.print_ir(ir.parse(text)) == text  # every construct's IR round-trips
    return module


def access_ops(module) -> list[AccessOp | UnmodelledOp | BufferOp]:
    return [op for op in extract_accesses(module).walk() if isinstance(op, (AccessOp, UnmodelledOp, BufferOp))]


def accesses(module) -> dict[str, AccessOp]:
    """`kind buffer` -> the access (the last one of that kind and buffer)."""
    return {f"{op.kind.data} {op.buffer.data}": op for op in access_ops(module) if isinstance(op, AccessOp)}


def unmodelled(module) -> list[UnmodelledOp]:
    return [op for op in access_ops(module) if isinstance(op, UnmodelledOp)]


def strings(attr) -> list[str]:
    return [s.data for s in attr.data]


def entry_of(module) -> EntryOp:
    return next(op for op in module.ops if isinstance(op, EntryOp))


def test_vmap_over_a_gathering_row_kernel() -> None:
    """vmap adds the grid axis over rows; `x_ref.at[cols]` (cols = i * 128 + arange(128)) is an
    access at those columns, guarded by the user's mask, and the store names the lane it loaded at."""
    module = lower("vmap_gather.py", {"x": (("rows", "cols"), F32), "w": (("cols",), F32)},
                   {"rows": 4, "cols": 300})
    [launch] = entry_of(module).launches
    assert strings(launch.grid) == ["4", "1", "1"] and strings(launch.args) == ["x", "w", "return0"]
    assert not unmodelled(module)
    found = accesses(module)
    x, w, out = found["read x"], found["read w"], found["write return0"]
    [lane] = strings(x.lanes)
    assert strings(x.indices) == [f"300*GRID0 + {lane} + 128*SEQ0"]
    assert strings(w.indices) == [f"{lane} + 128*SEQ0"]
    assert strings(x.guard) == [f"{lane} + 128*SEQ0 < 300"]
    assert strings(out.indices) == strings(x.indices) and strings(out.lanes) == [lane]
    assert sorted(strings(out.sources)) == sorted([x.access_id.data, w.access_id.data])  # elementwise: same lanes


def test_two_index_arrays_broadcast_to_one_tile() -> None:
    """`x_ref.at[rows[:, None], cols[None, :]]`: rows and columns are the tile's two lanes."""
    module = lower("gather_2d.py", {"x": (("rows", "cols"), F32)}, {"rows": 40, "cols": 64})
    assert not unmodelled(module)
    read = accesses(module)["read x"]
    index = sympy.sympify(strings(read.indices)[0])
    lanes = {str(s) for s in index.free_symbols if str(s).startswith("LANE")}
    assert len(lanes) == 2
    steps = {lane: index.subs(sympy.Symbol(lane), sympy.Symbol(lane) + 1) - index for lane in lanes}
    assert sorted(steps.values()) == [1, 64]  # a column lane (stride 1) and a row lane (stride cols)
    assert "< 40" in strings(read.guard)[0] and "< 64" in strings(read.guard)[0]


def test_scalar_prefetch_operands_are_whole_arrays() -> None:
    """The prefetched arrays are the kernel's first arguments; the index_map's `order[i]` and the
    body's `scale[i]` read them at the program id; the window x is copied from depends on data,
    which the access IR says, not a guess: a TPU kernel (scalar prefetch) runs in TPU interpret
    mode, which checks bounds (`lowercheck.bounds_checked`), so the window is `access.indirect`."""
    module = lower("prefetch_blocks.py", {"order": (("blocks",), "int32"), "scale": (("blocks",), F32),
                                          "x": (("rows", "cols"), F32)}, {"blocks": 4, "rows": 32, "cols": 128})
    [launch] = entry_of(module).launches
    assert strings(launch.args) == ["order", "scale", "x", "return0"]
    found = accesses(module)
    assert strings(found["read order"].indices) == ["GRID0"]
    assert strings(found["read scale"].indices) == ["GRID0"]
    assert found["read scale"].access_id.data in strings(found["write return0"].sources)
    assert not unmodelled(module)
    [gathered] = [op for op in extract_accesses(module).walk() if isinstance(op, IndirectOp)]
    assert gathered.buffer.data == "x" and strings(gathered.sources) == [found["read order"].access_id.data]
    kernel = next(op for op in module.ops if not isinstance(op, EntryOp))
    assert BOUNDS_CHECKED in kernel.attributes


def test_scratch_buffer_is_one_per_program() -> None:
    """`pltpu.VMEM((16, 16))` is a shared buffer of 256 elements (one per program); the accumulator
    is zeroed under `program_id(2) == 0`, read, updated from both operands, and copied out."""
    module = lower("scratch_matmul.py", {"a": (("m", "k"), F32), "b": (("k", "n"), F32)}, {"m": 32, "k": 64, "n": 48})
    ops = access_ops(module)
    [buffer] = [op for op in ops if isinstance(op, BufferOp)]
    assert (buffer.space.data, strings(buffer.shape)) == ("shared", ["256"])
    scratch = [op for op in ops if isinstance(op, AccessOp) and op.buffer.data == buffer.buffer_name.data]
    assert [op.kind.data for op in scratch] == ["write", "read", "write", "read"]
    assert {op.space.data for op in scratch} == {"shared"}
    assert strings(scratch[0].guard) == ["Eq(GRID2, 0)"]
    update_sources = {s.split("/")[0] for s in strings(scratch[2].sources)}
    found = accesses(module)
    assert update_sources == {scratch[1].access_id.data, found["read a"].access_id.data, found["read b"].access_id.data}
    assert not unmodelled(module)


def test_a_four_axis_grid_is_folded_into_three() -> None:
    """grid (2, 3, 2, 2): the launch has (6, 2, 2) programs; program 0 of the launch is b * 3 + h,
    and every (b, h) still reads its own tile."""
    sizes = {"b": 2, "h": 3, "r": 16, "c": 256}
    module = lower("grid4.py", {"x": (("b", "h", "r", "c"), F32)}, sizes)
    [launch] = entry_of(module).launches
    assert strings(launch.grid) == ["6", "2", "2"]
    read = accesses(module)["read x"]
    index = sympy.sympify(strings(read.indices)[0])
    symbols = {str(s): s for s in index.free_symbols}
    lanes_at_zero = {s: 0 for name, s in symbols.items() if name.startswith("LANE")}
    for b, h, i, j in itertools.product(range(2), range(3), range(2), range(2)):
        at = index.subs({**lanes_at_zero, symbols["GRID0"]: b * 3 + h, symbols["GRID1"]: i, symbols["GRID2"]: j})
        assert at == ((b * 3 + h) * 16 + i * 8) * 256 + j * 128  # row-major start of tile (b, h, i, j)


def test_fori_loop_with_a_traced_bound_is_a_loop() -> None:
    """`fori_loop(0, program_id + 1, ...)` traces to a `while`; it is an scf.for whose trip count
    the access domain bounds by the program id."""
    module = lower("traced_loop.py", {"x": (("rows", "cols"), F32)}, {"rows": 32, "cols": 128})
    read = accesses(module)["read x"]
    assert "SEQ0 < GRID0 + 1" in strings(read.domain)
    assert not unmodelled(module)


def test_entry_reshapes_residuals_and_epilogue() -> None:
    """The operand reshaped from x is x; the result reshaped back is the returned array; x handed
    back and the sum the entry computes itself get no buffer."""
    module = lower("entry_plumbing.py", {"x": (("rows", "cols"), F32)}, {"rows": 16, "cols": 256})
    entry = entry_of(module)
    assert {p.pname: (p.role.data, strings(p.shape)) for p in entry.params} == {
        "x": ("in", ["rows", "cols"]), "return0": ("out", ["rows", "cols"])}
    [launch] = entry.launches
    assert strings(launch.args) == ["x", "return0"]
    found = accesses(module)
    assert strings(found["read x"].indices) == strings(found["write return0"].indices)


def test_unit_reshapes_keep_masks_and_tile_of_a_unit_axis_broadcasts() -> None:
    """`mask[:, None].reshape(-1)` is still the mask (a guard, not an unmodelled value), and
    `jnp.tile(row_max, (1, cols))` keeps each row's lanes (no element moves between lanes)."""
    module = lower("unit_reshape_tile.py", {"x": (("rows", "cols"), F32)}, {"rows": 10, "cols": 128})
    assert not unmodelled(module)
    found = accesses(module)
    stats = found["write return1"]
    [lane] = strings(stats.lanes)
    assert strings(stats.guard) == [f"{lane} < 10"]
    assert "*moved*" not in strings(found["write return0"].sources)


def test_mosaic_gpu_file_is_pallas_and_its_kernel_unsupported_at_the_call() -> None:
    path = str(INPUTS / "mosaic_gpu_kernel.py")
    assert language_of(path) == "pallas"  # `import jax.experimental.pallas.mosaic_gpu as plgpu`
    [entry] = frontend.entries(path)
    assert entry.name == "copy"
    with pytest.raises(Unsupported, match=r"`plgpu\.kernel` launches a kernel on a mesh") as raised:
        frontend.lower(path, None, Binding(args={"x": TensorArg(("n",), F32)}, sizes={"n": 256}))
    assert (raised.value.location.line, raised.value.location.column) == (8, 6)


def test_mesh_kernel_launched_by_a_helper_is_found_in_the_trace() -> None:
    with pytest.raises(Unsupported, match="a kernel launched on a mesh") as raised:
        lower("mesh_helper.py", {"x": (("n",), F32)}, {"n": 256}, entry="double_then_copy")
    assert raised.value.location is not None and raised.value.location.file.endswith("mesh_helper.py")


def test_an_operand_broadcast_by_the_entry_reads_its_source() -> None:
    """`jnp.broadcast_to(m[:, None], (rows, cols))` passed to the kernel is m read with stride 0
    along the columns: the read of m has the row lane only."""
    module = lower("broadcast_operand.py", {"x": (("rows", "cols"), F32), "m": (("rows",), F32)},
                   {"rows": 16, "cols": 256})
    [launch] = entry_of(module).launches
    assert strings(launch.args) == ["x", "m", "return0"]
    assert not unmodelled(module)
    found = accesses(module)
    x, m = found["read x"], found["read m"]
    row_lane, col_lane = strings(x.lanes)
    assert strings(x.indices) == [f"2048*GRID0 + 128*GRID1 + 256*{row_lane} + {col_lane}"]
    assert strings(m.indices) == [f"8*GRID0 + {row_lane}"]


def test_an_operand_the_entry_computes_is_a_temp_the_kernel_reads() -> None:
    """A pallas_call operand the entry computes (a sum, a transpose) is an array of its own, as a
    tensor a Triton wrapper computes is: `tempN`, with the computed array's shape, its reads
    bounds-checked like any other; the entry's own `x` is not touched by the kernel."""
    module = lower("computed_operand.py", {"x": (("rows", "cols"), F32)}, {"rows": 16, "cols": 32})
    [launch] = entry_of(module).launches
    assert strings(launch.args) == ["temp0", "temp1", "return0"]
    params = {op.param_name.data: op for op in module.walk() if isinstance(op, ParamOp)}
    assert params["temp0"].role.data == params["temp1"].role.data == "temp"
    assert strings(params["temp0"].shape) == ["cols", "rows"]  # x.T
    assert strings(params["temp1"].shape) == ["cols", "1"]  # the column sums, one per row of x.T
    assert not unmodelled(module)
    found = accesses(module)
    assert {"read temp0", "read temp1", "write return0"} <= set(found)
    assert "read x" not in found


def test_a_manual_dma_is_a_copy_and_its_semaphore_orders_it() -> None:
    """`pltpu.make_async_copy(x_hbm.at[pl.ds(i * 128, 128)], buf, sem).start()` / `.wait()` (jax's
    TPU paged attention): a read of the HBM window and a write of the VMEM scratch where it starts;
    the semaphore and the wait move no data; `jnp.clip` is a clamp. Its runs are checked in
    tests/cli (a diff against the reference)."""
    module = lower("manual_dma.py", {"x": (("n",), F32)}, {"n": 1024})
    assert unmodelled(module) == []
    found = {key: strings(op.indices)[0].replace("LANE3", "L").replace("LANE4", "L") for key, op in accesses(module).items()}
    assert found == {"read x": "128*GRID0 + L", "write shared0": "L", "read shared0": "L", "write return0": "128*GRID0 + L"}
    assert "arith.minimumf" in ir.print_ir(module) and "arith.maximumf" in ir.print_ir(module)


def test_threefry_rounds_are_jaxs_threefry() -> None:
    """The rounds the `threefry2x32` lowering emits, run on numpy's uint32 ops, give jax's own
    Threefry-2x32 bits (jax's TPU PRNG kernel, `threefry.py`, hashes its counters with it)."""
    import jax.numpy as jnp
    import numpy as np
    from jax._src.random.threefry2x32 import threefry_2x32

    from lowercheck.frontends.pallas.kernel import threefry_rounds

    key = np.array([0x12345678, 0x9ABCDEF0], np.uint32)
    hi, lo = np.arange(64, dtype=np.uint32) * 7, np.arange(64, dtype=np.uint32)
    with np.errstate(over="ignore"):
        mine = threefry_rounds(key[0], key[1], hi, lo, np.add, np.bitwise_xor,
                               np.left_shift, np.right_shift, np.bitwise_or, np.uint32)
    # jax hashes the first half of its counts as x1 and the second as x2
    theirs = threefry_2x32((jnp.uint32(key[0]), jnp.uint32(key[1])), jnp.concatenate([jnp.asarray(hi), jnp.asarray(lo)]))
    np.testing.assert_array_equal(np.concatenate(mine), np.asarray(theirs))


def test_a_while_loop_on_data_is_an_scf_while() -> None:
    """`lax.while_loop` whose condition reads data (not fori_loop's `counter < bound`) lowers as an
    `scf.while`; in a TPU kernel, whose runs check bounds, its trips are not enumerated and the
    access it indexes with its carried row is `access.indirect`, the rest fully modelled."""
    module = lower("while_on_data.py", {"limits": (("blocks",), F32), "x": (("rows", "cols"), F32)},
                   {"blocks": 4, "rows": 32, "cols": 128})
    assert "scf.while" in ir.print_ir(module)
    assert not unmodelled(module)
    [indexed] = [op for op in extract_accesses(module).walk() if isinstance(op, IndirectOp)]
    assert indexed.buffer.data == "x"
    found = accesses(module)
    assert strings(found["write return0"].indices) and "read limits" in found


def test_a_whole_ref_reshaped_reads_the_same_elements() -> None:
    """`bufs.at[slot].reshape(4, 256)` of a (2, 8, 128) scratch: the slot's 1024 elements, row-major,
    read as 4 rows of 256 (slot * 1024 + 256 * row + column); `jnp.sign` lowers lane by lane."""
    module = lower("reshaped_scratch.py", {"x": (("rows", "cols"), F32)}, {"rows": 32, "cols": 128})
    assert not unmodelled(module)
    reads = [op for op in access_ops(module) if isinstance(op, AccessOp) and op.kind.data == "read"
             and op.space.data != "global"]
    assert len(reads) == 1, [strings(op.indices) for op in reads]
    (index,) = strings(reads[0].indices)
    expr = sympy.sympify(index)
    lanes = sorted(expr.free_symbols - {s for s in expr.free_symbols if s.name.startswith("GRID")}, key=str)
    assert len(lanes) == 2 and {sympy.Poly(expr, *lanes).coeff_monomial(lane) for lane in lanes} == {1, 256}, index
    assert 1024 in [int(c) for c in sympy.Poly(expr).coeffs()] or "1024" in index, index
