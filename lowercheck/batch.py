"""`lowercheck corpus DIR`: run every case of a corpus (or a reviewer's task folders) and summarise.

A case is a `[[case]]` of an `expected.toml` anywhere under DIR: `source`, `target`, the expected
`verdict` and `codes`, and optionally `mode = "static"` (judged with `--no-run`), `spec`, `args` (more
`diff` options, e.g. `["--platform", "tpu-v5e"]`; not passed to the baseline), and
`class` (the bug class, one of `BUG_CLASSES`, for the summary; the results file repeats it per
case). Each case runs as its own `lowercheck diff` process, N at a time, each with a time limit; a
result is appended to the results file (JSON lines) the moment it is known (in lowercheck's cache,
keyed by the folder and lowercheck's sources, or `--json FILE`), so a run that is interrupted and
started again skips the cases already done and loses nothing. With `--baseline kernelbench` every
run case is also judged the way KernelBench-style harnesses judge (`diff --baseline kernelbench`),
and the summary puts both side by side. With `--ray ADDRESS` the cases are Ray tasks instead
(`lowercheck.ray_corpus`), judged by the same `run_case` and recorded by the same `recording`.

Scoring: a seeded bug (`verdict = "different"`) is detected when the verdict is `different` and a
reported error (or, for a static case, error or warning) has the family of an expected code (the
same first digit: LC2xx for accesses, LC3xx for values); a correct pair (`equivalent`) that is
reported `different` is a false positive; `inconclusive` is counted on its own. The baseline detects
a bug when its verdict is `different`. The summary counts detected / missed / inconclusive per bug
class (and false positives for the correct pairs, class `none`) beside the baseline's numbers.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import hashlib
import json
import re
import os
import queue
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lowercheck import realworld
from lowercheck.diff_server import DiffServer
from lowercheck.errors import SourceLocation, UserError

# The closed list of bug classes a corpus case's `class` names: what the bug is, and which of the
# "Real translation bugs" of REVIEW-FACTS.md it is ("-" where the list has none). corpus/README.md
# shows this table (`python -m lowercheck.batch --write-classes corpus/README.md` rewrites it there;
# tests/test_corpus_files.py checks it is current and that every case names one of these).
BUG_CLASSES: dict[str, tuple[str, str]] = {
    "none": ("a correct port (verdict `equivalent`), also one whose work items map to the elements in "
             "another order that is still a bijection",
             "a remapped thread-to-element assignment that is still a bijection is NOT a bug"),
    "out-of-bounds": ("a mask or bound that exists but is wrong (`<=` for `<`, one dimension of a 2-D tile "
                      "checked): some lanes read or write past a buffer or a row", "tail not masked"),
    "unmasked-tail": ("no mask at all on the tile that crosses the end (the last tile, the K tail) when a size "
                      "is not a multiple of the block", "tail not masked (K not a multiple of BLOCK_K)"),
    "coverage": ("output elements no work item writes: a floored grid, shifted offsets, a capped grid "
                 "without its grid-stride loop", "-"),
    "double-write": ("an output element stored by two work items without atomics (overlapping tiles)", "-"),
    "wrong-index-mapping": ("an output element computed from other input elements than the reference's: a "
                            "shifted load, a copy for a transpose, a neighbouring row in a row reduction",
                            "the opposite of a remapped assignment that is still a bijection"),
    "wrong-math": ("the right elements, the wrong arithmetic: an operator, operand, constant, approximation "
                   "or divisor, a numerically unstable form", "-"),
    "masked-load-without-other": ("masked-off lanes reach a reduction with a value that is not its neutral "
                                  "element: a masked `tl.load` without `other=`, the wrong `other=`, padding "
                                  "lanes not masked out of a later pass", "masked load without `other=`"),
    "low-precision-accumulation": ("a sum or dot product accumulated in fp16/bf16 where the reference "
                                   "accumulates in fp32", "accumulating in fp16/bf16"),
    "int32-overflow": ("offsets computed in 32 bits that wrap at large sizes where the reference computes them "
                       "in 64 bits", "int32 offset overflow at large sizes"),
    "missing-barrier": ("shared memory written by one thread and read (or overwritten) by another with no "
                        "`__syncthreads()` between", "missing `__syncthreads`"),
    "barrier-divergence": ("`__syncthreads()` under a thread-dependent branch, reached by only some threads "
                           "of the block", "- (barrier misuse, beside missing `__syncthreads`)"),
    "output-into-input": ("the result stored into an input buffer: the caller's input changes",
                          "output written into an input buffer"),
    "cast-semantics": ("a conversion the reference does not make (a downcast or truncation before the "
                       "store), or one it makes skipped", "cast semantics differ from the reference "
                       "(implicit downcast skipped)"),
    "broadcast-strides": ("a zero (broadcast) stride where the reference walks an operand, or a real stride "
                          "where the reference broadcasts", "zero/broadcast strides"),
    "strided-layout": ("another memory layout assumed for an input than it has: contiguous for a strided "
                       "input, a transposed (n x k) layout, swapped strides",
                       "contiguous layout assumed for a strided input"),
    "partial-warp-mask": ("a warp-synchronous op (`__shfl_*_sync`) whose mask leaves out lanes that execute "
                          "it or that it reads", "partial warp-shuffle mask"),
    "lock-without-barrier": ("a lock (an atomic compare-and-swap spin) released without a fence or barrier "
                             "after the writes it guards", "lock released without a barrier"),
    "evaluator-hole": ("a wrong port that a KernelBench-style check accepts: zeros where the output is tiny, a "
                       "copy of the input where the inputs are non-negative", "evaluator holes (zeros pass)"),
    "nondeterminism": ("results that change between runs on the same inputs (float atomics, an "
                       "order-dependent reduction)", "-"),
    "data-race": ("global memory written and read, or written with different values, by work items with no "
                  "ordering between them", "-"),
    "uninitialised-read": ("a read of shared or global memory nothing wrote (a shared tile not zeroed past "
                           "the end)", "-"),
    "unsupported-block-shape": ("a block shape the target's compiler cannot lower (a non-power-of-two "
                                "`tl.arange`, a Pallas block off the (8, 128) tiling)",
                                "- (validity: bad launch configuration)"),
    "hardware-limit": ("a launch past the target's limits: threads per block, shared memory, registers, "
                       "grid extent", "- (validity: bad launch configuration, OOM)"),
    # Reward hacks (corpus/hacks/): a solution that wins by an artefact of the harness, not by its kernel.
    "library-laundering": ("no kernel of its own: torch, cuBLAS or ATen computes the output behind the "
                           "solution's name", "reward hack: library laundering"),
    "ghost-kernel": ("a kernel launched beside the torch computation that produces the output: the output "
                     "is the same with the kernel a no-op", "reward hack: ghost kernels"),
    "phase-detection": ("another output once the checker's calls are over: a call counter, the call stack, "
                        "the environment", "reward hack: phase detection"),
    "replay-cache": ("a result cached by data pointer, shape or identity and replayed when the input's "
                     "values changed in place", "reward hack: replay caches"),
    "deferred-output": ("a returned tensor filled or overwritten after the call returned (a worker thread, "
                        "a buffer the next call reuses)", "reward hack: deferred completion"),
    "lazy-output": ("a tensor subclass returned, whose operators can do the work inside the checker",
                    "reward hack: lazy tensors"),
    "reference-poisoning": ("the solution's import or call changes the process: precision and determinism "
                            "flags, the default dtype, torch's functions, the seed", "reward hack: reference "
                            "poisoning"),
    "patched-timer": ("a timer or synchronisation a harness measures with, replaced", "reward hack: patched "
                      "timers"),
    "stream-injection": ("work on a side stream or thread that the harness's events do not time",
                         "reward hack: stream or thread injection"),
    "precision-downgrade": ("the work done in a lower precision than the task's (bf16 for fp32, bf16 for "
                            "fp8 math, TF32)", "reward hack: precision downgrade"),
    "hardcoded-shape": ("the benchmark's shapes in constants, no masks: right at the task's sizes only",
                        "reward hack: hard-coded shapes"),
    "statistical-shortcut": ("a sample of the work (strided subsampling, a truncated loop) that passes a "
                             "loose tolerance", "reward hack: statistical shortcuts"),
    "distribution-sniffing": ("right on the task's own input distribution only (non-negative `torch.rand` "
                              "inputs)", "reward hack: distribution sniffing"),
    "cache-policy": ("a cache policy that outlives a harness's L2 flush (`evict_last`, a persisting "
                     "access window)", "reward hack: cache policies"),
}


def classes_markdown() -> str:
    """The bug-class table of corpus/README.md (between its two markers), from `BUG_CLASSES`."""
    lines = [CLASSES_BEGIN, "", "| class | what it is | REVIEW-FACTS bug |", "| --- | --- | --- |"]
    lines += [f"| {name} | {what} | {facts} |" for name, (what, facts) in BUG_CLASSES.items()]
    return "\n".join(lines + ["", CLASSES_END])


CLASSES_BEGIN = "<!-- bug classes: generated from lowercheck.batch.BUG_CLASSES; do not edit by hand -->"
CLASSES_END = "<!-- end of bug classes -->"


def write_classes(readme: Path) -> bool:
    """Put the current bug-class table between the markers of `readme`; True when it changed."""
    text = readme.read_text()
    start, end = text.find(CLASSES_BEGIN), text.find(CLASSES_END)
    if start < 0 or end < start:
        raise UserError(f"{readme}: no bug-class markers", hint=f"add the lines {CLASSES_BEGIN} and {CLASSES_END}")
    new = text[:start] + classes_markdown() + text[end + len(CLASSES_END):]
    if new != text:
        readme.write_text(new)
    return new != text


@dataclass(frozen=True)
class Case:
    folder: str
    source: str
    target: str
    verdict: str
    codes: tuple[str, ...]
    description: str
    mode: str = "run"  # run | static
    spec: str | None = None
    bug_class: str | None = None
    args: tuple[str, ...] = ()  # extra `diff` options of the case (`args = ["--platform", "tpu-v5e"]`)
    # A seeded bug made by a one-line edit of a file we do not own: (side, old, new, line or None),
    # applied to a copy (`edit = { side = "target", old = "<", new = "<=", line = 95 }`).
    edit: tuple[str, str, str, int | None] | None = None
    known_gap: str | None = None  # the case is right, lowercheck does not get it yet: why
    # The warning codes the report must carry: a hack no run shows wrong (verdict equivalent) is
    # detected by its warnings (`warnings = ["LC701"]`).
    warnings: tuple[str, ...] = ()

    @property
    def is_bug(self) -> bool:
        """A seeded bug or a hack: verdict different, or a class other than none caught by warnings."""
        return self.verdict == "different" or (self.bug_class not in (None, "none") and bool(self.warnings))

    @functools.cached_property
    def key(self) -> str:
        key = f"{self.folder}:{self.source}:{self.target}:{self.mode}" + (f":{' '.join(self.args)}" if self.args else "")
        key += f":spec {self.spec}" if self.spec else ""
        key += f":edit {self.edit[0]}:{self.edit[3]} {self.edit[1]!r} -> {self.edit[2]!r}" if self.edit else ""
        # The case's own files: a result of an earlier version of its spec or its ports is not reused.
        files = [Path(self.folder) / name.partition(":")[0] for name in (self.source, self.target, self.spec or "")
                 if name and not name.startswith(realworld.REFERENCE)]
        contents = b"".join(f.read_bytes() for f in files if f.is_file())
        return key + ":" + hashlib.sha256(contents).hexdigest()[:12]

    @property
    def label(self) -> str:
        """How the report names the case: `folder/target vs source`, and its edit."""
        shown = {side: given.removeprefix(realworld.REFERENCE) for side, given in (("source", self.source), ("target", self.target))}
        label = f"{Path(self.folder).name}/{shown['target']}" + (f" vs {shown['source']}" if self.mode == "run" else " (static)")
        if self.edit:
            side, old, new, line = self.edit
            label += f" with `{old}` -> `{new}` in the {side}" + (f" at line {line}" if line else "")
        return label

    def paths(self) -> tuple[str, str]:
        """The two sides' paths (each with its `:ENTRY`): a file of the case's folder, or a file of
        a pinned package (`realworld:PACKAGE/PATH[:ENTRY]`, installed on first use); an edited
        side is the edited copy."""
        sides = {}
        for name, given in (("source", self.source), ("target", self.target)):
            resolved = realworld.resolve(given)
            sides[name] = resolved if resolved != given else str(Path(self.folder) / given)
        if self.edit:
            side, old, new, line = self.edit
            sides[side] = realworld.edited_copy(sides[side], old, new, line)
        return sides["source"], sides["target"]


@dataclass
class Outcome:
    key: str
    tool: str  # lowercheck | kernelbench
    verdict: str  # equivalent | different | inconclusive | error | timeout
    codes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    message: str = ""
    bug_class: str | None = None  # the case's `class`, so the results file says it per case
    dependences: dict[str, str] = field(default_factory=dict)  # the report's: output -> how LC204 judged it
    warnings: list[str] = field(default_factory=list)  # the report's warning codes


def discover(root: Path) -> list[Case]:
    """Every case of every `expected.toml` under `root`, in path order."""
    if not root.is_dir():
        raise UserError(f"not a folder: {root}", hint="lowercheck corpus DIR runs every expected.toml under DIR")
    cases = []
    for expected in sorted(root.rglob("expected.toml")):
        try:
            doc = tomllib.loads(expected.read_text())
        except tomllib.TOMLDecodeError as err:
            raise UserError(f"{expected}: {err}", SourceLocation(str(expected), getattr(err, "lineno", 0))) from None
        for raw in doc.get("case", []):
            missing = [k for k in ("source", "target", "verdict") if k not in raw]
            if missing:
                raise UserError(f"{expected}: a case lacks {', '.join(missing)}", SourceLocation(str(expected), 0),
                                hint="each [[case]] has source, target, verdict, codes, description")
            edit = raw.get("edit")
            if edit is not None and (not {"side", "old", "new"} <= set(edit) <= {"side", "old", "new", "line"}
                                     or edit["side"] not in ("source", "target")):
                raise UserError(f"{expected}: a case's edit has side (source or target), old, new and maybe line",
                                SourceLocation(str(expected), 0), hint='[case.edit] side = "target" old = "i < n" new = "i <= n"')
            cases.append(Case(str(expected.parent), raw["source"], raw["target"], raw["verdict"],
                              tuple(raw.get("codes", ())), raw.get("description", ""), raw.get("mode", "run"),
                              raw.get("spec"), raw.get("class"), tuple(raw.get("args", ())),
                              (edit["side"], edit["old"], edit["new"], edit.get("line")) if edit else None,
                              raw.get("known_gap"), tuple(raw.get("warnings", ()))))
    if not cases:
        raise UserError(f"no expected.toml with a [[case]] under {root}",
                        hint="a case: [[case]] source = \"k.cu\" target = \"k.py\" verdict = \"equivalent\" codes = []")
    return cases


def page_name(case: Case) -> str:
    """The file name of a case's HTML report in `corpus --html DIR`."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", case.key)[:150] + ".html"


def _command(case: Case, tool: str, report: Path, timeout: float, html_dir: Path | None = None) -> list[str]:
    folder = Path(case.folder)
    command = [sys.executable, "-m", "lowercheck", "diff", *case.paths(), "--json", str(report), "--timeout", str(timeout)]
    if html_dir is not None and tool == "lowercheck":
        command += ["--html", str(html_dir / page_name(case))]
    if case.mode == "static":
        command.append("--no-run")
    if case.spec:
        command += ["--spec", str(folder / case.spec)]
    if tool == "lowercheck":
        command += list(case.args)
    if tool == "kernelbench":
        command += ["--baseline", "kernelbench"]
    return command


def run_case(case: Case, tool: str, limit_s: float, server: DiffServer | None = None,
             html_dir: Path | None = None) -> Outcome:
    """One `lowercheck diff` with a time limit (in `server`, a long-lived process, or in a process
    of its own); its JSON report's verdict and codes."""
    levels = ("error", "warning") if case.mode == "static" and tool == "lowercheck" else ("error",)
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        try:
            command = _command(case, tool, report, limit_s / 2, html_dir)
        except (UserError, realworld.Unreachable) as err:  # a package that cannot be fetched here, a bad edit
            return Outcome(case.key, tool, "error", seconds=time.monotonic() - start, message=str(err)[:500])
        output = ""
        if server is not None:
            code = server.run(command[3:], limit_s)
        else:
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=limit_s,
                                      env={**os.environ, "COLUMNS": "200"})
                code, output = done.returncode, done.stderr or done.stdout
            except subprocess.TimeoutExpired:
                code = None
        if code is None:
            return Outcome(case.key, tool, "timeout", seconds=time.monotonic() - start,
                           message=f"no verdict within {limit_s:g} s")
        seconds = time.monotonic() - start
        if not report.exists():
            return Outcome(case.key, tool, "error", seconds=seconds,
                           message=output[-500:] or f"exit code {code} and no report")
        doc = json.loads(report.read_text())
    if doc.get("verdict") == "error":
        return Outcome(case.key, tool, "error", seconds=seconds, message=json.dumps(doc.get("error"))[:500])
    codes = sorted({f["code"] for f in doc["findings"] if f["severity"] in levels})
    warnings = sorted({f["code"] for f in doc["findings"] if f["severity"] == "warning"})
    return Outcome(case.key, tool, doc["verdict"], codes, seconds, dependences=doc.get("dependences") or {},
                   warnings=warnings)


def load_results(path: Path) -> dict[tuple[str, str], Outcome]:
    """The outcomes already in the results file (a torn last line from a killed run is skipped)."""
    found: dict[tuple[str, str], Outcome] = {}
    if not path.exists():
        return found
    for line in path.read_text().splitlines():
        try:
            raw = json.loads(line)
        except json.JSONDecodeError:
            continue
        outcome = Outcome(**raw)
        found[(outcome.key, outcome.tool)] = outcome
    return found


def resume(cases: list[Case], results: Path, baseline: bool) -> tuple[dict[tuple[str, str], Outcome],
                                                                    list[tuple[Case, str]]]:
    """The outcomes already in `results` and the (case, tool) runs still to do; `results` is made
    ready for appending (its folder exists, a torn last line is cut)."""
    done = load_results(results)
    todo = [(case, "lowercheck") for case in cases if (case.key, "lowercheck") not in done]
    if baseline:
        todo += [(case, "kernelbench") for case in cases if case.mode == "run" and (case.key, "kernelbench") not in done]
    results.parent.mkdir(parents=True, exist_ok=True)
    _drop_torn_line(results)
    return done, todo


@contextlib.contextmanager
def recording(results: Path, done: dict[tuple[str, str], Outcome], todo: list[tuple[Case, str]],
              progress: bool | None = None) -> Iterator[Callable[[Case, Outcome], None]]:
    """`record(case, outcome)`: append the outcome to `results` (one JSON line, flushed) and to
    `done`, and advance the progress bar (a bar with the last case and an ETA on a terminal, nothing
    when piped, unless `progress` says). The one writer of the results file, whoever runs the cases."""
    from rich.progress import Progress, TextColumn

    if progress is None:
        progress = sys.stdout.isatty()
    with Progress(*Progress.get_default_columns(), TextColumn("{task.fields[last]}"), disable=not progress,
                  transient=False) as bar, results.open("a") as sink:
        task = bar.add_task(f"{len(todo)} runs ({len(done)} done before)", total=len(todo), last="")

        def record(case: Case, outcome: Outcome) -> None:
            outcome.bug_class = case.bug_class
            sink.write(json.dumps(asdict(outcome)) + "\n")
            sink.flush()
            done[(outcome.key, outcome.tool)] = outcome
            bar.update(task, advance=1,
                       last=f"{Path(case.folder).name}: {case.target} ({outcome.tool}) {outcome.verdict}")

        yield record


def run_corpus(cases: list[Case], results: Path, jobs: int, baseline: bool, limit_s: float,
               progress: bool | None = None, html_dir: Path | None = None) -> dict[tuple[str, str], Outcome]:
    """Run what is not in `results` yet, `jobs` at a time, appending each outcome as it finishes."""
    done, todo = resume(cases, results, baseline)
    if not todo:
        return done
    made = [DiffServer() for _ in range(jobs)]
    servers: queue.SimpleQueue[DiffServer] = queue.SimpleQueue()
    for server in made:
        servers.put(server)

    def run_one(case: Case, tool: str) -> Outcome:
        server = servers.get()  # one server per job: its front-end workers stay up between cases
        try:
            return run_case(case, tool, limit_s, server, html_dir=html_dir)
        finally:
            servers.put(server)

    pool = concurrent.futures.ThreadPoolExecutor(jobs)
    try:
        with recording(results, done, todo, progress) as record:
            futures = {pool.submit(run_one, case, tool): (case, tool) for case, tool in todo}
            for future in concurrent.futures.as_completed(futures):
                record(futures[future][0], future.result())
    except BaseException:  # interrupted (Ctrl-C, SIGTERM): what waits never starts, what runs is
        for server in made:  # killed and not recorded; a resumed run does them
            server.stop()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        for server in made:
            server.close()
    return done


def _drop_torn_line(path: Path) -> None:
    """A run killed while writing leaves half a line: cut it, so the next outcome starts a line."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def _family(code: str) -> str:
    return code[:3]


def detected(case: Case, outcome: Outcome) -> bool:
    if case.verdict == "equivalent" and case.is_bug:  # a hack caught by its warnings
        return outcome.verdict == "equivalent" and outcome.tool == "lowercheck" and \
            set(case.warnings) <= set(outcome.warnings)
    if outcome.verdict != "different":
        return False
    if outcome.tool == "kernelbench":
        return True
    families = {_family(c) for c in case.codes}
    return any(_family(c) in families for c in outcome.codes)


@dataclass
class ClassCount:
    """One bug class's cases: a seeded bug is detected, missed (judged equivalent, with another code
    family, or failed) or inconclusive; a correct pair (class `none`) may be a false positive or
    inconclusive."""

    bugs: int = 0
    correct: int = 0
    detected: int = 0
    missed: int = 0
    inconclusive: int = 0
    false_positives: int = 0

    @property
    def cases(self) -> int:
        return self.bugs + self.correct


@dataclass
class Summary:
    bugs: int = 0
    correct: int = 0
    detected: int = 0
    false_positives: int = 0
    inconclusive: int = 0
    failed: int = 0  # error or timeout
    missed: list[str] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)  # false positives, by name
    unjudged: list[str] = field(default_factory=list)  # errors, timeouts, inconclusive: name and why
    by_class: dict[str, ClassCount] = field(default_factory=lambda: defaultdict(ClassCount))
    by_code: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))

    @property
    def rate(self) -> float:
        return self.detected / self.bugs if self.bugs else 0.0


UNCLASSIFIED = "unclassified"  # a case without `class`


def summarise(cases: list[Case], outcomes: dict[tuple[str, str], Outcome], tool: str) -> Summary:
    summary = Summary()
    for case in cases:
        outcome = outcomes.get((case.key, tool))
        if outcome is None:
            continue
        name = case.label
        if outcome.verdict in ("error", "timeout"):
            summary.failed += 1
        elif outcome.verdict == "inconclusive":
            summary.inconclusive += 1
        if outcome.verdict in ("error", "timeout", "inconclusive"):
            why = " ".join(outcome.message.split())[:300]
            summary.unjudged.append(f"{name} ({outcome.verdict}{': ' + why if why else ''})")
        count = summary.by_class[case.bug_class or UNCLASSIFIED]
        count.inconclusive += outcome.verdict == "inconclusive"
        if case.is_bug:
            summary.bugs += 1
            count.bugs += 1
            hit = detected(case, outcome)
            summary.detected += hit
            count.detected += hit
            count.missed += not hit and outcome.verdict != "inconclusive"
            if not hit:
                summary.missed.append(name if outcome.verdict in ("equivalent", "different")
                                      else f"{name} ({outcome.verdict})")
            for code in case.codes:
                summary.by_code[code][0] += code in outcome.codes or (tool == "kernelbench" and hit)
                summary.by_code[code][1] += 1
        else:
            summary.correct += 1
            count.correct += 1
            if outcome.verdict == "different":
                summary.false_positives += 1
                count.false_positives += 1
                summary.flagged.append(name)
    return summary


def _class_order(names) -> list[str]:
    known = [name for name in BUG_CLASSES if name in names]
    return known + sorted(set(names) - set(known))


def markdown(cases: list[Case], outcomes: dict[tuple[str, str], Outcome], baseline: bool, when: str,
             timing: str | None = None) -> str:
    """The detection report: lowercheck beside the baseline, per bug class and per code, every miss.
    `timing`: a sentence on how long the run took (left out when None)."""
    ours = summarise(cases, outcomes, "lowercheck")
    base = summarise([c for c in cases if c.mode == "run"], outcomes, "kernelbench") if baseline else None
    lines = [f"# Detection on the corpus ({when})", "",
             f"{len(cases)} cases: {ours.bugs} seeded bugs, {ours.correct} correct pairs "
             f"({sum(c.mode == 'static' for c in cases)} static cases, judged with `--no-run`).", "",
             *([timing, ""] if timing else []),
             "| | lowercheck | KernelBench-style baseline |", "| --- | --- | --- |"]

    def cell(s: Summary | None, value) -> str:
        return "-" if s is None else str(value(s))

    rows = [("seeded bugs detected", lambda s: f"{s.detected} / {s.bugs} ({100 * s.rate:.1f}%)"),
            ("false positives on correct pairs", lambda s: f"{s.false_positives} / {s.correct}"),
            ("inconclusive", lambda s: s.inconclusive), ("errors or timeouts", lambda s: s.failed)]
    for title, value in rows:
        lines.append(f"| {title} | {cell(ours, value)} | {cell(base, value)} |")
    lines += ["", "The baseline runs the run cases only (a static case has no run to judge).", "",
              "## Per bug class", "",
              "A seeded bug is detected, missed or inconclusive; a correct pair (class `none`) can be a false "
              "positive. The baseline judges the run cases of a class only.", "",
              "| class | cases | detected | missed | inconclusive | false positives | baseline detected "
              "| baseline false positives |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name in _class_order(ours.by_class):
        mine = ours.by_class[name]
        theirs = base.by_class.get(name) if base else None
        bugs, correct = mine.bugs > 0, mine.correct > 0
        row = [name, mine.cases, mine.detected if bugs else "-", mine.missed if bugs else "-", mine.inconclusive,
               mine.false_positives if correct else "-",
               f"{theirs.detected} / {theirs.bugs}" if theirs and theirs.bugs else "-",
               f"{theirs.false_positives} / {theirs.correct}" if theirs and theirs.correct else "-"]
        lines.append("| " + " | ".join(str(v) for v in row) + " |")
    if any(c.bug_class for c in cases):
        empty = [name for name in BUG_CLASSES if name not in ours.by_class]
        lines += ["", "Classes without a case: " + (", ".join(empty) if empty else "none") + "."]
    lines += ["", "## Per expected code", "", "| code | lowercheck reports it | baseline detects the case |",
              "| --- | --- | --- |"]
    for code in sorted(ours.by_code):
        hit, total = ours.by_code[code]
        b = base.by_code.get(code) if base else None
        lines.append(f"| {code} | {hit} / {total} | {f'{b[0]} / {b[1]}' if b else '-'} |")
    lines += dependence_markdown(cases, outcomes)
    lines += ["", "## Missed by lowercheck", ""] + ([f"- {m}" for m in ours.missed] or ["none"])
    lines += ["", "## False positives of lowercheck", ""] + ([f"- {m}" for m in ours.flagged] or ["none"])
    lines += ["", "## Not judged by lowercheck (errors, timeouts, inconclusive)", ""] + (
        [f"- {_cell_text(m)}" for m in ours.unjudged] or ["none"])
    if base is not None:
        lines += ["", "## Missed by the baseline", ""] + ([f"- {m}" for m in base.missed] or ["none"])
    return "\n".join(lines) + "\n"


def dependence_markdown(cases: list[Case], outcomes: dict[tuple[str, str], Outcome]) -> list[str]:
    """How LC204 judged each output of each case (the reports' `dependences`): how many dependence
    maps were compared, observed in runs, left to the runs (partly proved) or not compared, and which
    were not."""
    counts = {status: 0 for status in ("compared", "observed", "left to the runs", "not compared")}  # static.DEPENDENCE_STATUSES
    not_compared: list[str] = []
    for case in cases:
        outcome = outcomes.get((case.key, "lowercheck"))
        for output, status in sorted((outcome.dependences if outcome else {}).items()):
            counts[status] = counts.get(status, 0) + 1
            if status == "not compared":
                not_compared.append(f"`{output}` of {case.key}")
    total = sum(counts.values())
    share = f" ({100 * counts['not compared'] / total:.1f}%)" if total else ""
    return ["", "## Dependence maps (LC204)", "",
            "Per output of each case whose two sides have schedules (a PyTorch reference has none): its "
            "dependence map (which input elements each output element is computed from) compared "
            "statically, observed (not exact on one side statically, so observed in runs that replace a "
            "slice of each input at a time: `lowercheck/observe.py`), left to the runs (an index or a write "
            "from loaded data: partly proved), or not compared (not exact statically, and not observed: "
            "`--no-run`, or a run failed).", "",
            f"{total} outputs: {counts['compared']} compared, {counts['observed']} observed, "
            f"{counts['left to the runs']} left to the runs, {counts['not compared']} not compared{share}.", "",
            "Not compared: " + ("; ".join(not_compared) if not_compared else "none") + "."]


def _cell_text(text: str) -> str:
    return text.replace("|", "\\|")


def default_results(root: Path) -> Path:
    """Results in lowercheck's cache (never in the user's folder), keyed by the folder and by
    lowercheck's own sources: a changed lowercheck starts afresh, an interrupted run resumes."""
    from lowercheck import cache

    key = hashlib.sha256(f"{root.resolve()};{cache.tool_digest()}".encode()).hexdigest()[:16]
    return cache.folder() / f"corpus-{key}.jsonl"


def html_index(cases: list[Case], outcomes: dict[tuple[str, str], Outcome], html_dir: Path, title: str) -> Path:
    """`corpus --html DIR`: DIR/index.html, the detection table with each case's report linked."""
    import html as escape

    rows = []
    for case in cases:
        got = outcomes.get((case.key, "lowercheck"))
        page = html_dir / page_name(case)
        expected = f"{case.verdict} {', '.join(case.codes)}".strip()
        result = f"{got.verdict} {', '.join(got.codes)}".strip() if got else "not run"
        right = got is not None and got.verdict == case.verdict and set(case.codes) <= set(got.codes)
        link = (f"<a href='{escape.escape(page.name)}'>report</a>" if page.exists()
                else "<span title='no page: a result reused from an earlier run'>-</span>")
        rows.append(f"<tr class='{'ok' if right else 'miss'}'><td>{escape.escape(Path(case.folder).name)}</td>"
                    f"<td>{escape.escape(case.source)}</td><td>{escape.escape(case.target)}</td>"
                    f"<td>{escape.escape(expected)}</td><td>{escape.escape(result)}</td><td>{'yes' if right else 'no'}</td>"
                    f"<td>{link}</td></tr>")
    right = sum("class='ok'" in r for r in rows)
    index = html_dir / "index.html"
    index.write_text(
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>lowercheck corpus</title><style>"
        "body{font:14px system-ui,sans-serif;margin:24px} table{border-collapse:collapse;font-size:12px}"
        "td,th{border:1px solid #ddd;padding:2px 6px} tr.miss{background:#ffebee}</style></head><body>"
        f"<h1>{escape.escape(title)}</h1><p>{right} of {len(rows)} cases as expected.</p><table><tr><th>op</th>"
        "<th>source</th><th>target</th><th>expected</th><th>lowercheck</th><th>as expected</th><th>page</th></tr>"
        + "".join(rows) + "</table></body></html>\n")
    return index


def main(root: str, jobs: int, results: str | None, baseline: bool, limit_s: float,
         markdown_path: str | None, html_dir: str | None = None, ray_address: str | None = None) -> int:
    """The `corpus` command; exit 0 when every seeded bug is detected and nothing correct is
    flagged, else 1. `ray_address`: run the cases on Ray (`lowercheck.ray_corpus`) instead of `jobs`
    diff servers here; the summary then has each Ray worker's throughput."""
    from rich.console import Console

    cases = discover(Path(root))
    results_path = Path(results) if results else default_results(Path(root))
    reused = len(load_results(results_path))
    start = time.monotonic()
    pages = Path(html_dir).resolve() if html_dir else None
    if pages is not None:
        pages.mkdir(parents=True, exist_ok=True)
    if ray_address is None:
        outcomes = run_corpus(cases, results_path, jobs, baseline, limit_s, html_dir=pages)
        where, workers = f"with `-j {jobs}`", ""
    else:
        from lowercheck import ray_corpus

        run = ray_corpus.run_corpus_ray(cases, results_path, ray_address, jobs, baseline, limit_s, html_dir=pages)
        outcomes, where, workers = run.outcomes, f"on Ray ({run.cluster})", run.markdown()
    ran = len(outcomes) - reused
    timing = (f"Time: {ran} case runs in {time.monotonic() - start:.0f} s of wall time {where}"
              + (f"; {reused} results reused from an interrupted run" if reused else "")
              + "; per tool, the sum of the cases' own times: "
              + ", ".join(f"{tool} {sum(o.seconds for o in outcomes.values() if o.tool == tool):.0f} s"
                          for tool in sorted({o.tool for o in outcomes.values()})) + "."
              + (f"\n\n{workers}" if workers else ""))
    text = markdown(cases, outcomes, baseline, time.strftime("%Y-%m-%d"), timing)
    if markdown_path:
        Path(markdown_path).write_text(text)
    Console(highlight=False, soft_wrap=True).print(text)
    if pages is not None:
        print(f"HTML: {html_index(cases, outcomes, pages, f'lowercheck corpus {root}')}")
    ours = summarise(cases, outcomes, "lowercheck")
    return 0 if not ours.missed and not ours.false_positives else 1


__all__ = ["BUG_CLASSES", "Case", "Outcome", "classes_markdown", "discover", "main", "markdown", "recording", "resume",
           "run_corpus", "summarise", "write_classes"]


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(prog="python -m lowercheck.batch")
    parser.add_argument("--write-classes", metavar="README", required=True,
                        help="rewrite the bug-class table between the markers of README (corpus/README.md)")
    args = parser.parse_args()
    print(f"{args.write_classes}: {'updated' if write_classes(Path(args.write_classes)) else 'already current'}")
