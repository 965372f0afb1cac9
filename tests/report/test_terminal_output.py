"""The terminal report fits and behaves: the runs table drops columns by priority when narrow, and
colours appear only on a terminal without NO_COLOR."""

from __future__ import annotations

import os
from pathlib import Path

from support import run_lowercheck

from lowercheck.compare.dynamic import RunRecord
from lowercheck.report.terminal import RUN_COLUMNS, runs_table

ROOT = Path(__file__).parents[2]
PAIR = [str(ROOT / "corpus/vector_add/vadd.cu"), str(ROOT / "corpus/vector_add/vadd_no_mask.py")]


def _runs():
    return [RunRecord(sizes={"rows": 1000, "cols": 4099}, inputs="normal", status="different", outputs=[],
                      wall_s={"source": 1.5, "target": 0.25}).to_json()]


def test_wide_terminal_keeps_every_column():
    table, dropped = runs_table(_runs(), 200)
    assert dropped == [] and [c.header for c in table.columns] == list(RUN_COLUMNS)


def test_narrow_terminal_drops_the_least_important_columns():
    table, dropped = runs_table(_runs(), 50)
    kept = [c.header for c in table.columns]
    assert kept == list(RUN_COLUMNS[:len(kept)]) and dropped == list(RUN_COLUMNS[len(kept):])
    assert kept[:3] == ["sizes", "status", "inputs"] and "tgt s" in dropped


def _diff_with(env: dict[str, str]):
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return run_lowercheck(["diff", *PAIR, "--no-run"])
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def test_colours_only_on_a_terminal_and_never_with_no_color():
    plain = _diff_with({})
    assert "\x1b[" not in plain.stdout  # not a terminal: no escape codes
    forced = _diff_with({"FORCE_COLOR": "1"})
    assert "\x1b[31m" in forced.stdout or "\x1b[1;31m" in forced.stdout  # red errors on a (forced) terminal
    muted = _diff_with({"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert "\x1b[31m" not in muted.stdout and "\x1b[1;31m" not in muted.stdout


def test_a_diff_shows_its_runs_progress_on_a_terminal_only():
    import io

    from rich.console import Console

    from lowercheck import api, progress

    out = io.StringIO()
    with progress.shown(True, Console(file=out, force_terminal=True, width=120)):
        api.diff(*PAIR, static=False)
    shown = out.getvalue()
    assert "source runs" in shown and "target runs" in shown and "n=" in shown  # the bar, with the sizes
    assert progress.advancer("x", ["a"]) is None  # off again: the stages pay nothing
    piped = run_lowercheck(["diff", *PAIR])
    assert "source runs" not in piped.stdout and "\x1b[" not in piped.stdout
