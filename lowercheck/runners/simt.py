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

Memory: a kernel parameter is a flat global buffer; `memref.alloca` in address space 3 is shared
memory, one array per block of the chunk (lanes index it by their block); `memref.alloca` without a
memory space is per thread. Scratch memory starts out holding the poison pattern, like an output.

Barriers and races: each op runs for every lane of the chunk before the next op starts, so every store
before a `gpu.barrier` is visible to every load after it, and lockstep hides a missing barrier. The
checks therefore look at who touched what instead of at values (each a `RunEvent`, one per op):

- LC207: within one barrier interval, two threads of a block touch one shared element and one of
  them writes (each shared element remembers two distinct readers and writers since the last barrier);
- LC203: two threads of a launch store to one global element (a per-buffer last-writer array);
- LC208: a block reaches a `gpu.barrier` with some but not all of its threads active;
- LC210: a load of a shared or local element never written, or of an output element never written
  (it still holds the poison the driver filled it with);
- LC209: an i32 `arith.addi/subi/muli` that wraps, on a value that ends up as an index (it reaches
  a sign-extending cast through i32 arith ops); the result still wraps, as on the GPU;
- LC207 too for warp operations (`simt.shuffle/vote/syncwarp`) whose mask leaves out a lane that runs
  them or names a lane that does not, and shuffles that read such a lane. The hardware leaves that
  value undefined; the emulator gives the reading lane its own value.

`extern __shared__` (`memref<?xT, 3>`) has the launch's `shared_bytes` / sizeof(T) elements when the
launch gives them, else the alloca's operand. Warps are 32 consecutive linear thread ids of a block
(a block whose size is not a multiple of 32 ends with a partial warp). Atomics (`memref.atomic_rmw`,
`simt.atomic_cas`) apply one thread at a time in a random order drawn from `request.seed`, each
thread getting the old value, so float sums depend on the seed as on hardware.

Option `shadow_f64`: every float type computes and is stored as float64 (an oracle for the fp32 run);
outputs come back as float64.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, fields
from functools import cache, cached_property, lru_cache
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
    ModuleOp,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from lowercheck import ir, symbolic
from lowercheck.dialects.kernel import AtenOp, EntryOp, LaunchOp, ParamOp, split_view
from lowercheck.errors import Unsupported, UserError
from lowercheck.dialects.simt import AtomicCasOp, ShuffleOp, SyncWarpOp, VoteOp
from lowercheck.runners import poison
from lowercheck.runners.base import OutOfBounds, RunEvent, RunRequest, RunResult

Mask = np.ndarray | None  # active lanes; None: all lanes of the chunk


@dataclass(frozen=True)
class SimtOptions:
    """Knobs of the emulator, read from `RunRequest.options` by field name."""

    max_oob_events: int = 20  # OutOfBounds events kept (all are counted in `oob_total`)
    chunk_threads: int = 1 << 20  # at most this many threads run in lockstep
    value_budget_bytes: int = 1 << 30  # lowers the chunk for kernels with many SSA values
    max_events: int = 100  # RunEvents kept; each (code, op, kind of problem) is reported once
    shadow_f64: bool = False  # compute and store every float type as float64 (see the module docstring)

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> SimtOptions:
        return cls(**{f.name: options[f.name] for f in fields(cls) if f.name in options})


@lru_cache(maxsize=4)
def _parsed(text: str) -> ModuleOp:
    """The module of `text`, parsed once per process: a batch runs one IR at many sizes and in
    float64 (running never changes the IR: values live in each chunk's `env`)."""
    return ir.parse(text)


def run(request: RunRequest) -> RunResult:
    """Run every launch of the entry in `request.ir` over the whole grid; return the final buffers.

    Besides the `RunResult` fields, the result carries `oob_total`: every out-of-bounds access,
    also those past the `max_oob_events` kept in `oob`.
    """
    start = perf_counter()
    if request.ir is None:
        raise UserError("the SIMT emulator needs the lowered IR (request.ir is None)")
    module = _parsed(request.ir)
    entries = [op for op in module.ops if isinstance(op, EntryOp)]
    entry = next((e for e in entries if e.sym_name.data == request.entry), None)
    if entry is None and len(entries) == 1:
        entry = entries[0]
    if entry is None:
        raise UserError(f"no kernel.entry @{request.entry} in the IR")
    kernels = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}

    options = SimtOptions.from_options(request.options)
    machine = _Machine(options, np.random.default_rng(request.seed))
    token = _SHADOW.set(options.shadow_f64)
    try:
        buffers, scalars = _bind_params(entry.params, request.args)
        # Launch expressions may name sizes that are no parameter (a KernelBench tensor's `x_size0`).
        scalars = {**request.options.get("sizes", {}), **scalars}
        shapes = {p.pname: [d.data for d in p.shape.data] for p in entry.params if p.kind.data == "buffer"}
        for op in entry.body.ops:
            if isinstance(op, AtenOp):  # an ATen call of the host function: torch runs it, between the launches
                aten_step(op, buffers, shapes, scalars)
                continue
            if not isinstance(op, LaunchOp) or request.options.get("skip_launches"):
                continue
            callee = op.callee.root_reference.data
            if callee not in kernels:
                raise UserError(f"kernel.launch @{callee}: no func.func @{callee} in the IR")
            machine.launch(kernels[callee], op, buffers, scalars)
    finally:
        _SHADOW.reset(token)

    result = RunResult(outputs={name: buf.result() for name, buf in buffers.items() if buf.returned},
                       oob=machine.oob, wall_s=perf_counter() - start, events=machine.events)
    result.oob_total = machine.oob_total
    return result


# --- ATen steps of a host function -------------------------------------------------------------------


def aten_step(op: AtenOp, buffers: dict[str, _Buffer], shapes: dict[str, list[str]],
              scalars: dict[str, int | float]) -> None:
    """Run `op` (`kernel.aten` of a CUDA host function: `torch::mm(a, b)`, `out.zero_()`) with torch on
    the buffers' memory, as the GPU would run ATen's own kernel there, and store its result. Its
    operands: buffers by name (`x`, a view's shape after `@`: `x@[4, 8]`), lists, numbers, None,
    booleans and dtypes (`torch.float32`)."""
    import torch

    from lowercheck.runners.torch_arrays import numpy_view

    def tensor(text: str):
        name, _, shape = text.partition("@")
        buffer = buffers[name]
        extents = _literal(shape) if shape else [_evaluate(d, scalars) for d in shapes.get(name, [])]
        flat = torch.from_numpy(buffer.data) if buffer.data.dtype.name != "bfloat16" else \
            torch.from_numpy(buffer.data.view(np.int16)).view(torch.bfloat16)
        return flat.view([int(e) for e in extents]) if extents else flat

    def operand(text: str):
        text = text.strip()
        if text.startswith("[") and text.endswith("]"):
            items = _split_items(text[1:-1])
            return [operand(item) for item in items]
        if text.split("@")[0] in buffers:
            return tensor(text)
        if text.startswith("torch."):
            return getattr(torch, text.removeprefix("torch."))
        if text in scalars:  # a scalar parameter of the host function (`x.add(eps)`)
            return scalars[text]
        try:
            return _literal(text)
        except (ValueError, SyntaxError):  # an expression of the scalars (`2*eps`)
            return _evaluate(text, scalars)

    target = op.target.data.removeprefix("aten.")
    args = [operand(a.data) for a in op.args.data]
    function = getattr(torch.ops.aten, target, None)
    if function is None:
        raise UserError(f"the ATen operator `{target}` of the host function is unknown to torch")
    with torch.no_grad():
        value = function(*args)
    result = buffers[op.result.data]
    if isinstance(value, torch.Tensor) and value.data_ptr() != tensor(op.result.data).data_ptr():
        out = numpy_view(value.detach().contiguous().to(tensor(op.result.data).dtype)).reshape(-1)
        result.data[...] = out.astype(result.data.dtype, copy=False)
    if result.unwritten is not None:
        result.unwritten[...] = False  # torch wrote it whole


def _split_items(text: str) -> list[str]:
    """`a, b@[2, 3], [1, 2]` -> its top-level items."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    if text[start:].strip():
        items.append(text[start:])
    return [item.strip() for item in items]


def _literal(text: str):
    import ast

    return ast.literal_eval(text.strip())


# --- types ----------------------------------------------------------------------------------------

_INT_DTYPES = {1: np.dtype(np.bool_), 8: np.dtype(np.int8), 16: np.dtype(np.int16),
               32: np.dtype(np.int32), 64: np.dtype(np.int64)}
_FLOAT_DTYPES = {Float16Type: np.dtype(np.float16), BFloat16Type: np.dtype(ml_dtypes.bfloat16),
                 Float32Type: np.dtype(np.float32), Float64Type: np.dtype(np.float64)}
_UNSIGNED = {np.dtype(np.int8): np.dtype(np.uint8), np.dtype(np.int16): np.dtype(np.uint16),
             np.dtype(np.int32): np.dtype(np.uint32), np.dtype(np.int64): np.dtype(np.uint64),
             np.dtype(np.bool_): np.dtype(np.uint8)}
_HALF = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))
_SHADOW: ContextVar[bool] = ContextVar("shadow_f64", default=False)  # set by `run` for one request


def dtype_of(t: Attribute) -> np.dtype:
    """The numpy dtype that holds a value of the MLIR type `t`."""
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    if isinstance(t, IntegerType) and t.width.data in _INT_DTYPES:
        return _INT_DTYPES[t.width.data]
    if type(t) in _FLOAT_DTYPES:
        return np.dtype(np.float64) if _SHADOW.get() else _FLOAT_DTYPES[type(t)]
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
    # outputs: True where the element still holds the poison it arrived with (LC210 on a load)
    unwritten: np.ndarray | None = None
    space = "global"

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.data.size,)

    @property
    def extent(self) -> int:
        return self.data.size

    def result(self) -> np.ndarray:
        out = self.data.copy()
        return out.view(self.given) if self.given is not None else out

    def from_element(self, start: int) -> _Buffer:
        """The same memory from element `start` on (`x + start` passed to a kernel): writes go to
        the buffer; an index past its end is out of bounds, as is one before `start`."""
        if not 0 <= start <= self.data.size:
            raise UserError(f"a launch passes `{self.name}` from element {start}, outside its {self.data.size} elements")
        return _Buffer(self.name, self.data[start:], None, self.returned,
                       self.unwritten[start:] if self.unwritten is not None else None)

    def viewed_as(self, dtype: np.dtype) -> _Buffer:
        """The same memory read as `dtype`, as a C cast of the pointer does (`(float*)bytes`)."""
        if dtype == self.data.dtype:
            return self
        if self.data.nbytes % dtype.itemsize:
            raise UserError(f"the buffer `{self.name}` ({self.data.nbytes} bytes) cannot be read as "
                            f"{dtype} elements")
        same = dtype.itemsize == self.data.dtype.itemsize
        return _Buffer(self.name, self.data.view(dtype), None, self.returned,
                       self.unwritten if same else None)


class _Scratch:
    """Memory the kernel allocates: shared (`space` "shared", one array per block of the chunk) or
    local (one per thread). `data` is flat: instance-major, then the row-major element index.

    Shared arrays also keep, for the current barrier interval, up to two distinct threads (id + 1; 0
    for none) that read and that wrote each element: a second thread touching an element that another
    thread wrote, or writing one that another read, is a race (LC207). Reads before the interval's
    first write cannot race yet: they wait in `pending` and join the readers only if a write comes
    (the read-only phases of a tiled kernel then cost nothing)."""

    def __init__(self, name: str, space: str, shape: tuple[int, ...], dtype: np.dtype, instances: int,
                 block_threads: int):
        self.name, self.space, self.shape = name, space, shape
        self.instances = instances
        self.extent = pymath.prod(shape)
        self.data = poison.fill(np.empty(instances * self.extent, dtype))
        self.written = np.zeros(self.data.size, np.bool_)
        self.complete = False  # every element written: no read can be uninitialised any more
        self._base: np.ndarray | None = None
        if space == "shared":
            tracker = np.int16 if block_threads < (1 << 15) - 1 else np.int32
            self.readers = np.zeros((2, self.data.size), tracker)
            self.writers = np.zeros((2, self.data.size), tracker)
            self.atomics = np.zeros((2, self.data.size), tracker)  # atomic updaters: no race among them
            self.pending: list[tuple[np.ndarray, np.ndarray]] = []
            self.wrote = False  # a write happened in the current interval

    def base(self, chunk: _Chunk) -> np.ndarray:
        """Each lane's first element of its own instance."""
        if self._base is None:
            instance = chunk.lane_slot if self.space == "shared" else np.arange(chunk.n, dtype=np.int64)
            self._base = instance * self.extent
        return self._base

    def join(self, rows: np.ndarray, address: np.ndarray, thread: np.ndarray) -> None:
        """Add `thread` (id + 1) to the first two distinct readers or writers (`rows`) of each element."""
        first, second = rows
        fresh = first[address] == 0
        first[address[fresh]] = thread[fresh]
        another = (first[address] != thread) & (second[address] == 0)
        second[address[another]] = thread[another]

    def join_pending(self) -> None:
        for address, thread in self.pending:
            self.join(self.readers, address, thread)
        self.pending = []

    def new_interval(self, slots: np.ndarray) -> None:
        """A barrier ended the interval of the blocks in `slots` (positions in the chunk)."""
        self.complete = self.complete or bool(self.written.all())
        if len(slots) == self.instances:
            self.pending, self.wrote = [], False
            if self.readers.any() or self.writers.any() or self.atomics.any():
                self.readers.fill(0)
                self.writers.fill(0)
                self.atomics.fill(0)
            return
        self.join_pending()  # blocks that did not arrive keep their interval going
        rows = (slots[:, None] * self.extent + np.arange(self.extent)).ravel()
        self.readers[:, rows] = 0
        self.writers[:, rows] = 0
        self.atomics[:, rows] = 0

    def new_warp_interval(self, synced: np.ndarray, warps_per_block: int) -> None:
        """`__syncwarp` orders the accesses of the lanes it synchronised: forget the elements that
        only threads of one warp touched, all of them lanes in `synced` (bits per warp of the chunk)."""
        self.join_pending()
        seen = np.concatenate([self.readers, self.writers, self.atomics]).astype(np.int64)  # thread + 1
        touched = seen != 0
        slot = np.arange(self.data.size, dtype=np.int64) // self.extent
        warp = np.where(touched, slot * warps_per_block + (seen - 1) // 32, -1)
        lane_bit = np.uint64(1) << ((seen - 1) % 32).astype(np.uint64)
        covered = ~touched | ((synced[np.maximum(warp, 0)] & lane_bit) != 0)
        one_warp = warp.max(axis=0) == np.where(touched, warp, warp.max(axis=0)).min(axis=0)
        forget = touched.any(axis=0) & covered.all(axis=0) & one_warp
        self.readers[:, forget] = 0
        self.writers[:, forget] = 0
        self.atomics[:, forget] = 0


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
        unwritten = poison.mask(array) if param.role.data == "out" else None
        given = None
        if array.dtype != dtype and array.dtype.itemsize == dtype.itemsize and \
                array.dtype.kind in "iub" and dtype.kind in "iub":
            given, array = array.dtype, array.view(dtype)
        with np.errstate(invalid="ignore"):  # poison NaNs widen to float64 in shadow mode
            data = array.astype(dtype, copy=True)
        buffers[name] = _Buffer(name, data, given, unwritten=unwritten)
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
    """State that outlives one chunk: the block- and atomic-order generator, the out-of-bounds record,
    the events, and per launch the last writer of every global element (LC203)."""

    def __init__(self, options: SimtOptions, rng: np.random.Generator):
        self.options = options
        self.rng = rng
        self.oob: list[OutOfBounds] = []
        self.oob_total = 0
        self.events: list[RunEvent] = []
        self._reported: set[tuple[Any, ...]] = set()
        self.writers: dict[tuple[str, np.dtype], np.ndarray] = {}  # global thread id + 1; 0: none
        self.index_ops: dict[Operation, bool] = {}  # LC209: does this i32 op's result become an index?
        self.threads_in_launch = 0

    def emit(self, code: str, op: Operation, message: str, buffer: str | None = None,
             where: dict[str, int] | None = None, kind: str = "") -> None:
        """Record a RunEvent, once per (code, op, kind) and at most `max_events` in all."""
        key = (code, id(op), kind)
        if key in self._reported or len(self.events) >= self.options.max_events:
            return
        self._reported.add(key)
        loc = op.location
        location = (loc.filename.data, loc.line.data, loc.column.data) \
            if isinstance(loc, FileLineColLoc) else None
        self.events.append(RunEvent(code, message, buffer, {k: int(v) for k, v in (where or {}).items()},
                                    location))

    def reported(self, code: str, op: Operation, kind: str = "") -> bool:
        return (code, id(op), kind) in self._reported

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
        shared_text = launch.properties.get("shared_bytes")
        shared_bytes = None
        if shared_text is not None:
            text = shared_text.data if hasattr(shared_text, "data") else str(shared_text)
            shared_bytes = int(_evaluate(str(text), scalars))
        self.writers = {}
        self.threads_in_launch = blocks * threads
        values = sum(len(op.results) for op in kernel.walk()) + len(kernel.body.block.args)
        lanes = min(self.options.chunk_threads, self.options.value_budget_bytes // (8 * max(values, 1)))
        per_chunk = max(1, lanes // threads)
        order = self.rng.permutation(blocks)
        for first in range(0, blocks, per_chunk):
            chunk = _Chunk(self, order[first:first + per_chunk], grid, block, shared_bytes)
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
                name, offset = split_view(text)
                if name not in buffers:
                    raise UserError(f"launch of @{kernel.sym_name.data}: `{text}` is not a buffer "
                                    "parameter of the entry")
                buffer = buffers[name] if offset is None else buffers[name].from_element(int(_evaluate(offset, scalars)))
                values.append(buffer.viewed_as(dtype_of(formal.type.element_type)))
                continue
            dtype = dtype_of(formal.type)
            value = _evaluate(text, scalars)
            values.append(_wrap_int(int(value), dtype) if dtype.kind in "biu"
                          else np.array(value, dtype))
        return values

    def record(self, chunk: _Chunk, buf: _Buffer | _Scratch, kind: str, index: np.ndarray,
               bad: np.ndarray) -> None:
        lanes = np.flatnonzero(bad)
        self.oob_total += len(lanes)
        room = self.options.max_oob_events - len(self.oob)
        if room <= 0:
            return
        lanes = lanes[np.lexsort((chunk.lane_thread[lanes], chunk.lane_block[lanes]))][:room]
        for lane in lanes:
            self.oob.append(OutOfBounds(buffer=buf.name, kind=kind, index=int(index[lane]),
                                        extent=int(buf.extent),
                                        where={"block": int(chunk.lane_block[lane]),
                                               "thread": int(chunk.lane_thread[lane])}))


class _Chunk:
    """Whole blocks running in lockstep: one lane per thread, one environment of SSA values."""

    def __init__(self, machine: _Machine, blocks: np.ndarray, grid: list[int], block: list[int],
                 shared_bytes: int | None = None):
        self.machine = machine
        threads = pymath.prod(block)
        self.threads = threads  # per block
        self.slots = len(blocks)
        self.n = len(blocks) * threads
        self.shared_bytes = shared_bytes  # of `extern __shared__`, when the launch gives it
        self.scratch: list[_Scratch] = []  # shared arrays allocated so far (barriers reset them)
        # Linear ids: block = x + gx*(y + gy*z), thread = x + bx*(y + by*z).
        self.lane_block = np.repeat(blocks.astype(np.int64), threads)
        self.lane_thread = np.tile(np.arange(threads, dtype=np.int64), len(blocks))
        self.warps = self.slots * -(-threads // 32)
        self.block_id = _split(self.lane_block, grid)
        self.thread_id = _split(self.lane_thread, block)
        self.grid_dim = [np.array(g, np.int64) for g in grid]
        self.block_dim = [np.array(b, np.int64) for b in block]
        self.env: dict[SSAValue, Any] = {}

    # Lane facts only some kernels need, computed on first use.
    @cached_property
    def lane_slot(self) -> np.ndarray:
        """Each lane's block as a position in the chunk (the instance of shared memory it sees)."""
        return np.repeat(np.arange(self.slots, dtype=np.int64), self.threads)

    @cached_property
    def lane_gid(self) -> np.ndarray:
        """Each lane's thread id in the launch, plus one (0 stands for no thread)."""
        gid = self.lane_block * self.threads + self.lane_thread + 1
        return gid.astype(np.int32) if self.machine.threads_in_launch < 2 ** 31 - 1 else gid

    @cached_property
    def lane_id(self) -> np.ndarray:
        return self.lane_thread % 32

    @cached_property
    def lane_warp(self) -> np.ndarray:
        """Each lane's warp, numbered across the chunk."""
        return self.lane_slot * (self.warps // self.slots) + self.lane_thread // 32

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

_WRAPPING = {arith.AddiOp: (np.add, "+"), arith.SubiOp: (np.subtract, "-"), arith.MuliOp: (np.multiply, "*")}


def _becomes_index(machine: _Machine, op: Operation) -> bool:
    """Whether an i32 op's result reaches a sign-extending cast (an index) through i32 arith ops
    (`(i * stride) % n` counts)."""
    known = machine.index_ops.get(op)
    if known is None:
        known = machine.index_ops[op] = False  # cycles (loops) cannot make it true by themselves
        for use in op.results[0].uses:
            user = use.operation
            if isinstance(user, (arith.IndexCastOp, arith.ExtSIOp)) or \
                    (user.name.startswith("arith.") and len(user.results) == 1 and
                     user.results[0].type == IntegerType(32) and _becomes_index(machine, user)):
                known = machine.index_ops[op] = True
                break
    return known


def _checked_index_arith(op_type: type[Operation]) -> Rule:
    """i32 +, -, * that wrap, as C's do; LC209 when the wrapped value is used as an index."""
    fn, symbol = _WRAPPING[op_type]
    compute = _signed_int(fn)

    def rule(chunk: _Chunk, op: Operation, mask: Mask) -> Sequence[Any]:
        a, b = (np.asarray(chunk.env[v]) for v in op.operands)
        result = np.asarray(compute(a, b))
        if result.dtype != np.int32 or chunk.machine.reported("LC209", op) or \
                not _becomes_index(chunk.machine, op):
            return (result,)
        x, y = (max(abs(int(v.min())), abs(int(v.max()))) if v.size else 0 for v in (a, b))
        if max(x * y, x + y) < 2 ** 31 - 1:  # no lane can wrap
            return (result,)
        exact = fn(a.astype(np.int64), b.astype(np.int64))
        wrapped = chunk.lanes(exact != result) & _active(chunk, mask)
        if wrapped.any():
            lane = _first_lane(chunk, np.flatnonzero(wrapped))
            x, y = int(chunk.lanes(a)[lane]), int(chunk.lanes(b)[lane])
            chunk.machine.emit(
                "LC209", op, f"i32 `{op.name}` wraps: {x} {symbol} {y} = {int(chunk.lanes(exact)[lane])} "
                f"does not fit in int32 (it became {int(chunk.lanes(result)[lane])}) and the result is used "
                f"as an index (thread {chunk.lane_thread[lane]} of block {chunk.lane_block[lane]})",
                where={"block": chunk.lane_block[lane], "thread": chunk.lane_thread[lane],
                       "lhs": x, "rhs": y})
        return (result,)
    return rule


for _op_type in _WRAPPING:
    _RULES[_op_type] = _checked_index_arith(_op_type)


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
    x = np.ascontiguousarray(x)
    if x.dtype.itemsize != dtype.itemsize:  # shadow_f64: the float side is float64, not its C type
        c_float = {2: np.float16, 4: np.float32}
        if x.dtype == np.float64:
            return x.astype(c_float[dtype.itemsize]).view(dtype)
        return x.view(c_float[x.dtype.itemsize]).astype(dtype)
    return x.view(dtype)


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


def _active(chunk: _Chunk, mask: Mask) -> np.ndarray:
    return np.ones(chunk.n, np.bool_) if mask is None else mask


def _first_lane(chunk: _Chunk, lanes: np.ndarray) -> int:
    """The witness among `lanes`: the lowest (block, thread)."""
    return int(lanes[np.lexsort((chunk.lane_thread[lanes], chunk.lane_block[lanes]))[0]])


@_rule(gpu.BarrierOp)
def _barrier(chunk: _Chunk, op: Operation, mask: Mask) -> Sequence[Any]:
    # Lockstep already orders every access before the barrier (module docstring); what is left is to
    # check that whole blocks arrive (LC208) and to start a new race interval for them.
    active = _active(chunk, mask)
    arrived = np.bincount(chunk.lane_slot[active], minlength=chunk.slots)
    partial = np.flatnonzero((arrived > 0) & (arrived < chunk.threads))
    if len(partial):
        partial = partial[np.argsort(chunk.lane_block[partial * chunk.threads])]  # lowest block first
        lanes = np.flatnonzero(chunk.lane_slot == partial[0])
        waiting, absent = lanes[active[lanes]][0], lanes[~active[lanes]][0]
        block = int(chunk.lane_block[waiting])
        chunk.machine.emit(
            "LC208", op, f"barrier reached by {arrived[partial[0]]} of the {chunk.threads} threads of "
            f"block {block}: thread {chunk.lane_thread[waiting]} waits at it, thread "
            f"{chunk.lane_thread[absent]} never arrives (the barrier is under a thread-dependent condition)",
            where={"block": block, "thread": chunk.lane_thread[waiting],
                   "other_thread": chunk.lane_thread[absent], "arrived": arrived[partial[0]]})
    reached = np.flatnonzero(arrived > 0)
    for scratch in chunk.scratch:
        scratch.new_interval(reached)
    return ()


# memory ----------------------------------------------------------------------------------------------

def _is_shared(space: Attribute) -> bool:
    if isinstance(space, IntegerAttr):
        return space.value.data == 3
    return "workgroup" in str(space)


def _c_itemsize(t: Attribute) -> int:
    """sizeof the C element type (not of its float64 shadow)."""
    return _FLOAT_DTYPES[type(t)].itemsize if type(t) in _FLOAT_DTYPES else dtype_of(t).itemsize


@_rule(memref.AllocaOp)
def _alloca(chunk: _Chunk, op: memref.AllocaOp, mask: Mask) -> Sequence[Any]:
    mtype = op.memref.type
    shared = _is_shared(mtype.memory_space)
    dynamic = iter(op.dynamic_sizes)
    shape = []
    for extent in mtype.get_shape():
        if extent >= 0:
            shape.append(extent)
            continue
        size = np.asarray(chunk.get(next(dynamic)))
        if size.ndim and not (size == size.flat[0]).all():
            raise Unsupported(f"`memref.alloca` with a thread-dependent size{_where(op)}")
        shape.append(int(size.flat[0]))
    if shared and chunk.shared_bytes is not None and len(shape) == 1 and mtype.get_shape()[0] < 0:
        shape = [chunk.shared_bytes // _c_itemsize(mtype.element_type)]  # the launch's own count
    if min(shape, default=1) < 0:
        raise UserError(f"`memref.alloca` of a negative size {shape}{_where(op)}")
    space = "shared" if shared else "local"
    name = op.memref.name_hint or f"{space}{len(chunk.scratch)}"
    scratch = _Scratch(name, space, tuple(shape), dtype_of(mtype.element_type),
                       chunk.slots if shared else chunk.n, chunk.threads)
    if shared:
        chunk.scratch.append(scratch)
    return (scratch,)


def _access(chunk: _Chunk, op: Operation, mask: Mask, kind: str,
            indices: Sequence[SSAValue] | None = None) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray]:
    """The memory, every lane's row-major element index, its address in the memory's flat `data`, and
    the lanes that may touch memory (out-of-bounds ones are recorded)."""
    mem = chunk.get(op.memref)
    indices = op.indices if indices is None else indices
    if len(indices) != len(mem.shape):
        raise Unsupported(f"`{op.name}` with {len(indices)} indices into a {len(mem.shape)}-d "
                          f"{mem.space} array{_where(op)}")
    flat: np.ndarray | None = None
    for value, extent in zip(indices, mem.shape):
        index = chunk.lanes(chunk.get(value))
        flat = index if flat is None else flat * extent + index
    inside = (flat >= 0) & (flat < mem.extent)
    ok = inside if mask is None else mask & inside
    bad = ~inside if mask is None else mask & ~inside
    if bad.any():
        chunk.machine.record(chunk, mem, kind, flat, bad)
    address = flat if mem.space == "global" else mem.base(chunk) + flat
    return mem, flat, address, ok


def _check_read(chunk: _Chunk, op: Operation, mem: Any, lanes: np.ndarray, address: np.ndarray,
                flat: np.ndarray) -> None:
    """LC210: a read of an element nobody wrote (scratch memory, or an output still poisoned)."""
    if mem.space == "global":
        if mem.unwritten is None:
            return
        fresh = mem.unwritten[address[lanes]]
        what = "output"
        why = "no thread wrote it before (it still holds the poison the run filled it with)"
    else:
        if mem.complete:
            return
        fresh = ~mem.written[address[lanes]]
        what = f"{mem.space} array"
        why = "no thread of its block wrote it before" if mem.space == "shared" else "it was never written"
    if not fresh.any() or chunk.machine.reported("LC210", op):
        return
    lane = _first_lane(chunk, lanes[fresh])
    block, thread, index = int(chunk.lane_block[lane]), int(chunk.lane_thread[lane]), int(flat[lane])
    chunk.machine.emit("LC210", op, f"read of uninitialised {what} `{mem.name}[{index}]` by thread {thread} "
                       f"of block {block}: {why}", mem.name,
                       where={"block": block, "thread": thread, "index": index})


def _mark_written(mem: Any, lanes: np.ndarray, address: np.ndarray) -> None:
    if mem.space == "global":
        if mem.unwritten is not None:
            mem.unwritten[address[lanes]] = False
    else:
        mem.written[address[lanes]] = True


def _track_shared(chunk: _Chunk, op: Operation, mem: _Scratch, lanes: np.ndarray, address: np.ndarray,
                  flat: np.ndarray, write: bool, atomic: bool = False) -> None:
    """LC207: check this access against the interval's earlier readers and writers, then join them.
    An atomic is a write that races with other threads' plain reads and writes, not with their atomics."""
    write = write or atomic
    a = address[lanes]
    thread = (chunk.lane_thread[lanes] + 1).astype(mem.readers.dtype)
    if not write and not mem.wrote:  # nothing to race with yet
        mem.pending.append((a, thread))
        return
    if write:
        mem.join_pending()
        mem.wrote = True
    other = np.zeros(len(a), thread.dtype)  # a conflicting thread + 1, or 0
    by_writer = np.zeros(len(a), np.int8)  # what the other thread did: 0 read, 1 wrote, 2 updated atomically
    checked = [(mem.writers, 1)] + ([(mem.readers, 0)] if write else []) + ([] if atomic else [(mem.atomics, 2)])
    for rows, wrote in checked:
        for row in rows:
            seen = row[a]
            hit = (other == 0) & (seen != 0) & (seen != thread)
            other[hit], by_writer[hit] = seen[hit], wrote
    if write and not atomic:  # two lanes of this very store on one element
        order = np.argsort(a, kind="stable")
        same = a[order][1:] == a[order][:-1]
        later, earlier = order[1:][same], order[:-1][same]
        hit = other[later] == 0
        other[later[hit]], by_writer[later[hit]] = thread[earlier[hit]], True
    clash = np.flatnonzero(other)
    if len(clash) and not chunk.machine.reported("LC207", op):
        k = clash[np.lexsort((thread[clash], chunk.lane_block[lanes][clash]))[0]]
        lane = lanes[k]
        block, index = int(chunk.lane_block[lane]), int(flat[lane])
        me, them = int(thread[k]) - 1, int(other[k]) - 1
        chunk.machine.emit(
            "LC207", op, f"race on shared `{mem.name}[{index}]` in block {block}: thread {me} "
            f"{'updates' if atomic else 'writes' if write else 'reads'} it and thread {them} "
            f"{('read', 'wrote', 'updated')[by_writer[k]]} it with no barrier in between", mem.name,
            where={"block": block, "thread": me, "other_thread": them, "index": index})
    mem.join(mem.atomics if atomic else mem.writers if write else mem.readers, a, thread)


def _track_global(chunk: _Chunk, op: Operation, mem: _Buffer, lanes: np.ndarray, address: np.ndarray) -> None:
    """LC203: a global element stored to by two threads of one launch (a last-writer array)."""
    if chunk.machine.reported("LC203", op):
        return
    key = (mem.name, mem.data.dtype)
    writers = chunk.machine.writers.get(key)
    if writers is None:
        writers = chunk.machine.writers[key] = np.zeros(mem.extent, chunk.lane_gid.dtype)
    a = address[lanes]
    me = chunk.lane_gid[lanes]
    before = writers[a]
    writers[a] = me
    after = writers[a]  # another lane of this same store won the element where after != me
    clash = (after != me) | ((before != 0) & (before != me))
    if not clash.any():
        return
    lanes = np.arange(chunk.n)[lanes]
    a, me, before, after = (v.astype(np.int64) for v in (a, me, before, after))
    other = np.where((before != 0) & (before != me), before, np.where(after != me, after, 0))
    clash = np.flatnonzero(other)
    k = clash[np.lexsort((chunk.lane_thread[lanes][clash], chunk.lane_block[lanes][clash]))[0]]
    lane = lanes[k]
    block, thread, index = int(chunk.lane_block[lane]), int(chunk.lane_thread[lane]), int(a[k])
    other_block, other_thread = divmod(int(other[k]) - 1, chunk.threads)
    chunk.machine.emit(
        "LC203", op, f"`{mem.name}[{index}]` is stored to by thread {thread} of block {block} and by "
        f"thread {other_thread} of block {other_block} in one launch, without atomics", mem.name,
        where={"block": block, "thread": thread, "other_block": other_block,
               "other_thread": other_thread, "index": index})


@_rule(memref.LoadOp)
def _load(chunk: _Chunk, op: Operation, mask: Mask) -> Sequence[Any]:
    mem, flat, address, ok = _access(chunk, op, mask, "read")
    if mem.space != "global" or mem.unwritten is not None:
        lanes = np.flatnonzero(ok)
        _check_read(chunk, op, mem, lanes, address, flat)
        if mem.space == "shared":
            _track_shared(chunk, op, mem, lanes, address, flat, write=False)
    if ok.all():
        return (mem.data[address],)
    out = np.zeros(chunk.n, mem.data.dtype)
    out[ok] = mem.data[address[ok]]
    return (out,)


@_rule(memref.StoreOp)
def _store(chunk: _Chunk, op: Operation, mask: Mask) -> Sequence[Any]:
    mem, flat, address, ok = _access(chunk, op, mask, "write")
    every = ok.all()
    lanes = slice(None) if every and mem.space == "global" else np.flatnonzero(ok)
    if not every and len(lanes) == 0:
        return ()
    if mem.space == "shared":
        _track_shared(chunk, op, mem, lanes, address, flat, write=True)
    elif mem.space == "global":
        _track_global(chunk, op, mem, lanes, address)
    _mark_written(mem, lanes, address)
    where = address[lanes]
    value = chunk.lanes(np.asarray(chunk.get(op.value), mem.data.dtype))[lanes]
    mem.data[where] = value
    # Lanes are in (shuffled) block order; the last writer of an element must win. numpy does not
    # promise an order for repeated indices, so check, and settle conflicts explicitly.
    if not np.array_equal(_bits(mem.data[where]), _bits(value)):
        reverse_first = np.unique(where[::-1], return_index=True)[1]
        last = len(where) - 1 - reverse_first
        mem.data[where[last]] = value[last]
    return ()


def _bits(x: np.ndarray) -> np.ndarray:
    """Raw bits, so that NaN == NaN when comparing what was stored."""
    return x.view(np.uint8) if x.dtype == np.bool_ else x.view(f"u{x.dtype.itemsize}")


# atomics ---------------------------------------------------------------------------------------------

# MLIR's AtomicRMWKind -> (combine(old, value), read the bits unsigned); None: assign (atomicExch)
_RMW: dict[int, tuple[Any, bool]] = {
    0: (np.add, False),  # addf
    1: (np.add, False),  # addi (wraps)
    2: (None, False),  # assign
    3: (np.maximum, False),  # maximumf
    4: (np.maximum, False),  # maxs
    5: (np.maximum, True),  # maxu
    6: (np.minimum, False),  # minimumf
    7: (np.minimum, False),  # mins
    8: (np.minimum, True),  # minu
    9: (np.multiply, False),  # mulf
    10: (np.multiply, False),  # muli
    11: (np.bitwise_or, False),  # ori
    12: (np.bitwise_and, False),  # andi
    15: (np.bitwise_xor, False),  # xori
}


def _serial_order(rng: np.random.Generator, address: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A random order of the lanes' atomics, grouped by element: (lane of each turn, first turn of
    each element, turns per element). Within an element the turns keep the random order."""
    drawn = rng.permutation(len(address))
    turn = drawn[np.argsort(address[drawn], kind="stable")]
    a = address[turn]
    starts = np.flatnonzero(np.r_[True, a[1:] != a[:-1]])
    return turn, starts, np.diff(np.r_[starts, len(a)])


def _apply_rmw(rng: np.random.Generator, data: np.ndarray, address: np.ndarray, value: np.ndarray,
               combine: Any, need_old: bool) -> np.ndarray:
    """Apply `data[a] = combine(data[a], v)` lane by lane in a random order; each lane's old value."""
    exact = combine in (np.add, np.multiply, np.maximum, np.minimum, np.bitwise_or, np.bitwise_and, np.bitwise_xor)
    if not need_old and exact and data.dtype.kind in "iu":
        combine.at(data, address, value)  # integer results do not depend on the order
        return np.zeros(len(address), data.dtype)
    turn, starts, sizes = _serial_order(rng, address)
    a, v = address[turn], value[turn]
    old = np.empty(len(a), data.dtype)
    ends = starts + sizes - 1
    if combine is None:  # exchange: each turn sees the previous turn's value; the last one stays
        old[1:] = v[:-1]
        old[starts] = data[a[starts]]
        data[a[ends]] = v[ends]
    elif sizes.max() <= len(starts) or data.dtype in _HALF:
        for r in range(int(sizes.max())):  # round r: the r-th turn at every element, all at once
            pos = starts[sizes > r] + r
            cur = data[a[pos]]
            old[pos] = cur
            data[a[pos]] = combine(cur, v[pos])
    else:  # few elements, many turns each: accumulate is sequential, in the elements' precision
        for s, k in zip(starts, sizes):
            seq = combine.accumulate(np.concatenate(([data[a[s]]], v[s:s + k])), dtype=data.dtype)
            old[s:s + k] = seq[:-1]
            data[a[s]] = seq[-1]
    result = np.empty_like(old)
    result[turn] = old
    return result


def _apply_cas(rng: np.random.Generator, data: np.ndarray, address: np.ndarray, compare: np.ndarray,
               value: np.ndarray) -> np.ndarray:
    """atomicCAS lane by lane in a random order, comparing bits; each lane's old value."""
    bits, compare, value = _bits(data), _bits(compare), _bits(value)
    turn, starts, sizes = _serial_order(rng, address)
    a, c, v = address[turn], compare[turn], value[turn]
    old = np.empty(len(a), bits.dtype)
    if sizes.max() <= len(starts):
        for r in range(int(sizes.max())):
            pos = starts[sizes > r] + r
            cur = bits[a[pos]]
            old[pos] = cur
            swap = cur == c[pos]
            bits[a[pos[swap]]] = v[pos[swap]]
    else:  # per element, jump from one successful swap to the next
        for s, k in zip(starts, sizes):
            current, p = bits[a[s]], 0
            while p < k:
                hits = np.flatnonzero(c[s + p:s + k] == current)
                if not len(hits):
                    old[s + p:s + k] = current
                    break
                j = p + int(hits[0])
                old[s + p:s + j + 1] = current
                current, p = v[s + j], j + 1
            bits[a[s]] = current
    result = np.empty_like(old)
    result[turn] = old
    return result.view(data.dtype)


def _atomic(chunk: _Chunk, op: Operation, mask: Mask, indices: Sequence[SSAValue],
            apply: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]) -> Sequence[Any]:
    mem, flat, address, ok = _access(chunk, op, mask, "write", indices)
    out = np.zeros(chunk.n, mem.data.dtype)
    lanes = np.flatnonzero(ok)
    if len(lanes):
        _check_read(chunk, op, mem, lanes, address, flat)
        if mem.space == "shared":
            _track_shared(chunk, op, mem, lanes, address, flat, write=True, atomic=True)
        _mark_written(mem, lanes, address)
        out[lanes] = apply(mem.data, address[lanes], lanes)
    return (out,)


@_rule(memref.AtomicRMWOp)
def _atomic_rmw(chunk: _Chunk, op: memref.AtomicRMWOp, mask: Mask) -> Sequence[Any]:
    kind = op.kind.value.data
    if kind not in _RMW:
        raise Unsupported(f"`memref.atomic_rmw` of kind {kind}{_where(op)}")
    combine, unsigned = _RMW[kind]

    def apply(data: np.ndarray, address: np.ndarray, lanes: np.ndarray) -> np.ndarray:
        value = chunk.lanes(np.asarray(chunk.get(op.value), data.dtype))[lanes]
        if unsigned:
            return _apply_rmw(chunk.machine.rng, _unsigned(data), address, _unsigned(value), combine,
                              bool(op.result.uses)).view(data.dtype)
        return _apply_rmw(chunk.machine.rng, data, address, value, combine, bool(op.result.uses))
    return _atomic(chunk, op, mask, op.indices, apply)


@_rule(AtomicCasOp)
def _atomic_cas(chunk: _Chunk, op: AtomicCasOp, mask: Mask) -> Sequence[Any]:
    def apply(data: np.ndarray, address: np.ndarray, lanes: np.ndarray) -> np.ndarray:
        compare = chunk.lanes(np.asarray(chunk.get(op.compare), data.dtype))[lanes]
        value = chunk.lanes(np.asarray(chunk.get(op.value), data.dtype))[lanes]
        return _apply_cas(chunk.machine.rng, data, address, np.ascontiguousarray(compare),
                          np.ascontiguousarray(value))
    return _atomic(chunk, op, mask, [op.index], apply)


# warps -----------------------------------------------------------------------------------------------

def _warp_bits(chunk: _Chunk, lanes: np.ndarray) -> np.ndarray:
    """Per lane, the bits (by lane id) of the lanes of its warp where `lanes` is true."""
    contribution = lanes.astype(np.uint64) << chunk.lane_id.astype(np.uint64)
    starts = np.flatnonzero(chunk.lane_id == 0)  # a warp's lanes are consecutive in the chunk
    return np.add.reduceat(contribution, starts)[chunk.lane_warp]


def _warp_check(chunk: _Chunk, op: Operation, mask: Mask, member_mask: SSAValue,
                what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The active lanes, each lane's member mask (uint64) and the warp's active lanes (bits); emits
    LC212 for an active lane its mask leaves out and for a mask naming a lane of the block that does
    not arrive."""
    active = _active(chunk, mask)
    members = chunk.lanes(_unsigned(np.asarray(chunk.get(member_mask)))).astype(np.uint64)
    arrived = _warp_bits(chunk, active)
    excluded = active & (((members >> chunk.lane_id.astype(np.uint64)) & np.uint64(1)) == 0)
    if excluded.any():
        lane = _first_lane(chunk, np.flatnonzero(excluded))
        chunk.machine.emit(
            "LC212", op, f"`{what}` in block {chunk.lane_block[lane]}: lane {chunk.lane_id[lane]} (thread "
            f"{chunk.lane_thread[lane]}) executes it but its mask {int(members[lane]):#010x} leaves it out",
            where={"block": chunk.lane_block[lane], "thread": chunk.lane_thread[lane],
                   "lane": chunk.lane_id[lane], "mask": members[lane]}, kind="excluded")
    # A lane the block does not have (a partial last warp: 16 threads per block) is no thread that
    # could fail to arrive: CUDA asks that every *non-exited* thread the mask names execute the op.
    existing = _warp_bits(chunk, np.ones(chunk.n, np.bool_))
    absent = members & ~arrived & existing
    waiting = active & (absent != 0)
    if waiting.any():
        lane = _first_lane(chunk, np.flatnonzero(waiting))
        missing = int(absent[lane])
        missing = (missing & -missing).bit_length() - 1
        chunk.machine.emit(
            "LC212", op, f"`{what}` in block {chunk.lane_block[lane]}: the mask {int(members[lane]):#010x} "
            f"of lane {chunk.lane_id[lane]} (thread {chunk.lane_thread[lane]}) names lane {missing}, "
            "which does not execute it", where={"block": chunk.lane_block[lane],
                                                "thread": chunk.lane_thread[lane],
                                                "lane": chunk.lane_id[lane], "other_lane": missing,
                                                "mask": members[lane]}, kind="absent")
    return active, members, arrived


@_rule(ShuffleOp)
def _shuffle(chunk: _Chunk, op: ShuffleOp, mask: Mask) -> Sequence[Any]:
    mode = op.mode.data
    what = "__shfl_sync" if mode == "idx" else f"__shfl_{mode}_sync"
    active, members, _ = _warp_check(chunk, op, mask, op.mask, what)
    # PTX `shfl.sync` (ISA 8.x, 9.7.9.6): c = ((32 - width) << 8) | (up ? 0 : 31)
    lane = chunk.lane_id
    b = chunk.lanes(np.asarray(chunk.get(op.offset))).astype(np.int64) & 31
    width = chunk.lanes(np.asarray(chunk.get(op.width))).astype(np.int64)
    segmask = (32 - width) & 31
    clamp = 0 if mode == "up" else 31
    max_lane = (lane & segmask) | (clamp & ~segmask)
    if mode == "up":
        j = lane - b
        valid = j >= max_lane
    elif mode == "down":
        j = lane + b
        valid = j <= max_lane
    elif mode == "xor":
        j = lane ^ b
        valid = j <= max_lane
    else:
        j = (lane & segmask) | (b & ~segmask)
        valid = j <= max_lane
    j = np.where(valid, j, lane)  # out of the segment: the lane keeps its own value
    me = np.arange(chunk.n, dtype=np.int64)
    exists = chunk.lane_thread - lane + j < chunk.threads
    source = np.where(exists, me - lane + j, me)
    readable = exists & active[source] & (((members >> j.astype(np.uint64)) & np.uint64(1)) != 0)
    unreadable = active & ~readable
    if unreadable.any():
        k = _first_lane(chunk, np.flatnonzero(unreadable))
        if exists[k] and active[source[k]]:
            problem = f"shuffle reads lane {j[k]} outside its mask {int(members[k]):#010x}"
        else:
            problem = f"shuffle reads inactive lane {j[k]}"
        chunk.machine.emit(
            "LC212", op, f"{problem}: `{what}` in block {chunk.lane_block[k]}, lane {lane[k]} (thread "
            f"{chunk.lane_thread[k]}); the hardware leaves the value undefined, the emulator gives the "
            "lane its own value",
            where={"block": chunk.lane_block[k], "thread": chunk.lane_thread[k], "lane": lane[k],
                   "other_lane": j[k], "mask": members[k]}, kind="read")
    value = chunk.lanes(chunk.get(op.value))
    return (value[np.where(readable, source, me)],)


@_rule(VoteOp)
def _vote(chunk: _Chunk, op: VoteOp, mask: Mask) -> Sequence[Any]:
    mode = op.mode.data
    if mode == "active":  # `__activemask()`: the warp's lanes that run it, no mask to check
        return (_warp_bits(chunk, _active(chunk, mask)).astype(np.uint32).view(np.int32),)
    active, members, _ = _warp_check(chunk, op, mask, op.mask, f"__{mode}_sync")
    voters = active & (((members >> chunk.lane_id.astype(np.uint64)) & np.uint64(1)) != 0)
    predicate = chunk.lanes(np.asarray(chunk.get(op.predicate))).astype(np.bool_)
    yes = _warp_bits(chunk, voters & predicate) & members
    if mode == "ballot":
        return (yes.astype(np.uint32).view(np.int32),)
    if mode == "any":
        return (yes != 0,)
    return (yes == (_warp_bits(chunk, voters) & members),)


@_rule(SyncWarpOp)
def _syncwarp(chunk: _Chunk, op: SyncWarpOp, mask: Mask) -> Sequence[Any]:
    active, members, arrived = _warp_check(chunk, op, mask, op.mask, "__syncwarp")
    if chunk.scratch:
        synced = np.zeros(chunk.warps, np.uint64)  # per warp: lanes named by the mask that arrived
        lanes = np.flatnonzero(active)
        synced[chunk.lane_warp[lanes]] = members[lanes] & arrived[lanes]
        for scratch in chunk.scratch:
            scratch.new_warp_interval(synced, chunk.warps // chunk.slots)
    return ()


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
