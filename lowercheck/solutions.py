"""`lowercheck diff problem.py sol1.py sol2.py ...`: several solutions of one problem.

Reviewers get batches of solutions for one task. Each solution is diffed against the problem as a
`lowercheck diff` of its own, `--jobs` at a time, each in a long-lived diff server
(`diff_server.DiffServer`: its front-end workers keep torch, Triton and the problem's lowering
between solutions, so the problem is imported and exported once per server, not once per
solution). The report is a table of verdicts, one row per solution with its error codes (and the
first error's message); `--json FILE` writes every solution's full report under `solutions`. The
exit code is the worst of theirs: 2 if any could not be diffed, else 1 if any differs, else 3 if any
is inconclusive, else 0.
"""

from __future__ import annotations

import concurrent.futures
import json
import queue
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lowercheck.diff_server import DiffServer

# What a diff passes on to each solution's diff: the option, and how it reads from the parsed arguments.
_FLAGS = ("no_run", "no_static", "no_reuse")
_VALUES = ("spec", "seed", "timeout", "gpu", "python", "baseline", "device", "integrity", "custom_kernel")
_REPEATED = ("size", "platform")


def command(args, target: str, report: Path) -> list[str]:
    """The `lowercheck diff` of one solution: the problem, that target, the options given."""
    argv = ["diff", args.source, target, "--json", str(report)]
    for name in _FLAGS:
        if getattr(args, name, False):
            argv.append("--" + name.replace("_", "-"))
    for name in _VALUES:
        value = getattr(args, name, None)
        if value is not None and not (name == "device" and value == "auto"):
            argv += ["--" + name.replace("_", "-"), str(value)]
    for name in _REPEATED:
        for value in getattr(args, name, None) or []:
            argv += ["--" + name, str(value)]
    return argv


def run(args) -> int:
    from lowercheck.report.json_report import error_document

    jobs = max(1, min(int(args.jobs or 1), len(args.targets)))
    limit = float(args.timeout or 120.0) * 2 + 60  # the diff ends itself at --timeout; this catches a hang
    servers: queue.SimpleQueue[DiffServer] = queue.SimpleQueue()
    made = [DiffServer() for _ in range(jobs)]
    for server in made:
        servers.put(server)
    docs: dict[str, dict[str, Any]] = {}
    seconds: dict[str, float] = {}

    with tempfile.TemporaryDirectory(prefix="lowercheck-solutions-") as folder:
        def one(index: int, target: str) -> None:
            report = Path(folder) / f"{index}.json"
            server = servers.get()
            start = time.monotonic()
            try:
                code = server.run(command(args, target, report), limit)
            finally:
                servers.put(server)
            seconds[target] = time.monotonic() - start
            if code is None:
                docs[target] = error_document(f"no verdict within {limit:g} s", None, None, "error")
            elif report.exists():
                docs[target] = json.loads(report.read_text())
            else:
                docs[target] = error_document(f"exit code {code} and no report", None, None, "error")

        pool = concurrent.futures.ThreadPoolExecutor(jobs)
        try:
            for future in concurrent.futures.as_completed(
                    [pool.submit(one, i, target) for i, target in enumerate(args.targets)]):
                future.result()
        except BaseException:
            for server in made:
                server.stop()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            for server in made:
                server.close()
    ordered = [(target, docs[target]) for target in args.targets]
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"problem": args.source, "solutions": [{"target": t, "seconds": seconds.get(t), "report": d}
                                                             for t, d in ordered]}, out, indent=2)
    if args.format == "json":
        sys.stdout.write(json.dumps({"problem": args.source, "solutions": [d for _, d in ordered]}, indent=2) + "\n")
    else:
        print(table(args.source, ordered, seconds))
    return exit_code([d for _, d in ordered])


def verdict_of(doc: dict[str, Any]) -> str:
    return str(doc.get("verdict", "error"))


def exit_code(docs: list[dict[str, Any]]) -> int:
    verdicts = {verdict_of(d) for d in docs}
    if "error" in verdicts:
        return 2
    if "different" in verdicts:
        return 1
    return 3 if "inconclusive" in verdicts else 0


def table(problem: str, rows: list[tuple[str, dict[str, Any]]], seconds: dict[str, float]) -> str:
    """The verdict of each solution, its error codes and the first error (or why it was not judged)."""
    lines = [f"solutions of {problem}", ""]
    width = max(len(Path(t).name) for t, _ in rows)
    lines.append(f"{'solution':<{width}}  {'verdict':<12}  {'errors':<20}  {'s':>5}  first finding")
    for target, doc in rows:
        findings = doc.get("findings") or []
        errors = sorted({f["code"] for f in findings if f.get("severity") in ("error", "inconclusive")})
        first = next((f for f in findings if f.get("severity") in ("error", "inconclusive")), None)
        why = first["message"] if first else (doc.get("error") or {}).get("message", "") if isinstance(
            doc.get("error"), dict) else ""
        lines.append(f"{Path(target).name:<{width}}  {verdict_of(doc):<12}  {','.join(errors) or '-':<20}  "
                     f"{seconds.get(target, 0):5.0f}  {why[:100]}")
    counts = {v: sum(verdict_of(d) == v for _, d in rows) for v in ("equivalent", "different", "inconclusive",
                                                                    "error")}
    lines += ["", ", ".join(f"{n} {v}" for v, n in counts.items() if n)]
    return "\n".join(lines)
