"""The SIMT emulator: runs the CUDA kernel IR (docs/CONVENTIONS-IR.md) on the CPU with numpy.

Every SSA value is one numpy array with one lane per thread, or a 0-d array when all threads share it
(constants, kernel arguments, `blockDim`). A chunk of whole blocks runs in lockstep, op by op:

- divergence is a mask of active lanes: `scf.if` runs each branch under its mask and merges the
  yielded values with `np.where`; `scf.for`/`scf.while` iterate until no active lane continues, so
  every thread has its own trip count;
- pure ops compute every lane (inactive ones too: their results are never observed, so numpy
  warnings are silenced); loads and stores touch memory for active lanes only;
- an access outside `[0, len(buffer))` by an active lane is recorded as `OutOfBounds` and skipped
  (a skipped load yields 0);
- blocks run in an order shuffled with `request.seed`: when threads of several blocks store to one
  element, the last of them in that order wins, as some schedule on a GPU would.

Types keep their width: fp32 stays `np.float32`, f16 is `np.float16`, bf16 is `ml_dtypes.bfloat16`,
integers wrap (i32 is `np.int32`; unsigned ops view the bits as `np.uint32`), `index` is `np.int64`,
i1 is `np.bool_`.

`gpu.barrier` needs no work: each op runs for every lane of the chunk before the next op starts, so
every store before a barrier is visible to every load after it. Shared memory, atomics and
`memref.alloca` are `Unsupported` (the front end rejects `__shared__` too).
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from functools import cache
from time import perf_counter
from typing import Any

import ml_dtypes
import numpy as np
from xdsl.dialects import arith, func, gpu, math, memref, scf
from xdsl.dialects.builtin import (
    BFloat16Type,
    FileLineColLoc,
    FloatAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from lowercheck import ir, symbolic
from lowercheck.dialects.kernel import EntryOp, LaunchOp, ParamOp
from lowercheck.errors import Unsupported, UserError
from lowercheck.runners.base import OutOfBounds, RunRequest, RunResult

Mask = np.ndarray | None  # active lanes; None: all lanes of the chunk


@dataclass(frozen=True)
class SimtOptions:
    """Knobs of the emulator, read from `RunRequest.options` by field name."""

    max_oob_events: int = 20  # OutOfBounds events kept (all are counted in `oob_total`)
    chunk_threads: int = 1 << 20  # at most this many threads run in lockstep
    value_budget_bytes: int = 1 << 30  # lowers the chunk for kernels with many SSA values

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> SimtOptions:
        return cls(**{f.name: options[f.name] for f in fields(cls) if f.name in options})


def run(request: RunRequest) -> RunResult:
    """Run every launch of the entry in `request.ir` over the whole grid; return the final buffers.

    Besides the `RunResult` fields, the result carries `oob_total`: every out-of-bounds access,
    also those past the `max_oob_events` kept in `oob`.
    """
    start = perf_counter()
    if request.ir is None:
        raise UserError("the SIMT emulator needs the lowered IR (request.ir is None)")
    module = ir.parse(request.ir)
    entries = [op for op in module.ops if isinstance(op, EntryOp)]
    entry = next((e for e in entries if e.sym_name.data == request.entry), None)
    if entry is None and len(entries) == 1:
        entry = entries[0]
    if entry is None:
        raise UserError(f"no kernel.entry @{request.entry} in the IR")
    kernels = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}

    machine = _Machine(SimtOptions.from_options(request.options), np.random.default_rng(request.seed))
    buffers, scalars = _bind_params(entry.params, request.args)
    for launch in entry.launches:
        callee = launch.callee.root_reference.data
        if callee not in kernels:
            raise UserError(f"kernel.launch @{callee}: no func.func @{callee} in the IR")
        machine.launch(kernels[callee], launch, buffers, scalars)

    result = RunResult(outputs={name: buf.result() for name, buf in buffers.items() if buf.returned},
                       oob=machine.oob, wall_s=perf_counter() - start)
    result.oob_total = machine.oob_total
    return result


# --- types ----------------------------------------------------------------------------------------

_INT_DTYPES = {1: np.dtype(np.bool_), 8: np.dtype(np.int8), 16: np.dtype(np.int16),
               32: np.dtype(np.int32), 64: np.dtype(np.int64)}
_FLOAT_DTYPES = {Float16Type: np.dtype(np.float16), BFloat16Type: np.dtype(ml_dtypes.bfloat16),
                 Float32Type: np.dtype(np.float32), Float64Type: np.dtype(np.float64)}
_UNSIGNED = {np.dtype(np.int8): np.dtype(np.uint8), np.dtype(np.int16): np.dtype(np.uint16),
             np.dtype(np.int32): np.dtype(np.uint32), np.dtype(np.int64): np.dtype(np.uint64),
             np.dtype(np.bool_): np.dtype(np.uint8)}
_HALF = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


def dtype_of(t: Attribute) -> np.dtype:
    """The numpy dtype that holds a value of the MLIR type `t`."""
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    if isinstance(t, IntegerType) and t.width.data in _INT_DTYPES:
        return _INT_DTYPES[t.width.data]
    if type(t) in _FLOAT_DTYPES:
        return _FLOAT_DTYPES[type(t)]
    raise Unsupported(f"the SIMT emulator has no numpy type for {t}")


def _wrap_int(value: int, dtype: np.dtype) -> np.ndarray:
    """A Python int as `dtype`, wrapped at its width (two's complement), as C does."""
    if dtype == np.bool_:
        return np.array(bool(value & 1))
    bits = dtype.itemsize * 8
    value &= (1 << bits) - 1
    if value >= 1 << (bits - 1):
        value -= 1 << bits
    return np.array(value, dtype)


def _unsigned(x: np.ndarray) -> np.ndarray:
    """The same bits read as an unsigned integer of the same width (i1 as uint8)."""
    x = np.asarray(x)
    if x.dtype.kind == "u":
        return x
    return x.astype(np.uint8) if x.dtype == np.bool_ else x.view(_UNSIGNED[x.dtype])


def _to_dtype(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Bits of an unsigned result back into the signed (or i1) storage dtype."""
    x = np.asarray(x)
    if dtype == np.bool_:
        return (x & 1).astype(np.bool_)
    return x.astype(_UNSIGNED[dtype], copy=False).view(dtype)


# --- memory -----------------------------------------------------------------------------------------


@dataclass
class _Buffer:
    """A flat buffer of an entry parameter, in the kernel's element type."""

    name: str
    data: np.ndarray
    given: np.dtype | None  # dtype of the caller's array when it was viewed, to view results back
    returned: bool = True

    def result(self) -> np.ndarray:
        out = self.data.copy()
        return out.view(self.given) if self.given is not None else out

    def viewed_as(self, dtype: np.dtype) -> _Buffer:
        """The same memory read as `dtype`, as a C cast of the pointer does (`(float*)bytes`)."""
        if dtype == self.data.dtype:
            return self
        if self.data.nbytes % dtype.itemsize:
            raise UserError(f"the buffer `{self.name}` ({self.data.nbytes} bytes) cannot be read as "
                            f"{dtype} elements")
        return _Buffer(self.name, self.data.view(dtype), None, self.returned)


def _bind_params(params: Sequence[ParamOp], args: dict[str, Any]) -> tuple[dict[str, _Buffer],
                                                                            dict[str, int | float]]:
    scalars: dict[str, int | float] = {}
    for param in params:
        if param.kind.data == "scalar":
            if param.pname not in args:
                raise UserError(f"no value for the scalar parameter `{param.pname}`")
            value = args[param.pname]
            scalars[param.pname] = int(value) if isinstance(value, (bool, np.bool_, np.integer)) else value
    buffers: dict[str, _Buffer] = {}
    for param in params:
        name = param.pname
        if param.kind.data != "buffer":
            continue
        dtype = dtype_of(param.element_type)
        if name not in args:
            if param.role.data != "temp":
                raise UserError(f"no array for the buffer parameter `{name}`")
            buffers[name] = _Buffer(name, _temp_array(param, scalars, dtype), None, returned=False)
            continue
        array = np.ascontiguousarray(args[name]).reshape(-1)
        given = None
        if array.dtype != dtype and array.dtype.itemsize == dtype.itemsize and \
                array.dtype.kind in "iub" and dtype.kind in "iub":
            given, array = array.dtype, array.view(dtype)
        buffers[name] = _Buffer(name, array.astype(dtype, copy=True), given)
    return buffers, scalars


def _temp_array(param: ParamOp, scalars: dict[str, int | float], dtype: np.dtype) -> np.ndarray:
    """A scratch buffer the entry allocates itself; its shape must be known from the sizes."""
    if not param.shape.data:
        raise UserError(f"the temp buffer `{param.pname}` has no shape to allocate")
    size = 1
    for text in param.shape.data:
        size *= int(_evaluate(text.data, scalars))
    return np.zeros(size, dtype)


def _evaluate(text: str, values: dict[str, int | float]) -> int | float:
    """An expression string of a launch, over the entry's scalar values."""
    if text in values:
        return values[text]
    expr = symbolic.substitute(symbolic.parse(text), values)
    if expr.free_symbols:
        names = ", ".join(sorted(s.name for s in expr.free_symbols))
        raise UserError(f"the launch expression `{text}` needs values for {names}")
    if expr.is_Integer:
        return int(expr)
    if expr.is_number:
        return float(expr)
    raise UserError(f"the launch expression `{text}` is not a number: {expr}")


# --- the machine: launches, chunks of blocks, lanes -----------------------------------------------


class _Machine:
    """State that outlives one chunk: the block-order generator and the out-of-bounds record."""

    def __init__(self, options: SimtOptions, rng: np.random.Generator):
        self.options = options
        self.rng = rng
        self.oob: list[OutOfBounds] = []
        self.oob_total = 0

    def launch(self, kernel: func.FuncOp, launch: LaunchOp, buffers: dict[str, _Buffer],
               scalars: dict[str, int | float]) -> None:
        grid = [int(_evaluate(e, scalars)) for e in launch.grid_exprs]
        block = [int(_evaluate(e, scalars)) for e in launch.block_exprs]
        block += [1] * (3 - len(block))
        if min(grid) < 0 or min(block) < 1:
            raise UserError(f"launch of @{kernel.sym_name.data}: bad geometry grid={grid} block={block}")
        args = self._arguments(kernel, launch, buffers, scalars)
        blocks, threads = pymath.prod(grid), pymath.prod(block)
        if blocks == 0:
            return
        values = sum(len(op.results) for op in kernel.walk()) + len(kernel.body.block.args)
        lanes = min(self.options.chunk_threads, self.options.value_budget_bytes // (8 * max(values, 1)))
        per_chunk = max(1, lanes // threads)
        order = self.rng.permutation(blocks)
        for first in range(0, blocks, per_chunk):
            chunk = _Chunk(self, order[first:first + per_chunk], grid, block)
            chunk.run_block(kernel.body.block, args, None)

    @staticmethod
    def _arguments(kernel: func.FuncOp, launch: LaunchOp, buffers: dict[str, _Buffer],
                   scalars: dict[str, int | float]) -> list[Any]:
        formals = kernel.body.block.args
        texts = launch.arg_exprs
        if len(formals) != len(texts):
            raise UserError(f"launch of @{kernel.sym_name.data}: {len(texts)} arguments for "
                            f"{len(formals)} parameters")
        values: list[Any] = []
        for formal, text in zip(formals, texts):
            if isinstance(formal.type, MemRefType):
                if text not in buffers:
                    raise UserError(f"launch of @{kernel.sym_name.data}: `{text}` is not a buffer "
                                    "parameter of the entry")
                values.append(buffers[text].viewed_as(dtype_of(formal.type.element_type)))
                continue
            dtype = dtype_of(formal.type)
            value = _evaluate(text, scalars)
            values.append(_wrap_int(int(value), dtype) if dtype.kind in "biu"
                          else np.array(value, dtype))
        return values

    def record(self, chunk: _Chunk, buf: _Buffer, kind: str, index: np.ndarray, bad: np.ndarray) -> None:
        lanes = np.flatnonzero(bad)
        self.oob_total += len(lanes)
        room = self.options.max_oob_events - len(self.oob)
        if room <= 0:
            return
        lanes = lanes[np.lexsort((chunk.lane_thread[lanes], chunk.lane_block[lanes]))][:room]
        for lane in lanes:
            self.oob.append(OutOfBounds(buffer=buf.name, kind=kind, index=int(index[lane]),
                                        extent=int(buf.data.size),
                                        where={"block": int(chunk.lane_block[lane]),
                                               "thread": int(chunk.lane_thread[lane])}))


class _Chunk:
    """Whole blocks running in lockstep: one lane per thread, one environment of SSA values."""

    def __init__(self, machine: _Machine, blocks: np.ndarray, grid: list[int], block: list[int]):
        self.machine = machine
        threads = pymath.prod(block)
        self.n = len(blocks) * threads
        # Linear ids: block = x + gx*(y + gy*z), thread = x + bx*(y + by*z).
        self.lane_block = np.repeat(blocks.astype(np.int64), threads)
        self.lane_thread = np.tile(np.arange(threads, dtype=np.int64), len(blocks))
        self.block_id = _split(self.lane_block, grid)
        self.thread_id = _split(self.lane_thread, block)
        self.grid_dim = [np.array(g, np.int64) for g in grid]
        self.block_dim = [np.array(b, np.int64) for b in block]
        self.env: dict[SSAValue, Any] = {}

    def get(self, value: SSAValue) -> Any:
        return self.env[value]

    def run_block(self, block: Block, args: Sequence[Any], mask: Mask) -> list[Any]:
        """Run `block` for the lanes in `mask`; return the values its terminator passes on."""
        for formal, value in zip(block.args, args):
            self.env[formal] = value
        with np.errstate(all="ignore"):
            for op in block.ops:
                if isinstance(op, _TERMINATORS):
                    return [self.env[v] for v in op.operands]
                rule = _rule_for(type(op))
                if rule is None:
                    raise Unsupported(f"the SIMT emulator does not support `{op.name}`{_where(op)}")
                for result, value in zip(op.results, rule(self, op, mask)):
                    self.env[result] = value
        return []

    def lanes(self, x: Any) -> np.ndarray:
        return np.broadcast_to(np.asarray(x), (self.n,))


def _split(linear: np.ndarray, extents: list[int]) -> list[np.ndarray]:
    x = linear % extents[0]
    y = (linear // extents[0]) % extents[1]
    z = linear // (extents[0] * extents[1])
    return [x, y, z]


def _where(op: Operation) -> str:
    """` at file:line:col` of the op's source, or nothing."""
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f" at {loc.filename.data}:{loc.line.data}:{loc.column.data}"
    return ""


# --- rules: op class -> function(chunk, op, mask) -> result values ---------------------------------

Rule = Callable[[_Chunk, Operation, Mask], Sequence[Any]]
_RULES: dict[type[Operation], Rule] = {}
_TERMINATORS = (scf.YieldOp, scf.ConditionOp, func.ReturnOp)


@cache
def _rule_for(op_type: type[Operation]) -> Rule | None:
    """The rule of the op class or its nearest base: other dialects subclass arith's ops (the tt
    dialect widens `arith.cmpi` to tensors), and the context may hand us those classes."""
    return next((_RULES[base] for base in op_type.__mro__ if base in _RULES), None)


def _rule(*op_types: type[Operation]) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        for t in op_types:
            _RULES[t] = fn
        return fn
    return register


def _elementwise(table: dict[type[Operation], Callable[..., Any]],
                 wrap: Callable[[Callable[..., Any]], Callable[..., Any]]) -> None:
    """Register ops whose result is a function of their operands' values, lane by lane."""
    for op_type, fn in table.items():
        apply = wrap(fn)

        def rule(chunk: _Chunk, op: Operation, mask: Mask, apply=apply) -> Sequence[Any]:
            return (np.asarray(apply(*[chunk.env[v] for v in op.operands])),)
        _RULES[op_type] = rule


# integers ------------------------------------------------------------------------------------------

def _signed_int(fn: Callable[..., Any]) -> Callable[..., Any]:
    """fn on the signed values; i1 computes in uint8 and keeps bit 0."""
    def apply(*xs: np.ndarray) -> np.ndarray:
        xs = tuple(np.asarray(x) for x in xs)
        if xs[0].dtype == np.bool_:
            return _to_dtype(fn(*(x.astype(np.uint8) for x in xs)), xs[0].dtype)
        return fn(*xs)
    return apply


def _unsigned_int(fn: Callable[..., Any]) -> Callable[..., Any]:
    """fn on the bits read as unsigned, result stored back in the signed dtype."""
    def apply(*xs: np.ndarray) -> np.ndarray:
        dtype = np.asarray(xs[0]).dtype
        return _to_dtype(fn(*(_unsigned(x) for x in xs)), dtype)
    return apply


def _divsi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # C division truncates toward zero: floor, plus one where the remainder is non-zero and the
    # signs differ. Division by zero is undefined in C; numpy's 0 stands in.
    q = np.floor_divide(a, b)
    fix = (np.fmod(a, b) != 0) & ((a < 0) != (b < 0))
    return q + fix.astype(q.dtype)


def _ceildiv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # ceil(a/b) = floor(a/b) + 1 where b does not divide a (both for signed and unsigned operands)
    q = np.floor_divide(a, b)
    return q + (np.remainder(a, b) != 0).astype(q.dtype)


def _shift(fn: Callable[..., Any]) -> Callable[..., Any]:
    # PTX clamps the shift amount (read unsigned) to the width: shifting by >= width gives 0, or the
    # sign for an arithmetic right shift. MLIR calls it poison; the GPU's answer is more useful.
    def apply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        width = a.dtype.itemsize * 8
        amount = np.minimum(_unsigned(b), width).astype(a.dtype)
        return fn(a, amount)
    return apply


_INT_SIGNED = {
    arith.AddiOp: np.add,
    arith.SubiOp: np.subtract,
    arith.MuliOp: np.multiply,
    arith.DivSIOp: _divsi,
    arith.RemSIOp: np.fmod,  # C's %: the sign of the dividend
    arith.FloorDivSIOp: np.floor_divide,
    arith.CeilDivSIOp: _ceildiv,
    arith.AndIOp: np.bitwise_and,
    arith.OrIOp: np.bitwise_or,
    arith.XOrIOp: np.bitwise_xor,
    arith.ShLIOp: _shift(np.left_shift),
    arith.ShRSIOp: _shift(np.right_shift),
    arith.MaxSIOp: np.maximum,
    arith.MinSIOp: np.minimum,
    math.AbsIOp: np.abs,  # abs(INT_MIN) wraps to INT_MIN, as on the GPU
}
_INT_UNSIGNED = {
    arith.DivUIOp: np.floor_divide,
    arith.RemUIOp: np.remainder,
    arith.CeilDivUIOp: _ceildiv,
    arith.ShRUIOp: _shift(np.right_shift),
    arith.MaxUIOp: np.maximum,
    arith.MinUIOp: np.minimum,
    math.CtPopOp: np.bitwise_count,
}
_elementwise(_INT_SIGNED, _signed_int)
_elementwise(_INT_UNSIGNED, _unsigned_int)


def _bit_length(u: np.ndarray) -> np.ndarray:
    smear = np.array(u, copy=True)
    shift = 1
    while shift < u.dtype.itemsize * 8:
        smear |= smear >> u.dtype.type(shift)
        shift *= 2
    return np.bitwise_count(smear)


@_rule(math.CountLeadingZerosOp)
def _ctlz(chunk: _Chunk, op: Operation, mask: Mask) -> Sequence[Any]:
    x = np.asarray(chunk.get(op.operands[0]))
    width = x.dtype.itemsize * 8
    return (_to_dtype(width - _bit_length(_unsigned(x)).astype(np.int64), x.dtype),)


@_rule(math.CountTrailingZerosOp)
def _cttz(chunk: _Chunk, op: Operation, mask: Mask) -> Sequence[Any]:
    x = np.asarray(chunk.get(op.operands[0]))
    u = _unsigned(x)
    lowest = u & (~u + u.dtype.type(1))  # the lowest set bit; 0 for 0
    return (_to_dtype(np.bitwise_count(lowest - u.dtype.type(1)), x.dtype),)  # 0 -> all ones -> width


@_rule(math.IPowIOp)
def _ipowi(chunk: _Chunk, op: Operation, mask: Mask) -> Sequence[Any]:
    base, exp = (np.asarray(chunk.get(v)) for v in op.operands)
    base, exp = np.broadcast_arrays(base, exp)
    result = np.ones_like(base)
    b, e = base.copy(), exp.copy()
    while np.any(e > 0):  # square and multiply, wrapping at the width
        odd = (e & 1).astype(np.bool_) & (e > 0)
        result = np.where(odd, result * b, result)
        b = b * b
        e = e >> 1
    # a negative exponent: 1/base**|e| truncates to 0 unless |base| == 1
    negative = exp < 0
    result = np.where(negative & (base == 1), 1, result)
    result = np.where(negative & (base == -1), np.where(exp % 2 == 0, 1, -1), result)
    result = np.where(negative & (np.abs(base) != 1), 0, result)
    return (result.astype(base.dtype),)


_CMPI = {
    "eq": (np.equal, False), "ne": (np.not_equal, False),
    "slt": (np.less, False), "sle": (np.less_equal, False),
    "sgt": (np.greater, False), "sge": (np.greater_equal, False),
    "ult": (np.less, True), "ule": (np.less_equal, True),
    "ugt": (np.greater, True), "uge": (np.greater_equal, True),
}


@_rule(arith.CmpiOp)
def _cmpi(chunk: _Chunk, op: Operation, mask: Mask) -> Sequence[Any]:
    fn, unsigned = _CMPI[arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]]
    a, b = (np.asarray(chunk.get(v)) for v in op.operands)
    if unsigned:
        a, b = _unsigned(a), _unsigned(b)
    return (np.asarray(fn(a, b)),)


# floats ------------------------------------------------------------------------------------------

def _float(fn: Callable[..., Any]) -> Callable[..., Any]:
    """fn in the operands' precision; f16/bf16 compute in fp32 and round once, as the GPU does."""
    def apply(*xs: np.ndarray) -> np.ndarray:
        xs = tuple(np.asarray(x) for x in xs)
        dtype = xs[0].dtype
        if dtype in _HALF:
            return np.asarray(fn(*(x.astype(np.float32) for x in xs))).astype(dtype)
        return np.asarray(fn(*xs)).astype(dtype, copy=False)
    return apply


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return x.dtype.type(1) / np.sqrt(x)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    # C's round(): halves away from zero. x - trunc(x) is exact, so no double rounding.
    t = np.trunc(x)
    return t + np.where(np.abs(x - t) >= x.dtype.type(0.5), np.sign(x), x.dtype.type(0))


_erf64 = np.frompyfunc(pymath.erf, 1, 1)


def _erf(x: np.ndarray) -> np.ndarray:
    # numpy has no erf: math.erf in float64 (nearly correctly rounded), rounded once to x's type
    return np.asarray(_erf64(x.astype(np.float64)), dtype=np.float64).astype(x.dtype)


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    # fp32: the product is exact in float64, so a*b + c rounds (nearly) once. fp64: not fused.
    if a.dtype == np.float64:
        return a * b + c
    return (a.astype(np.float64) * b + c).astype(a.dtype)


_FLOAT_OPS = {
    arith.AddfOp: np.add,
    arith.SubfOp: np.subtract,
    arith.MulfOp: np.multiply,
    arith.DivfOp: np.divide,
    arith.NegfOp: np.negative,
    arith.MaximumfOp: np.maximum,  # NaN-propagating
    arith.MinimumfOp: np.minimum,
    arith.MaxnumfOp: np.fmax,  # NaN-ignoring (fmaxf)
    arith.MinnumfOp: np.fmin,
    math.AbsFOp: np.abs,
    math.CeilOp: np.ceil,
    math.FloorOp: np.floor,
    math.TruncOp: np.trunc,
    math.RoundOp: _round_half_away,
    math.RoundEvenOp: np.rint,
    math.SqrtOp: np.sqrt,
    math.RsqrtOp: _rsqrt,
    math.CbrtOp: np.cbrt,
    math.ExpOp: np.exp,
    math.Exp2Op: np.exp2,
    math.ExpM1Op: np.expm1,
    math.LogOp: np.log,
    math.Log2Op: np.log2,
    math.Log10Op: np.log10,
    math.Log1pOp: np.log1p,
    math.SinOp: np.sin,
    math.CosOp: np.cos,
    math.TanOp: np.tan,
    math.AsinOp: np.arcsin,
    math.AcosOp: np.arccos,
    math.AtanOp: np.arctan,
    math.SinhOp: np.sinh,
    math.CoshOp: np.cosh,
    math.TanhOp: np.tanh,
    math.AsinhOp: np.arcsinh,
    math.AcoshOp: np.arccosh,
    math.AtanhOp: np.arctanh,
    math.ErfOp: _erf,
    math.PowFOp: np.power,
    math.Atan2Op: np.arctan2,
    math.CopySignOp: np.copysign,
    math.FmaOp: _fma,
}
_elementwise(_FLOAT_OPS, _float)


@_rule(math.FPowIOp)
def _fpowi(chunk: _Chunk, op: Operation, mask: Mask) -> Sequence[Any]:
    x, n = (np.asarray(chunk.get(v)) for v in op.operands)
    return (_float(np.power)(x, n.astype(x.dtype if x.dtype not in _HALF else np.float32)),)


def _ordered(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return ~(np.isnan(a) | np.isnan(b))


_CMPF: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "false": lambda a, b: np.zeros(np.broadcast(a, b).shape, np.bool_),
    "oeq": np.equal,  # numpy comparisons with NaN are false: ordered already
    "ogt": np.greater,
    "oge": np.greater_equal,
    "olt": np.less,
    "ole": np.less_equal,
    "one": lambda a, b: _ordered(a, b) & (a != b),
    "ord": _ordered,
    "ueq": lambda a, b: ~_ordered(a, b) | (a == b),
    "ugt": lambda a, b: ~(a <= b),
    "uge": lambda a, b: ~(a < b),
    "ult": lambda a, b: ~(a >= b),
    "ule": lambda a, b: ~(a > b),
    "une": np.not_equal,  # true with NaN: unordered already
    "uno": lambda a, b: ~_ordered(a, b),
    "true": lambda a, b: np.ones(np.broadcast(a, b).shape, np.bool_),
}


@_rule(arith.CmpfOp)
def _cmpf(chunk: _Chunk, op: Operation, mask: Mask) -> Sequence[Any]:
    fn = _CMPF[arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]]
    a, b = (np.asarray(chunk.get(v)) for v in op.operands)
    if a.dtype in _HALF:
        a, b = a.astype(np.float32), b.astype(np.float32)  # exact
    return (np.asarray(fn(a, b)),)


# casts and constants ---------------------------------------------------------------------------------

def _result_dtype(op: Operation) -> np.dtype:
    return dtype_of(op.results[0].type)


def _cast(fn: Callable[[np.ndarray, np.dtype], np.ndarray]) -> Rule:
    def rule(chunk: _Chunk, op: Operation, mask: Mask) -> Sequence[Any]:
        return (np.asarray(fn(np.asarray(chunk.get(op.operands[0])), _result_dtype(op))),)
    return rule


def _sext(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if x.dtype == np.bool_:  # i1 true is -1
        return -x.astype(dtype)
    return x.astype(dtype)  # narrowing wraps, widening sign-extends


def _zext(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype == np.bool_:
        return (x & 1).astype(np.bool_)
    return _unsigned(x).astype(_UNSIGNED[dtype]).view(dtype)


def _trunci(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return (x & 1).astype(np.bool_) if dtype == np.bool_ else x.astype(dtype)


def _int_to_float(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    # to f16/bf16 through float64 (exact for 32-bit ints), so the value is rounded once
    return x.astype(np.float64).astype(dtype) if dtype in _HALF else x.astype(dtype)


def _float_to_int(x: np.ndarray, dtype: np.dtype, unsigned: bool) -> np.ndarray:
    # cvt.rzi: truncate, saturate at the range, NaN -> 0 (C leaves these undefined; PTX defines them)
    t = np.trunc(x.astype(np.float64))
    if dtype == np.bool_:
        return t != 0
    target = _UNSIGNED[dtype] if unsigned else dtype
    info = np.iinfo(target)
    high, low, nan = t >= float(info.max), t <= float(info.min), np.isnan(t)
    safe = np.where(high | low | nan, 0, t).astype(target)
    out = np.where(high, target.type(info.max), np.where(low, target.type(info.min), safe))
    return np.asarray(out, target).view(dtype)


def _float_to_float(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if x.dtype in _HALF and dtype in _HALF:
        return x.astype(np.float32).astype(dtype)  # the widening is exact
    return x.astype(dtype)


def _bitcast(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return np.ascontiguousarray(x).view(dtype)


_rule(arith.IndexCastOp, arith.ExtSIOp)(_cast(_sext))
_rule(arith.ExtUIOp)(_cast(_zext))
_rule(arith.TruncIOp)(_cast(_trunci))
_rule(arith.SIToFPOp)(_cast(_int_to_float))
_rule(arith.UIToFPOp)(_cast(lambda x, dtype: _int_to_float(_unsigned(x), dtype)))
_rule(arith.FPToSIOp)(_cast(lambda x, dtype: _float_to_int(x, dtype, unsigned=False)))
_rule(arith.FPToUIOp)(_cast(lambda x, dtype: _float_to_int(x, dtype, unsigned=True)))
_rule(arith.ExtFOp, arith.TruncFOp)(_cast(_float_to_float))
_rule(arith.BitcastOp)(_cast(_bitcast))


@_rule(arith.ConstantOp)
def _constant(chunk: _Chunk, op: Operation, mask: Mask) -> Sequence[Any]:
    attr = op.value
    dtype = _result_dtype(op)
    if isinstance(attr, IntegerAttr):
        return (_wrap_int(attr.value.data, dtype),)
    if isinstance(attr, FloatAttr):
        return (np.array(attr.value.data, np.float64).astype(dtype),)
    raise Unsupported(f"the SIMT emulator supports scalar constants only, not {attr}{_where(op)}")


@_rule(arith.SelectOp)
def _select(chunk: _Chunk, op: Operation, mask: Mask) -> Sequence[Any]:
    cond, a, b = (chunk.get(v) for v in op.operands)
    return (np.asarray(np.where(cond, a, b)),)


# gpu ids ---------------------------------------------------------------------------------------------

_AXIS = {gpu.DimensionEnum.X: 0, gpu.DimensionEnum.Y: 1, gpu.DimensionEnum.Z: 2}


def _id(attribute: str) -> Rule:
    def rule(chunk: _Chunk, op: Operation, mask: Mask) -> Sequence[Any]:
        return (getattr(chunk, attribute)[_AXIS[op.dimension.data]],)
    return rule


_rule(gpu.ThreadIdOp)(_id("thread_id"))
_rule(gpu.BlockIdOp)(_id("block_id"))
_rule(gpu.BlockDimOp)(_id("block_dim"))
_rule(gpu.GridDimOp)(_id("grid_dim"))


@_rule(gpu.BarrierOp)
def _barrier(chunk: _Chunk, op: Operation, mask: Mask) -> Sequence[Any]:
    return ()  # lockstep execution already orders every access before it (module docstring)


# memory ----------------------------------------------------------------------------------------------

def _access(chunk: _Chunk, op: Operation, mask: Mask, kind: str) -> tuple[_Buffer, np.ndarray, np.ndarray]:
    """The buffer, every lane's index, and the lanes that may touch memory (others are recorded)."""
    if len(op.indices) != 1:
        raise Unsupported(f"`{op.name}` with {len(op.indices)} indices: the IR has flat buffers"
                          f"{_where(op)}")
    buf = chunk.get(op.memref)
    index = chunk.lanes(chunk.get(op.indices[0]))
    inside = (index >= 0) & (index < buf.data.size)
    ok = inside if mask is None else mask & inside
    bad = ~inside if mask is None else mask & ~inside
    if bad.any():
        chunk.machine.record(chunk, buf, kind, index, bad)
    return buf, index, ok


@_rule(memref.LoadOp)
def _load(chunk: _Chunk, op: Operation, mask: Mask) -> Sequence[Any]:
    buf, index, ok = _access(chunk, op, mask, "read")
    if ok.all():
        return (buf.data[index],)
    out = np.zeros(chunk.n, buf.data.dtype)
    out[ok] = buf.data[index[ok]]
    return (out,)


@_rule(memref.StoreOp)
def _store(chunk: _Chunk, op: Operation, mask: Mask) -> Sequence[Any]:
    buf, index, ok = _access(chunk, op, mask, "write")
    lanes = np.flatnonzero(ok)
    if len(lanes) == 0:
        return ()
    where = index[lanes]
    value = chunk.lanes(np.asarray(chunk.get(op.value), buf.data.dtype))[lanes]
    buf.data[where] = value
    # Lanes are in (shuffled) block order; the last writer of an element must win. numpy does not
    # promise an order for repeated indices, so check, and settle conflicts explicitly.
    if not np.array_equal(_bits(buf.data[where]), _bits(value)):
        reverse_first = np.unique(where[::-1], return_index=True)[1]
        last = len(where) - 1 - reverse_first
        buf.data[where[last]] = value[last]
    return ()


def _bits(x: np.ndarray) -> np.ndarray:
    """Raw bits, so that NaN == NaN when comparing what was stored."""
    return x.view(np.uint8) if x.dtype == np.bool_ else x.view(f"u{x.dtype.itemsize}")


# structured control flow -----------------------------------------------------------------------------

def _zeros_for(op: Operation) -> list[np.ndarray]:
    return [np.zeros((), dtype_of(r.type)) for r in op.results]


def _narrow(mask: Mask, cond: np.ndarray) -> np.ndarray:
    return cond if mask is None else mask & cond


@_rule(scf.IfOp)
def _if(chunk: _Chunk, op: scf.IfOp, mask: Mask) -> Sequence[Any]:
    cond = np.asarray(chunk.get(op.cond))
    has_else = bool(op.false_region.blocks)
    if cond.ndim == 0:  # uniform: one branch for everyone
        if cond:
            return chunk.run_block(op.true_region.block, [], mask)
        return chunk.run_block(op.false_region.block, [], mask) if has_else else ()
    then_mask, else_mask = _narrow(mask, cond), _narrow(mask, ~cond)
    taken = then_mask.any()
    other = has_else and else_mask.any()
    then_values = chunk.run_block(op.true_region.block, [], then_mask) if taken else None
    else_values = chunk.run_block(op.false_region.block, [], else_mask) if other else None
    if not op.results:
        return ()
    if then_values is None or else_values is None:
        return then_values or else_values or _zeros_for(op)
    return [np.where(cond, t, e) for t, e in zip(then_values, else_values)]


@_rule(scf.ForOp)
def _for(chunk: _Chunk, op: scf.ForOp, mask: Mask) -> Sequence[Any]:
    lb, ub, step = (np.asarray(chunk.get(v)) for v in (op.lb, op.ub, op.step))
    values = [chunk.get(v) for v in op.iter_args]
    body = op.body.block
    if lb.ndim == ub.ndim == step.ndim == 0:  # one trip count for every thread
        iv = lb
        while iv < ub:
            values = chunk.run_block(body, [iv, *values], mask)
            iv = np.asarray(iv + step)
        return values
    iv = chunk.lanes(lb).copy()
    active = _narrow(mask, iv < ub)
    while active.any():
        new = chunk.run_block(body, [iv, *values], active)
        values = [np.where(active, n, v) for n, v in zip(new, values)]
        iv = np.where(active, iv + step, iv)
        active &= iv < ub
    return values


@_rule(scf.WhileOp)
def _while(chunk: _Chunk, op: scf.WhileOp, mask: Mask) -> Sequence[Any]:
    values = [chunk.get(v) for v in op.arguments]
    before, after = op.before_region.block, op.after_region.block
    active = mask
    results: list[Any] | None = None
    while True:
        cond, *forwarded = chunk.run_block(before, values, active)
        cond = np.asarray(cond)
        leaving = ~cond if cond.ndim else np.full(chunk.n, not cond)
        leaving = _narrow(active, leaving)
        if results is None:
            results = list(forwarded)
        elif leaving.any():
            results = [np.where(leaving, f, r) for f, r in zip(forwarded, results)]
        active = _narrow(active, cond if cond.ndim else np.full(chunk.n, bool(cond)))
        if not active.any():
            return results
        values = chunk.run_block(after, forwarded, active)
