"""Findings are data: one `Finding` type, and a registry of stable codes, each with its documentation.

Passes, comparisons and runners return findings; only `lowercheck.report` prints them. A code's
docstring (What it checks / Why it matters / Example / Fix) is its documentation page:
`python -m lowercheck.findings --write-docs docs/codes` writes one Markdown page per code.
Codes are never renumbered; new ones are appended.
"""

from __future__ import annotations

import argparse
import enum
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lowercheck.errors import SourceLocation


class Severity(enum.StrEnum):
    ERROR = "error"  # the two sides differ: verdict `different`
    WARNING = "warning"  # worth a reviewer's look; does not change the verdict
    INFO = "info"  # a fact the report states (geometry, perf ratio)
    INCONCLUSIVE = "inconclusive"  # lowercheck could not decide: verdict `inconclusive`


@dataclass(frozen=True)
class Code:
    """A finding code: its number, default severity, short title and documentation."""

    code: str
    severity: Severity
    title: str
    doc: str


@dataclass(frozen=True)
class Finding:
    """One thing a reviewer should know, with where it is on each side and how to show it."""

    code: str
    message: str
    side: str | None = None  # "source", "target", or None for a comparison of both
    buffer: str | None = None
    location: SourceLocation | None = None
    other_location: SourceLocation | None = None
    witness: dict[str, Any] = field(default_factory=dict)
    hint: str | None = None
    severity: Severity | None = None  # None: the code's default
    # How the finding is known (`Evidence`): refuted by a static witness, observed in a run, ...
    evidence: str | None = None

    @property
    def level(self) -> Severity:
        return self.severity or CODES[self.code].severity

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": str(self.level),
            "side": self.side,
            "buffer": self.buffer,
            "message": self.message,
            "location": self.location.to_json() if self.location else None,
            "other_location": self.other_location.to_json() if self.other_location else None,
            "witness": self.witness,
            "hint": self.hint,
            "evidence": self.evidence,
        }


class Evidence(enum.StrEnum):
    """How a finding, or a check that found nothing, is known; stated in every report."""

    PARAMETRIC = "proved for all sizes"  # isl, with the sizes as parameters
    SWEPT = "proved for the swept sizes"  # isl per concrete size (an index not affine in the sizes)
    REFUTED = "refuted with a witness"  # a static counterexample: sizes, work item, index
    OBSERVED = "observed in a run"  # a differential run or a runner's event showed it
    MEASURED = "measured"  # a tool's numbers (ptxas), a static estimate of traffic
    UNSUPPORTED = "unsupported"  # not modelled: the reason is in the message
    PARTLY = "partly proved"  # proved except for accesses whose index or condition comes from loaded data


CODES: dict[str, Code] = {}


def _code(number: str, severity: Severity, title: str):
    def register(func):
        CODES[number] = Code(number, severity, title, inspect.cleandoc(func.__doc__ or ""))
        return func

    return register


@_code("LC101", Severity.INFO, "launch geometry differs")
def _lc101():
    """What it checks: the number of programs/blocks and threads each side launches, as expressions
    over the sizes.

    Why it matters: a different geometry is not wrong by itself (a port may use bigger tiles), but it
    explains the other findings and the performance.

    Example: CUDA launches `ceil(n/256)` blocks of 256 threads; the Triton port `ceil(n/1024)` programs.

    Fix: nothing, unless another finding points at the geometry."""


@_code("LC102", Severity.ERROR, "exceeds a hardware limit")
def _lc102():
    """What it checks: block size, shared memory, registers and grid dimensions against the target's
    limits.

    Why it matters: the kernel fails to launch (or to compile) on the target.

    Example: 2048 threads per block; 300 KiB of shared memory on an H100.

    Fix: smaller tiles, or split the work."""


@_code("LC103", Severity.ERROR, "block shape the target cannot lower")
def _lc103():
    """What it checks: block shapes against the target compiler's rules (TPU (8, 128) tiling,
    power-of-two Triton blocks).

    Why it matters: the kernel does not compile for the migration target.

    Example: a Pallas BlockSpec of (8, 100) for a TPU.

    Fix: pad the block to the tiling rule."""


@_code("LC201", Severity.ERROR, "out-of-bounds access")
def _lc201():
    """What it checks: every index of every load and store lies inside its buffer, for every size
    (parametric) or every swept size.

    Why it matters: reads return garbage or fault; writes corrupt other tensors, often silently.

    Example: a Triton port without `mask=offs < n` reads past the end of `x` when n is not a multiple
    of BLOCK.

    An access at an index computed from loaded data (`table[ids[i]]`) is checked by every run instead
    ("partly proved"); the runs draw index inputs inside what they index, or in the spec's `range`.
    Where the source itself indexes out of bounds with a loaded index, the run's inputs are outside its
    domain: a warning, and that run judges neither side.

    Fix: guard the access (`mask=` in Triton, `if (i < n)` in CUDA)."""


@_code("LC202", Severity.ERROR, "output elements not written")
def _lc202():
    """What it checks: the union of the elements each output's stores write covers the whole output.

    Why it matters: the unwritten elements hold whatever the allocation held; tests that reuse
    memory or use multiples of the tile size miss it.

    Example: launching `n // BLOCK` programs leaves the last `n % BLOCK` elements unwritten.

    Fix: launch `cdiv(n, BLOCK)` programs and mask the tail."""


@_code("LC203", Severity.ERROR, "element written twice without atomics")
def _lc203():
    """What it checks: no output element is written by two work items (two CUDA threads, two
    programs, two launches), nor twice by one program with no order between the writes (two lanes
    of one store, or two positions of its tiles: different threads of the program), unless the
    writes are atomic. One thread's rewrites are in program order and are not double writes: an
    output used as scratch and overwritten later, or a loop storing its running sum into out[i]
    every trip (the write relation is checked for injectivity modulo the thread). So are the
    steps along an ordered grid axis: a Pallas TPU kernel's axis declared "arbitrary" in its
    `dimension_semantics`, whose steps one core runs in order (an output block revisited at each
    k step of a matmul).

    Why it matters: the result depends on scheduling order.

    Example: overlapping tiles, `pid * (BLOCK - 1)` offsets; `tl.store(out + offs // 2, v)`.

    Fix: make the tiles disjoint or use atomics."""


@_code("LC204", Severity.ERROR, "an output depends on different input elements")
def _lc204():
    """What it checks: the dependence map (which input elements each output element reads, through
    shared-memory trees, warp shuffles and loops) is the same on both sides, and the operators that
    combine them (sum, max, min) are not disjoint.

    Why it matters: a transposed or shifted index gives plausible but wrong values; a reduction over
    the wrong row stride or axis, or with max where the source sums, reads plausible inputs.

    Example: the source reads `in[i][j]`, the port `in[j][i]`; the source's shared-memory tree sums a
    row, the port takes `tl.max` of it.

    Fix: correct the index expression of the load, or the reduction's operator."""


@_code("LC205", Severity.WARNING, "stride/coalescing class differs")
def _lc205():
    """What it checks: the 32-byte sectors a warp request touches along each access's fastest lane
    (CUDA: threadIdx.x; Triton: the tile dimension along which the pointer is contiguous, as Triton's
    coalescing pass orders threads, else the last one), per buffer, at nominal sizes; reported when
    the target needs materially more (1.5x) than the source, with both stride classes (contiguous,
    strided(k), broadcast, gather).

    Why it matters: uncoalesced accesses multiply memory transactions: 32 sectors instead of 4 for
    a warp of fp32 loads.

    Example: the source's threads read a row of `x` (contiguous); the port's 1-D tile walks down a
    column (`rows * n + col`, strided(n)): no dimension of its tile is contiguous.

    Fix: make the fastest lane walk the contiguous dimension, or stage the tile through shared memory."""


@_code("LC206", Severity.WARNING, "bytes moved differ")
def _lc206():
    """What it checks: compulsory bytes (distinct elements) and requested bytes (every access
    instance) per buffer on each side, counted with isl at nominal sizes; reported when the target
    requests materially more (1.5x) than the source.

    Why it matters: extra traffic costs time; the port may re-read data the source reads once.

    Example: a port that loads each input tile twice.

    Fix: reuse the loaded tile."""


@_code("LC207", Severity.ERROR, "shared-memory race / missing barrier")
def _lc207():
    """What it checks: two threads access the same shared element between barriers, one writing.

    Why it matters: the result depends on warp scheduling.

    Example: a tiled transpose without `__syncthreads()` between the store to and load from the tile.

    Fix: add the barrier."""


@_code("LC208", Severity.ERROR, "barrier divergence")
def _lc208():
    """What it checks: barriers are reached by all threads of a block.

    Why it matters: a barrier under a thread-dependent condition deadlocks or is undefined.

    Example: `if (tid < n) __syncthreads();`.

    Fix: move the barrier out of the condition."""


@_code("LC209", Severity.ERROR, "index overflow")
def _lc209():
    """What it checks: integer index computations stay within their type for the sizes in the spec.
    Statically: every index subexpression the kernel computes in 32-bit integers (Triton's default
    for int arguments below 2^31, C's `int`) is bounded with isl over the work items that perform
    the access, at each swept size. In the emulator: an i32 operation that wraps into an index.

    Why it matters: int32 offsets wrap at 2^31 elements; the kernel then reads and writes elsewhere.

    Example: `pid * BLOCK` in int32 for a tensor of 3e9 elements.

    Fix: compute offsets in int64."""


@_code("LC210", Severity.ERROR, "read of uninitialised memory")
def _lc210():
    """What it checks: every element read from shared memory or an output was written first.

    Why it matters: the value is whatever the memory held.

    Example: reading a shared tile before all threads stored to it.

    Fix: initialise, or synchronise before reading."""


@_code("LC211", Severity.ERROR, "kernel writes an input buffer")
def _lc211():
    """What it checks: the kernel stores only to its outputs.

    Why it matters: the caller's input changes; later uses see wrong data.

    Example: a port that writes its result into `x` and returns `x`.

    Fix: allocate the output."""


@_code("LC212", Severity.ERROR, "warp-synchronous op with a wrong mask or an inactive lane")
def _lc212():
    """What it checks: every `__shfl*_sync`, `__ballot_sync`/`__any_sync`/`__all_sync` and
    `__syncwarp` is executed by exactly the lanes its mask names, and a shuffle reads an active lane
    inside the mask.

    Why it matters: the value read from an inactive or excluded lane is undefined; the kernel works
    on one GPU generation and breaks on the next (independent thread scheduling since Volta).

    Example: a warp reduction with mask `0x0000ffff` whose `__shfl_down_sync(mask, v, 16)` reads
    lanes 16..31.

    Fix: use the mask of the lanes that actually execute the op (often `0xffffffff`), or
    `__activemask()` where the set is data-dependent."""


@_code("LC301", Severity.ERROR, "values differ beyond tolerance")
def _lc301():
    """What it checks: the outputs of both sides on the same inputs agree within the tolerance for
    their dtype and operation.

    Why it matters: the port computes something else.

    Example: `x - y` where the source computes `x + y`.

    Fix: compare the arithmetic at the reported index."""


@_code("LC302", Severity.ERROR, "NaN/Inf mismatch")
def _lc302():
    """What it checks: NaN and infinity appear at the same positions on both sides.

    Why it matters: a NaN or an infinity on one side only, from finite inputs, is the kernel's own
    overflow or 0/0 (an error). Where the inputs themselves hold NaN or infinities, the answer may
    depend on the math library and the machine (PyTorch's erf-based GELU is NaN at +inf on some
    CPUs, +inf on others): then the finding is a warning naming the element and both values, and
    the verdict comes from the runs on finite inputs (docs/portability.md).

    Example: a softmax without max subtraction is NaN at large finite inputs (error); a max-reduction
    that drops NaN differs only where an input is NaN (warning).

    Fix: avoid the overflow (subtract the max, rescale); follow the source's special-value semantics
    if the task specifies NaN/Inf inputs."""


@_code("LC303", Severity.ERROR, "unwritten output (poison survived)")
def _lc303():
    """What it checks: outputs are filled with a poison value (NaN) before the run; any poison left
    after it marks an element the kernel never wrote.

    Why it matters: a freshly allocated output holds stale data that may even look right.

    Example: the tail of the output after `n // BLOCK` programs.

    Fix: see LC202."""


@_code("LC304", Severity.WARNING, "nondeterministic")
def _lc304():
    """What it checks: two runs with different block and atomic orders give the same result.

    Why it matters: results that depend on scheduling cannot be tested reliably.

    Example: float atomics accumulating in a different order.

    Fix: a deterministic reduction order, or accept it with a looser tolerance."""


@_code("LC305", Severity.ERROR, "precision loss in accumulation")
def _lc305():
    """What it checks: the float types each output's value was summed in (adds, dot products,
    reductions, atomics; through shared memory), on both sides; an error when the target's narrowest
    has fewer significand bits than the source's (tf32 counts as 11: `tl.dot` on fp32 inputs rounds
    them to tf32 unless `input_precision="ieee"`).

    Why it matters: fp16/bf16 accumulation loses digits that a loose tolerance hides.

    Example: `acc = tl.zeros(..., tl.float16)` where the source accumulates in float.

    Fix: accumulate in fp32."""


@_code("LC306", Severity.ERROR, "input mutated by the run")
def _lc306():
    """What it checks: the inputs are unchanged after the run.

    Why it matters: the caller's tensors change behind its back.

    Example: an in-place activation on the input.

    Fix: write into the output."""


@_code("LC401", Severity.INFO, "performance ratio")
def _lc401():
    """What it checks: the measured (on a GPU) or modelled time of the target against the source.
    Measured: the median of the per-round ratios target/source, both sides alternating in one process,
    with a 95% bootstrap confidence interval, cold cache (L2 flushed before each sample) and hot cache
    apart.

    Why it matters: half of a translation review is whether the port is as fast as it claims.

    Example: target/source = 0.800 [0.796, 0.804] cold cache (the port is 20% faster).

    Fix: nothing; a fact. An interval wider than 1% means the time budget ended first."""


@_code("LC402", Severity.ERROR, "implausible speed (measurement artefact)")
def _lc402():
    """What it checks: the bandwidth or FLOP/s implied by the cold-cache median (for the bytes and
    FLOPs the kernel must move and compute) stays under the device's ceiling (datasheet, or measured),
    and device events see the work that a synchronised wall clock sees.

    Why it matters: work on another stream, lazy evaluation or a skipped computation wins benchmarks.

    Example: 9 TB/s on a 3.35 TB/s H100; events see 4 µs of a 1.2 ms synchronised call because the
    kernel runs on a side stream.

    Fix: do the work on the timed stream, inside the call; check the byte and FLOP counts."""


@_code("LC403", Severity.ERROR, "result caching")
def _lc403():
    """What it checks: the kernel is called, new values are copied into the same input buffers, and
    it is called again: the output must change (unless the other side's output does not change either).

    Why it matters: a kernel that caches its result wins a benchmark that reuses inputs.

    Example: a module that memoises on the input's data pointer, or returns the output of its first
    call for every input of the same shape.

    Fix: compute every call."""


@_code("LC501", Severity.WARNING, "tolerance accepts a trivial output")
def _lc501():
    """What it checks: whether the tolerance would accept zeros, a copy of an input, or the mean.

    Why it matters: the task's check cannot tell a real kernel from a trivial one.

    Example: softmax outputs in bf16 are below atol, so zeros pass.

    Fix: tighten the tolerance or change the inputs."""


@_code("LC901", Severity.INCONCLUSIVE, "unsupported construct (inconclusive)")
def _lc901():
    """What it checks: nothing: lowercheck met a construct it cannot model, or access relations too
    costly for isl's operation budget (`LOWERCHECK_ISL_OPERATIONS`, 10^8 by default: "too complex").

    Why it matters: the static verdict is inconclusive; never a silent pass, never a hang.

    Example: an indirect index `x[idx[i]]` in an analysis that needs affine indices.

    Fix: report it; the dynamic checks still run."""


@_code("LC902", Severity.ERROR, "run failure (compile error, crash, timeout, OOM)")
def _lc902():
    """What it checks: each side compiles and runs to completion within its time and memory limits,
    and its entry can be captured at every swept size (a Pallas entry or a size-dependent Triton
    wrapper that raises at some sizes of the spec fails there).

    Why it matters: a kernel that hangs, crashes or raises on some sizes is not a correct port.

    Example: the Triton interpreter aborts on an out-of-bounds pointer; a kernel loops forever.

    Fix: see the message; run the side alone to reproduce."""


def render_doc(code: Code) -> str:
    return f"# {code.code}: {code.title}\n\nSeverity: {code.severity}\n\n{code.doc}\n"


def write_docs(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for code in CODES.values():
        path = folder / f"{code.code}.md"
        path.write_text(render_doc(code))
        written.append(path)
    index = ["# Finding codes", "", "| code | severity | title |", "| --- | --- | --- |"]
    index += [f"| [{c.code}]({c.code}.md) | {c.severity} | {c.title} |" for c in CODES.values()]
    (folder / "README.md").write_text("\n".join(index) + "\n")
    return written


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Write one documentation page per finding code.")
    parser.add_argument("--write-docs", type=Path, required=True)
    print(f"wrote {len(write_docs(parser.parse_args().write_docs))} pages")
