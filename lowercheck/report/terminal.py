"""The terminal report: each finding with both sides' source lines, its witness and a hint."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from lowercheck.errors import SourceLocation
from lowercheck.findings import Finding, Severity

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan",
          Severity.INCONCLUSIVE: "magenta"}
_VERDICT_STYLE = {"equivalent": "bold green", "different": "bold red", "inconclusive": "bold magenta",
                  "error": "bold red"}


@cache
def _lines(path: str) -> list[str]:
    try:
        return Path(path).read_text(errors="replace").splitlines()
    except OSError:
        return []


def snippet(location: SourceLocation | None) -> list[str]:
    """The source line of `location` with a caret under the column, in the house format."""
    if location is None or location.line <= 0:
        return []
    lines = _lines(location.file)
    if location.line > len(lines):
        return []
    text = lines[location.line - 1]
    gutter = f"{location.line:>5} | "
    out = [gutter + text]
    if location.column > 0:
        out.append(" " * (len(gutter) - 2) + "| " + " " * (location.column - 1) + "^")
    return out


def _witness_text(witness: dict[str, Any]) -> str:
    parts = []
    for key, value in witness.items():
        if key in ("error", "unwritten_set", "rules", "pattern", "probes") or (key == "work_item" and "where" in witness):
            continue
        if key == "where":
            parts.append(str(value))
            continue
        if isinstance(value, dict):
            parts.append(", ".join(f"{k}={v}" for k, v in value.items()))
        else:
            parts.append(f"{key}={value}")
    return "; ".join(p for p in parts if p)


def render_finding(f: Finding) -> Text:
    where = f"{f.location}: " if f.location else (f"[{f.side}] " if f.side else "")
    text = Text()
    text.append(where)
    text.append(f"{f.level}[{f.code}]", style=_STYLE[f.level])
    text.append(f": {f.message}\n")
    for line in snippet(f.location):
        text.append(line + "\n", style="dim")
    if f.other_location:
        text.append(f"  note: the other side: {f.other_location}\n")
        for line in snippet(f.other_location):
            text.append(line + "\n", style="dim")
    if f.witness:
        text.append(f"  witness: {_witness_text(f.witness)}\n")
    if f.evidence:
        text.append(f"  evidence: {f.evidence}\n", style="dim")
    if f.hint:
        text.append("  help: ", style="bold")
        text.append(f"{f.hint}\n")
    return text


# The runs table's columns, most important first: a narrow terminal drops them from the end instead
# of truncating every cell.
RUN_COLUMNS = ("sizes", "status", "inputs", "max abs", "ulp", "oracle err s/t", "src s", "tgt s")


def run_cells(run: dict[str, Any]) -> dict[str, str]:
    """A run's row (`RunRecord.to_json()`) as the runs table shows it."""
    worst = max(run["outputs"], key=lambda o: o["max_abs"], default=None)
    oracle = "-"
    if worst is not None and worst.get("source_error") is not None:
        oracle = f"{worst['source_error']:.2g}/{worst['target_error']:.2g}"
    wall = run.get("wall_s") or {}
    return {"sizes": ",".join(f"{k}={v}" for k, v in run["sizes"].items()), "inputs": run["inputs"],
            "status": run["status"], "max abs": f"{worst['max_abs']:.2g}" if worst else "-",
            "ulp": f"{worst['max_ulp']:.3g}" if worst else "-", "oracle err s/t": oracle,
            "src s": f"{wall.get('source', 0):.2f}", "tgt s": f"{wall.get('target', 0):.2f}"}


def runs_table(runs: list[dict[str, Any]], width: int) -> tuple[Table, list[str]]:
    """The runs table with as many columns as fit `width` (in RUN_COLUMNS' order), and the ones left out.
    Only the sizes column may wrap, when even the first three do not fit."""
    rows = [run_cells(run) for run in runs]
    widths = {c: max([len(c)] + [len(r[c]) for r in rows]) for c in RUN_COLUMNS}
    chosen = list(RUN_COLUMNS)
    while len(chosen) > 3 and sum(widths[c] for c in chosen) + 3 * (len(chosen) - 1) > width:
        chosen.pop()
    table = Table(title="differential runs", title_justify="left", show_edge=False)
    for column in chosen:
        table.add_column(column, no_wrap=column != "sizes", overflow="fold")
    for row in rows:
        table.add_row(*(row[c] for c in chosen))
    return table, [c for c in RUN_COLUMNS if c not in chosen]


def render(doc: dict[str, Any], console: Console | None = None) -> None:
    """A diff's report from its JSON document (`Report.to_json()`, or one reused from the report
    cache): the text is a view of the same data `--json` writes."""
    console = console or Console(highlight=False, soft_wrap=True)
    for name in ("source", "target"):
        info = doc[name]
        params = ", ".join(f"{p['name']}" + (f" ({p['variable']})" if p.get("variable") else "") + f":{p['role']}"
                           + (f"[{', '.join(p['shape'])}]" if p["shape"] else "") for p in info["params"])
        console.print(f"[bold]{name}[/bold] {escape(info['path'])}:{info['entry']} ({info['language']}) — "
                      f"{escape(params)}")
        if info.get("operators"):
            console.print(f"  operators {escape(', '.join(info['operators']))}")
        elif info.get("geometry"):
            console.print(f"  launches {escape(info['geometry'])}")
    for note in doc["notes"]:
        console.print(f"  note: {escape(note)}", style="dim")
    if doc.get("static"):
        console.print(f"  static checks: {doc['static']}", style="dim")
        for check in doc.get("static_checks", ()):
            detail = f" ({check['detail']})" if check["detail"] and check["status"] != doc["static"] else ""
            console.print(f"    {check['code']} {check['title']}: {check['status']}{escape(detail)}", style="dim")
        for side, lines in (doc.get("dependence_words") or {}).items():
            for line in lines:
                console.print(f"  dependence ({side}): {escape(line)}", style="dim")
    if doc.get("cost"):
        for line in doc["cost"]["summary"]:
            console.print(f"  {escape(line)}", style="dim")
    console.print()
    findings = [Finding.from_json(f) for f in doc["findings"]]
    for finding in findings:
        console.print(render_finding(finding))
    if doc["runs"]:
        table, dropped = runs_table(doc["runs"], console.width)
        if dropped:
            console.print(f"  (to fit {console.width} columns the runs table leaves out: {', '.join(dropped)}; "
                          "--json has every figure)", style="dim")
        console.print(table)
        rules: dict[str, str] = {}
        for run in doc["runs"]:  # the rule that decided each output, as the largest normal run saw it
            for o in run["outputs"]:
                if run["inputs"] in ("normal", "rand01"):
                    rules[o["name"]] = o["rule"]
        for name, rule in rules.items():
            console.print(f"  tolerance of `{escape(name)}`: {escape(rule)}", style="dim")
        console.print("  (max abs, ulp: target vs source, worst output; oracle err: each side against float64)",
                      style="dim")
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.level] = counts.get(f.level, 0) + 1
    summary = ", ".join(f"{n} {level}" for level, n in counts.items()) or "no findings"
    verdict = doc["verdict"]
    console.print(Text.assemble(("verdict: ", "bold"), (verdict, _VERDICT_STYLE[verdict]), f" ({summary})"))
