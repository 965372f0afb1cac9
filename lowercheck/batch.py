"""`lowercheck corpus DIR`: run every case of a corpus (or a reviewer's task folders) and summarise.

A case is a `[[case]]` of an `expected.toml` anywhere under DIR: `source`, `target`, the expected
`verdict` and `codes`, and optionally `mode = "static"` (judged with `--no-run`), `spec`, and
`class` (the bug class, for the summary). Each case runs as its own `lowercheck diff` process, N at
a time, each with a time limit; a result is appended to the results file (JSON lines) the moment it
is known (in lowercheck's cache, keyed by the folder and lowercheck's sources, or `--json FILE`), so
a run that is interrupted and started again skips the cases already done and loses nothing. With `--baseline kernelbench` every run case is also judged the way KernelBench-style
harnesses judge (`diff --baseline kernelbench`), and the summary puts both side by side.

Scoring: a seeded bug (`verdict = "different"`) is detected when the verdict is `different` and a
reported error (or, for a static case, error or warning) has the family of an expected code (the
same first digit: LC2xx for accesses, LC3xx for values); a correct pair (`equivalent`) that is
reported `different` is a false positive; `inconclusive` is counted on its own. The baseline detects
a bug when its verdict is `different`.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lowercheck.errors import SourceLocation, UserError


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

    @property
    def key(self) -> str:
        return f"{self.folder}:{self.source}:{self.target}:{self.mode}"


@dataclass
class Outcome:
    key: str
    tool: str  # lowercheck | kernelbench
    verdict: str  # equivalent | different | inconclusive | error | timeout
    codes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    message: str = ""


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
            cases.append(Case(str(expected.parent), raw["source"], raw["target"], raw["verdict"],
                              tuple(raw.get("codes", ())), raw.get("description", ""), raw.get("mode", "run"),
                              raw.get("spec"), raw.get("class")))
    if not cases:
        raise UserError(f"no expected.toml with a [[case]] under {root}",
                        hint="a case: [[case]] source = \"k.cu\" target = \"k.py\" verdict = \"equivalent\" codes = []")
    return cases


def _command(case: Case, tool: str, report: Path, timeout: float) -> list[str]:
    folder = Path(case.folder)
    command = [sys.executable, "-m", "lowercheck", "diff", str(folder / case.source), str(folder / case.target),
               "--json", str(report), "--timeout", str(timeout)]
    if case.mode == "static":
        command.append("--no-run")
    if case.spec:
        command += ["--spec", str(folder / case.spec)]
    if tool == "kernelbench":
        command += ["--baseline", "kernelbench"]
    return command


def run_case(case: Case, tool: str, limit_s: float) -> Outcome:
    """One `lowercheck diff` process with a time limit; its JSON report's verdict and codes."""
    levels = ("error", "warning") if case.mode == "static" and tool == "lowercheck" else ("error",)
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        try:
            done = subprocess.run(_command(case, tool, report, limit_s / 2), capture_output=True, text=True,
                                  timeout=limit_s, env={**os.environ, "COLUMNS": "200"})
        except subprocess.TimeoutExpired:
            return Outcome(case.key, tool, "timeout", seconds=time.monotonic() - start,
                           message=f"no verdict within {limit_s:g} s")
        seconds = time.monotonic() - start
        if not report.exists():
            return Outcome(case.key, tool, "error", seconds=seconds, message=(done.stderr or done.stdout)[-500:])
        doc = json.loads(report.read_text())
    if doc.get("verdict") == "error":
        return Outcome(case.key, tool, "error", seconds=seconds, message=json.dumps(doc.get("error"))[:500])
    codes = sorted({f["code"] for f in doc["findings"] if f["severity"] in levels})
    return Outcome(case.key, tool, doc["verdict"], codes, seconds)


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


def run_corpus(cases: list[Case], results: Path, jobs: int, baseline: bool, limit_s: float,
               progress: bool = True) -> dict[tuple[str, str], Outcome]:
    """Run what is not in `results` yet, appending each outcome as it finishes."""
    done = load_results(results)
    todo = [(case, "lowercheck") for case in cases if (case.key, "lowercheck") not in done]
    if baseline:
        todo += [(case, "kernelbench") for case in cases if case.mode == "run" and (case.key, "kernelbench") not in done]
    results.parent.mkdir(parents=True, exist_ok=True)
    _drop_torn_line(results)
    if not todo:
        return done
    from rich.progress import Progress

    with Progress(disable=not progress, transient=False) as bar, results.open("a") as sink, \
            concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        task = bar.add_task(f"{len(todo)} runs ({len(done)} done before)", total=len(todo))
        futures = {pool.submit(run_case, case, tool, limit_s): (case, tool) for case, tool in todo}
        for future in concurrent.futures.as_completed(futures):
            outcome = future.result()
            sink.write(json.dumps(asdict(outcome)) + "\n")
            sink.flush()
            done[(outcome.key, outcome.tool)] = outcome
            bar.advance(task)
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
    if outcome.verdict != "different":
        return False
    if outcome.tool == "kernelbench":
        return True
    families = {_family(c) for c in case.codes}
    return any(_family(c) in families for c in outcome.codes)


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
    by_class: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))  # detected, total
    by_code: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))

    @property
    def rate(self) -> float:
        return self.detected / self.bugs if self.bugs else 0.0


def summarise(cases: list[Case], outcomes: dict[tuple[str, str], Outcome], tool: str) -> Summary:
    summary = Summary()
    for case in cases:
        outcome = outcomes.get((case.key, tool))
        if outcome is None:
            continue
        name = f"{Path(case.folder).name}/{case.target}" + (f" vs {case.source}" if case.mode == "run" else " (static)")
        if outcome.verdict in ("error", "timeout"):
            summary.failed += 1
        elif outcome.verdict == "inconclusive":
            summary.inconclusive += 1
        if case.verdict == "different":
            summary.bugs += 1
            hit = detected(case, outcome)
            summary.detected += hit
            if not hit:
                summary.missed.append(name)
            bug_class = case.bug_class or (_family(case.codes[0]) + "xx" if case.codes else "unclassified")
            summary.by_class[bug_class][0] += hit
            summary.by_class[bug_class][1] += 1
            for code in case.codes:
                summary.by_code[code][0] += code in outcome.codes or (tool == "kernelbench" and hit)
                summary.by_code[code][1] += 1
        else:
            summary.correct += 1
            if outcome.verdict == "different":
                summary.false_positives += 1
                summary.flagged.append(name)
    return summary


def markdown(cases: list[Case], outcomes: dict[tuple[str, str], Outcome], baseline: bool, when: str) -> str:
    """The detection report: lowercheck beside the baseline, per bug class and per code, every miss."""
    ours = summarise(cases, outcomes, "lowercheck")
    base = summarise([c for c in cases if c.mode == "run"], outcomes, "kernelbench") if baseline else None
    lines = [f"# Detection on the corpus ({when})", "",
             f"{len(cases)} cases: {ours.bugs} seeded bugs, {ours.correct} correct pairs "
             f"({sum(c.mode == 'static' for c in cases)} static cases, judged with `--no-run`).", "",
             "| | lowercheck | KernelBench-style baseline |", "| --- | --- | --- |"]

    def cell(s: Summary | None, value) -> str:
        return "-" if s is None else str(value(s))

    rows = [("seeded bugs detected", lambda s: f"{s.detected} / {s.bugs} ({100 * s.rate:.1f}%)"),
            ("false positives on correct pairs", lambda s: f"{s.false_positives} / {s.correct}"),
            ("inconclusive", lambda s: s.inconclusive), ("errors or timeouts", lambda s: s.failed)]
    for title, value in rows:
        lines.append(f"| {title} | {cell(ours, value)} | {cell(base, value)} |")
    lines += ["", "The baseline runs the run cases only (a static case has no run to judge).", "",
              "## Per bug class", "", "| class | lowercheck | baseline |", "| --- | --- | --- |"]
    for name in sorted(ours.by_class):
        hit, total = ours.by_class[name]
        b = base.by_class.get(name) if base else None
        lines.append(f"| {name} | {hit} / {total} | {f'{b[0]} / {b[1]}' if b else '-'} |")
    lines += ["", "## Per expected code", "", "| code | lowercheck reports it | baseline detects the case |",
              "| --- | --- | --- |"]
    for code in sorted(ours.by_code):
        hit, total = ours.by_code[code]
        b = base.by_code.get(code) if base else None
        lines.append(f"| {code} | {hit} / {total} | {f'{b[0]} / {b[1]}' if b else '-'} |")
    lines += ["", "## Missed by lowercheck", ""] + ([f"- {m}" for m in ours.missed] or ["none"])
    lines += ["", "## False positives of lowercheck", ""] + ([f"- {m}" for m in ours.flagged] or ["none"])
    if base is not None:
        lines += ["", "## Missed by the baseline", ""] + ([f"- {m}" for m in base.missed] or ["none"])
    return "\n".join(lines) + "\n"


def default_results(root: Path) -> Path:
    """Results in lowercheck's cache (never in the user's folder), keyed by the folder and by
    lowercheck's own sources: a changed lowercheck starts afresh, an interrupted run resumes."""
    from lowercheck import cache

    key = hashlib.sha256(f"{root.resolve()};{cache.tool_digest()}".encode()).hexdigest()[:16]
    return cache.folder() / f"corpus-{key}.jsonl"


def main(root: str, jobs: int, results: str | None, baseline: bool, limit_s: float,
         markdown_path: str | None) -> int:
    """The `corpus` command; exit 0 when every seeded bug is detected and nothing correct is
    flagged, else 1."""
    from rich.console import Console

    cases = discover(Path(root))
    results_path = Path(results) if results else default_results(Path(root))
    outcomes = run_corpus(cases, results_path, jobs, baseline, limit_s)
    text = markdown(cases, outcomes, baseline, time.strftime("%Y-%m-%d"))
    if markdown_path:
        Path(markdown_path).write_text(text)
    Console(highlight=False, soft_wrap=True).print(text)
    ours = summarise(cases, outcomes, "lowercheck")
    return 0 if not ours.missed and not ours.false_positives else 1


__all__ = ["Case", "Outcome", "discover", "main", "markdown", "run_corpus", "summarise"]
