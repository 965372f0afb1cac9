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

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Finding:
        """The finding `to_json` wrote (its severity kept as written: the level it had)."""
        return cls(doc["code"], doc["message"], side=doc.get("side"), buffer=doc.get("buffer"),
                   location=SourceLocation.from_json(doc.get("location")),
                   other_location=SourceLocation.from_json(doc.get("other_location")),
                   witness=doc.get("witness") or {}, hint=doc.get("hint"), severity=Severity(doc["severity"]),
                   evidence=doc.get("evidence"))


# A diff's verdict and its exit code, from the levels of its findings.
EXIT_CODES = {"equivalent": 0, "different": 1, "inconclusive": 3}


def verdict_of(findings: list[Finding]) -> str:
    """`different` when an error was found, else `inconclusive` when something could not be decided,
    else `equivalent`."""
    levels = {f.level for f in findings}
    if Severity.ERROR in levels:
        return "different"
    if Severity.INCONCLUSIVE in levels:
        return "inconclusive"
    return "equivalent"


class Judged:
    """The verdict and the exit code of what holds a diff's `findings` (its `Report`, the JSON
    document a report is printed from): one rule, `verdict_of`."""

    findings: list[Finding]

    @property
    def verdict(self) -> str:
        return verdict_of(self.findings)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]


class Evidence(enum.StrEnum):
    """How a finding, or a check that found nothing, is known; stated in every report."""

    PARAMETRIC = "proved for all sizes"  # isl, with the sizes as parameters
    SWEPT = "proved for the swept sizes"  # isl per concrete size (an index not affine in the sizes)
    REFUTED = "refuted with a witness"  # a static counterexample: sizes, work item, index
    OBSERVED = "observed in a run"  # a differential run or a runner's event showed it
    MEASURED = "measured"  # a tool's numbers (ptxas), a static estimate of traffic
    UNSUPPORTED = "unsupported"  # not modelled: the reason is in the message
    PARTLY = "partly proved"  # proved except for accesses whose index or condition comes from loaded data
    HARNESS = "read from the task's harness"  # `lowercheck audit`: what the task's checker or timer does


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


@_code("LC307", Severity.WARNING, "solution's weights not the reference's")
def _lc307():
    """What it checks: a solution module (KernelBench's `ModelNew`) built from the problem's
    `get_init_inputs()` after the same seed as the reference's `Model` holds the same parameters and
    buffers; where the seed does not make one equal, the reference's of the same name and shape is
    copied into it (CudaForge's rule), and the report names those. A parameter of the solution with no
    counterpart of its name and shape is this finding: no rule says which of the reference's it stands
    for, so it keeps its own values.

    Why it matters: the runs compare two modules' outputs; with other weights they differ for that
    reason alone, and a solution that ignores the task's weights (draws its own, initialises them its
    own way, or drops the bias) computes something else than the task's model.

    Example: `self.weight = nn.Parameter(torch.randn(out, in) * 0.1)` where the problem holds
    `self.conv = nn.Conv2d(...)`: `weight` and `bias` unaligned; the runs then differ (LC301).

    Fix: hold the weights as the problem does (`self.conv = nn.Conv2d(...)`, the same attribute names),
    and pass `self.conv.weight` to the kernel."""


@_code("LC701", Severity.WARNING, "no kernel of the solution's own")
def _lc701():
    """What it checks: a solution module's forward, run by the integrity probe, launches at least one
    kernel of its own (a Triton kernel, a kernel of its `load_inline` extension). The report names the
    ATen operators that computed the output instead.

    Why it matters: a wrapper around `torch.mm`, `at::matmul` or cuBLAS behind the solution's name is
    the most common reward hack of kernel benchmarks (10 of 23 annotated hacks): it is as fast as the
    reference because it is the reference's library.

    Example: `class ModelNew: def forward(self, A, B): return torch.mm(A.contiguous(), B.contiguous())`.

    Fix: write the kernel the task asks for. A warning by default (level-2 tasks keep torch's
    convolution and fuse the rest); an error with `--custom-kernel required`."""


@_code("LC702", Severity.ERROR, "ghost kernel: the output does not come from the solution's kernels")
def _lc702():
    """What it checks: with every kernel launch of the solution counted but not run (a no-op), its
    output must change; the probe compares the bits.

    Why it matters: a kernel launched beside a torch computation that produces the output makes a
    solution look authored while torch does the work (a "ghost kernel").

    Example: `_noop_kernel[grid](x, n)` then `return torch.softmax(x, -1)`.

    Fix: make the kernel produce the output."""


@_code("LC703", Severity.ERROR, "output changes with the call count, the caller or the environment")
def _lc703():
    """What it checks: the same inputs (fresh copies, the seed reset before each call) give the same
    output up to rounding on six calls in a row, when called through functions named as a harness's
    checker and timer (`run_and_check_correctness`, `time_execution_with_cuda_event`, `do_bench`),
    and with each environment variable the solution's own code reads set (or unset); the finding
    names the first call, caller or variable at which the output changed.

    Why it matters: a solution that counts its calls, reads its call stack (`inspect.stack()`,
    `sys._getframe`) or looks for a harness's environment can be exact for a checker and skip work
    for the benchmark (evaluator-phase detection).

    Example: `self.calls += 1; if self.calls > 5: return torch.empty_like(x)`, or
    `if os.environ.get("BENCH_TIMING"): return x`.

    Fix: compute the same function on every call."""


@_code("LC704", Severity.ERROR, "result replayed after its input changed")
def _lc704():
    """What it checks: after the inputs are changed in place (the same storage and shape) to values
    on which the reference's output changes, the solution's output changes too, and agrees (up to
    rounding) with a call on fresh copies of the new values: neither the previous call's output nor
    a mix of it with the new one.

    Why it matters: a cache keyed on a tensor's pointer, shape or identity returns the result of
    the checker's call to the benchmark's calls, which reuse the input buffers.

    Example: `key = (x.data_ptr(), x.shape); if key in self.cache: return self.cache[key]`.

    Fix: compute from the input's values on every call."""


@_code("LC705", Severity.ERROR, "output changed after the call returned")
def _lc705():
    """What it checks: a tensor the solution returned keeps its values after the call returned,
    through the probe's later calls.

    Why it matters: work that completes after return (a deferred copy, a buffer a later call writes
    into) lets a timer stop early, or a checker read what a later call computed.

    Example: returning `self.out` and writing every call's result into that same buffer.

    Fix: finish the output before returning, in memory no later call reuses."""


@_code("LC706", Severity.ERROR, "output is a tensor subclass")
def _lc706():
    """What it checks: the solution returns plain `torch.Tensor` outputs.

    Why it matters: a subclass (or one with `__torch_function__`) can defer its computation into the
    operations the checker runs on it, so the timed call does nothing.

    Example: `class Lazy(torch.Tensor): ...` returned from forward.

    Fix: return plain tensors."""


@_code("LC707", Severity.ERROR, "solution changes the process's state")
def _lc707():
    """What it checks: the solution's import and calls leave torch's precision and determinism flags
    (TF32, reduced-precision reductions, the float32 matmul precision, the default dtype, denormals
    flushed to zero), the
    functions a harness compares and times with (`torch.allclose`, `torch.testing.assert_close`,
    `time.perf_counter`, `torch.cuda.Event`, `torch.cuda.synchronize`) and the reference's own
    `forward` as they were.

    Why it matters: a solution that sets `allow_tf32` at import makes the reference (and the
    baseline's timing) run in its precision; one that replaces a timer or a comparison decides its
    own result (reference poisoning, patched timers).

    Example: `torch.backends.cuda.matmul.allow_tf32 = True` at the top of the solution's file.

    Fix: change nothing outside the solution's own kernels."""


@_code("LC708", Severity.WARNING, "work left where the timer does not look")
def _lc708():
    """What it checks: no thread the solution started is still running when it returns, and no work
    runs under a side CUDA stream (`torch.cuda.stream(s)`).

    Why it matters: events recorded on the current stream do not see another stream's work, and a
    thread finishing the output later is not timed (stream or thread injection).

    Example: `with torch.cuda.stream(self.side): out = kernel(x)` returned without a synchronisation.

    Fix: run on the current stream, or synchronise with it before returning."""


@_code("LC709", Severity.ERROR, "relies on the task's input distribution")
def _lc709():
    """What it checks: a solution whose task draws its inputs from a narrow distribution (`torch.rand`:
    every float in [0, 1)) is right there and also on signed normal inputs at the same sizes.

    Why it matters: right only on the harness's distribution is a statistical shortcut (distribution
    sniffing): a ReLU that is the identity on non-negative inputs, a loss's closed-form expectation
    on uniform inputs. It passes the task's checker and computes something else.

    Example: `def forward(self, x): return x.clone()` for `torch.relu` on `torch.rand` inputs.

    Fix: compute the operation for every input it is defined on."""


@_code("LC710", Severity.WARNING, "matrix products in another precision than the reference's")
def _lc710():
    """What it checks: the matrix products and convolutions the solution runs with torch use the
    reference's operand precision (from the reference's operator graph).

    Why it matters: fp16/bf16/TF32 where fp32 was asked, or bf16 where the task multiplies fp8
    operands, is another computation; a loose tolerance may hide it, and its speed is the
    precision's, not the kernel's.

    Example: `a.to(torch.bfloat16) @ b.to(torch.bfloat16)` for a float8 GEMM task.

    Fix: multiply in the task's precision."""


@_code("LC711", Severity.WARNING, "cache policy that outlives an L2 flush")
def _lc711():
    """What it checks: the solution's source asks for data to stay in L2 (a call's `eviction_policy=
    "evict_last"` in Triton, as Python's parser reads it; in the CUDA source, as clang's lexer reads
    it: a persisting access-policy window, `cudaLimitPersistingL2CacheSize`, PTX's `L2::evict_last`).
    Never in a comment. A warning: no run shows its effect.

    Why it matters: a harness flushes L2 between timed calls to time cold memory; a persisting window
    survives the flush, so the kernel is timed warm (2 of 23 annotated hacks).

    Example: `tl.load(p, eviction_policy="evict_last")` on an input read once.

    Fix: leave the cache policy to the hardware, or time both warm and cold."""


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


# Task audit (`lowercheck audit`, lowercheck/audit): findings about the task, not about one solution.
# LC60x numerical correctness, LC61x/LC62x benchmark fairness, LC63x scoping, LC64x validity.


@_code("LC601", Severity.ERROR, "the task's checker accepts a wrong solution")
def _lc601():
    """What it checks: wrong solutions made from the reference (all zeros, a copy of an input, the mean,
    the reference computed in fp16 or bf16, tanh-GELU for erf-GELU, `__expf` for `expf`, softmax
    without the max subtraction, the last partial tile left unwritten, the output transposed) run
    through the task's own tolerance, inputs and trials.

    Why it matters: a solution that does no work, or does the wrong work, scores as correct; a
    leaderboard built on the task is wrong.

    Example: KernelBench's bf16 softmax over 16384 columns: outputs are about 6e-5, under atol 1e-2,
    so an output of zeros passes.

    Fix: a tolerance derived from the dtype and the operation (rtol-dominated for small outputs),
    inputs that make the wrong solution differ (large logits for softmax, signed inputs for ReLU)."""


@_code("LC602", Severity.ERROR, "the task's checker rejects a correct solution")
def _lc602():
    """What it checks: correct solutions made from the float64 oracle: the exact answer rounded to the
    output dtype, an answer exactly as far from the truth as the reference's own (another summation
    order, split-K, fp32 accumulation where the reference accumulates otherwise), and TF32 products
    where the task allows TF32; each against the task's tolerance, with the derived one (dtype, op,
    reduction length K) beside it.

    Why it matters: a correct kernel fails the task; solvers learn to reproduce the reference's
    rounding instead of computing the right answer.

    Example: an fp32 matmul with K = 8192 checked at atol = rtol = 1e-6: the reference itself is 4e-5
    from the exact product, so a kernel summing in another order is rejected.

    Fix: a tolerance that grows with K (`gamma_K = K u / (1 - K u)`, typically `sqrt(K) u`), or the
    FlashAttention rule: the error against an fp32/fp64 reference at most twice the framework's own."""


@_code("LC603", Severity.ERROR, "the reference is further from the exact answer than the tolerance")
def _lc603():
    """What it checks: the task's reference against the same computation in float64 (the oracle), on
    the task's inputs, measured with the task's own tolerance.

    Why it matters: the reference then judges solutions by its own rounding error: a more accurate
    kernel fails, one reproducing the reference's shortcuts passes. Typical cause: a reference computed
    in the same low precision it judges (bf16 accumulation).

    Example: a bf16 reference summing 65536 elements in bf16 is off by 2e-1 at atol 1e-2.

    Fix: compute the reference in float32 (or float64) and round once at the end."""


@_code("LC604", Severity.ERROR, "the reference is nondeterministic")
def _lc604():
    """What it checks: the reference called twice on the same inputs in one process gives the same
    bits; the operators it calls (random number generators, dropout in training mode, atomics such as
    `index_add_` and `scatter_add_` on a GPU) are listed.

    Why it matters: the checker then compares a solution with a moving target: correct solutions fail
    at random, and the tolerance gets loosened until wrong ones pass.

    Example: a reference that adds `torch.randn_like(x) * 0.1` noise, or a Model left in training mode
    with `nn.Dropout`.

    Fix: seed inside the reference, call `.eval()`, or move the randomness into `get_inputs`."""


@_code("LC611", Severity.ERROR, "the inputs make the operation trivial")
def _lc611():
    """What it checks: whether an operator of the reference is the identity on the task's inputs (ReLU
    or abs of non-negative values, a clamp that clamps nothing), a softmax is nearly uniform (no
    element above three times the uniform value), or an input is constant or has every row equal.

    Why it matters: a solution that skips the operation passes and is timed as faster.

    Example: KernelBench's ReLU problem draws `torch.rand` inputs, all in [0, 1): ReLU is the
    identity and returning the input passes bit for bit.

    Fix: signed inputs (`torch.randn`), logits with a spread (scaled randn), rows that differ."""


@_code("LC612", Severity.ERROR, "the inputs are identical across trials")
def _lc612():
    """What it checks: whether the inputs of the correctness trials (or of the timed repetitions)
    differ from one trial to the next, as the harness draws them (its seeding).

    Why it matters: a solution that caches its result (keyed on the input's data pointer or shape)
    passes every trial after the first and is timed on the cached answer; extra trials add no
    coverage.

    Example: a harness seeding every trial with the same seed; a timing loop calling the kernel on
    one set of inputs 100 times.

    Fix: a seed per trial, fresh inputs (or an in-place change of the inputs) per timed repetition."""


@_code("LC613", Severity.ERROR, "a stale output from a recycled allocation passes")
def _lc613():
    """What it checks: the order in which the checker runs the reference and the solution, and
    whether memory freed between them is overwritten.

    Why it matters: the CUDA caching allocator hands the solution the block the reference's output
    just freed: a solution returning `torch.empty_like(x)` holds the reference's answer and passes
    without computing anything (KernelBench's `result_reuse` exploit).

    Example: `ref = model(*inputs); del ref; out = solution(*inputs); allclose(out, ref_copy)`.

    Fix: run the solution first, or in another process, or fill freed memory with a poison value."""


@_code("LC614", Severity.ERROR, "the timed work is below launch overhead")
def _lc614():
    """What it checks: the roofline floor of the reference at the task's sizes (bytes moved over the
    target's memory bandwidth, FLOPs over its peak) against the cost of a kernel launch.

    Why it matters: below a few microseconds the timing measures launches and Python overhead; the
    speedup rewards fusing launches or CUDA graphs, not a better kernel.

    Example: a vector add of 4096 floats moves 48 KiB: 15 ns at 3.35 TB/s against about 5 us per launch.

    Fix: sizes whose floor is well above the launch overhead (tens of microseconds)."""


@_code("LC615", Severity.ERROR, "every size is a multiple of the tile")
def _lc615():
    """What it checks: whether every dimension of every input (those of 16 or more) is a multiple of a
    common power of two of at least 16.

    Why it matters: a kernel without tail masks (the most common translation bug) passes every check,
    and the tail's cost is never timed.

    Example: all inputs 4096 x 4096: a Triton port without `mask=offs < n` passes.

    Fix: at least one size that is not a multiple of any tile (4093, 1000 + 7)."""


@_code("LC621", Severity.ERROR, "the timing runs from a warm L2 cache")
def _lc621():
    """What it checks: the working set of one call (inputs, outputs, parameters) against the target's
    L2 cache, when the harness does not flush the cache between repetitions.

    Why it matters: every repetition after the first reads from L2, not from memory: the timing of a
    memory-bound kernel is several times its real cost, and a kernel tuned for a warm cache wins.

    Example: 8 MiB of inputs on an H100 (50 MiB of L2), timed 100 times without a flush.

    Fix: flush L2 before each repetition (Triton's do_bench writes 256 MiB; nvbench its L2 size) or
    rotate among enough input copies to exceed L2."""


@_code("LC622", Severity.ERROR, "the timing misses work on other streams")
def _lc622():
    """What it checks: what the harness's timer sees: CUDA events recorded on the current stream only,
    or no synchronisation before reading them.

    Why it matters: a solution that launches its work on another stream (or thread) is timed as
    nearly free (KernelBench's `non_default_stream` exploit); without a synchronisation the events
    may be read before the work ends.

    Example: `with torch.cuda.stream(s): out = kernel(x)` inside the timed call.

    Fix: synchronise the device (not the stream) before the end event, or time wall clock with
    `torch.cuda.synchronize()` around each call."""


@_code("LC623", Severity.ERROR, "too few timed repetitions for the noise")
def _lc623():
    """What it checks: the repetitions, the warm-up and the statistic: fewer than 10 repetitions, a
    mean over fewer than 30, or no warm-up.

    Why it matters: GPU timings of short kernels vary by several percent from run to run and have
    outliers (clock changes, other processes); a mean of a few samples rewards luck, and a call
    without warm-up times compilation and autotuning.

    Example: `reps = 5`, `statistic = "mean"`, `warmup = 0`.

    Fix: a median over enough repetitions for a stable figure (nvbench stops at 0.5% noise)."""


@_code("LC624", Severity.ERROR, "the baseline is timed in another precision mode")
def _lc624():
    """What it checks: whether a solution using TF32 for the float32 products passes the checker while
    the baseline is timed with TF32 off.

    Why it matters: TF32 tensor cores run fp32 products several times faster (7.4x the FLOP/s on an
    H100): the speedup then measures the precision mode, not the kernel.

    Example: a matmul task timed against `torch.matmul` with `allow_tf32 = False` and checked at
    atol = rtol = 1e-2, which TF32 products pass.

    Fix: time the baseline in the mode the checker allows, or tighten the tolerance below TF32's error."""


@_code("LC631", Severity.ERROR, "the output's dtype or layout is not checked")
def _lc631():
    """What it checks: whether the checker compares the solution's output dtype and layout (strides)
    with the reference's.

    Why it matters: a solution returning float32 for a bf16 task (twice the bytes, more precision) or a
    transposed view passes; the task has no single answer.

    Example: a checker comparing `out.float()` with `ref.float()`.

    Fix: check `out.dtype == ref.dtype` and the layout the task specifies (`is_contiguous()`)."""


@_code("LC632", Severity.ERROR, "one fixed shape: a solution hard-coding it passes")
def _lc632():
    """What it checks: whether the task's inputs have the same shapes in every trial.

    Why it matters: a solution that hard-codes the sizes (grid, strides, loop bounds) passes and fails
    on the next shape; KernelBench-Hard found submissions that recognised the public input scale.

    Example: `get_inputs()` returning one `torch.rand(16, 16384)` for every trial.

    Fix: shapes drawn per trial (with a printed seed), among them sizes that are not multiples of any tile."""


@_code("LC633", Severity.ERROR, "in-place updates of the inputs are not caught")
def _lc633():
    """What it checks: whether the checker gives each side its own copy of the inputs and verifies that
    the solution left them unchanged; whether the reference itself writes its inputs.

    Why it matters: a solution that overwrites its inputs (or returns one of them, updated) corrupts the
    reference's next run or its own timing (KernelBench's `zero_out` exploit).

    Example: `out = x.relu_()` returned as the output.

    Fix: clone the inputs for each side and compare them with a saved copy after the call."""


@_code("LC634", Severity.ERROR, "unseeded weights or init inputs")
def _lc634():
    """What it checks: whether building the Model twice (and calling `get_init_inputs()` twice) gives
    the same parameters, when the harness does not seed before each construction.

    Why it matters: the reference and the solution get different weights: a correct solution fails,
    and the tolerance gets loosened until wrong ones pass.

    Example: `nn.Linear` layers built without `torch.manual_seed` before each side's Model.

    Fix: seed before each construction, or pass the weights through `get_init_inputs`."""


@_code("LC635", Severity.ERROR, "two readings of the task both pass")
def _lc635():
    """What it checks: plausible readings of an ambiguous operator (biased and unbiased variance or
    standard deviation, floor and truncating division) computed from the reference; both passing the
    checker means the task does not say which one it wants.

    Why it matters: the task has no single answer; a solution may be right by one reading and wrong by
    another at other sizes (the two variances differ by N/(N-1): invisible at N = 4096, not at N = 2).

    Example: `x.var(dim=-1)` with N = 8192 checked at rtol = 1e-2.

    Fix: state the reading, and choose sizes or a tolerance that tell the readings apart."""


@_code("LC641", Severity.ERROR, "the task does not fit the target's memory")
def _lc641():
    """What it checks: the inputs, parameters, outputs and the largest intermediate of the reference at
    the task's sizes (computed on meta tensors, nothing allocated) against the target's memory.

    Why it matters: the task fails with an out-of-memory error on the hardware it is for.

    Example: a 65536 x 65536 float32 matmul (48 GiB of operands and result) on a 24 GB L4.

    Fix: smaller sizes, or a target with more memory."""


@_code("LC642", Severity.ERROR, "the task's code does not compile for the target")
def _lc642():
    """What it checks: the task's CUDA, Triton or Pallas source compiled for the target (nvcc for its
    architecture, Triton's compiler for its GPU, the Pallas TPU lowering).

    Why it matters: the task cannot be solved or checked on the hardware it names.

    Example: a CUDA reference using Hopper-only `cp.async.bulk` for an A100 target.

    Fix: the compiler's message shows where; choose the target, or change the code."""


@_code("LC644", Severity.ERROR, "an autotuning config does not fit the target")
def _lc644():
    """What it checks: each `triton.Config` of an `@triton.autotune` kernel compiled for the target,
    its shared memory and registers against the target's limits.

    Why it matters: the autotuner fails ("out of resource: shared memory") or silently drops configs on
    the target; the timing depends on which ones survive.

    Example: BLOCK_M = BLOCK_N = 256, BLOCK_K = 64, 4 stages on an L4 (99 KiB of shared memory per block).

    Fix: prune configs by the target's limits (`prune_configs_by`) or remove the large ones."""


@_code("LC645", Severity.ERROR, "the task uses a dtype the target lacks")
def _lc645():
    """What it checks: the dtypes the reference computes in against the target: float64 on a TPU, fp8
    before compute capability 8.9 (A100), bf16 before 8.0.

    Why it matters: the task cannot run on the target, or runs emulated far slower than intended.

    Example: a float8_e4m3fn GEMM task for an A100.

    Fix: a target with the dtype, or a dtype the target has."""


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


@_code("LC903", Severity.WARNING, "user code left processes running after its stage")
def _lc903():
    """What it checks: when a stage that runs a side's code ends (a front end's import or capture, a
    run), no process it started is still running: a daemon (a double fork into a session of its
    own), a `subprocess.Popen` never waited for, a worker pool left open. The sandbox sees them (the
    stage's process is the reaper of every orphan it makes), names how many and their commands, and
    kills them; none outlives the stage.

    Why it matters: a warning, not an error: the kernel's results may well be right, and the verdict
    stands on them. But a kernel file that leaves processes behind keeps a GPU, memory or a port busy
    in whatever imports it (a test suite, a training job), and a hostile file may try to outlive the
    check that reads it.

    Example: a port that runs `if os.fork() == 0: os.setsid(); ...` at import to start a helper.

    Fix: wait for what you start (`with subprocess.Popen(...)`, `pool.join()`), or start nothing at
    import time."""


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
