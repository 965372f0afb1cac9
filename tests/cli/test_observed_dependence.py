"""Dependences observed in runs (`lowercheck.observe`): where a side's static map is not exact (a
tile reshaped with tl.reshape), the runs replace a slice of the input at a time; an equivalent port
is "observed" with the same map in words on both sides, and a port that drops a row's last column
is LC204 with the one input element as its witness, "observed in a run"."""

from __future__ import annotations

import json
from pathlib import Path

from support import run_lowercheck

ROW_MAX = Path(__file__).resolve().parents[2] / "corpus" / "row_max"


def _diff(target: str, tmp_path: Path) -> tuple[int, dict]:
    report = tmp_path / "report.json"
    result = run_lowercheck(["diff", str(ROW_MAX / "row_max.cu"), str(ROW_MAX / target), "--json", str(report)])
    return result.returncode, json.loads(report.read_text())


def test_a_dropped_last_column_is_observed_with_its_witness(tmp_path: Path) -> None:
    code, doc = _diff("row_max_reshaped_last_column.py", tmp_path)
    assert code == 1
    assert doc["dependences"] == {"return0": "observed"}
    [finding] = [f for f in doc["findings"] if f["code"] == "LC204"]
    assert finding["evidence"] == "observed in a run"
    witness = finding["witness"]
    cols = witness["sizes"]["cols"]
    assert witness["read_by"] == "source" and witness["input"] == "x"
    assert witness["input_index"] == [witness["element"][0], cols - 1]
    assert witness["values"]["source"] == witness["replaced_by"]  # the replaced element is the row's maximum
    assert witness["values"]["target"] < witness["replaced_by"]
    assert finding["location"]["line"] == 17  # the port's store
    lc204 = next(c for c in doc["static_checks"] if c["code"] == "LC204")
    assert lc204["status"] == "observed in a run" and "1 finding" in lc204["detail"]
    assert any("changes with x[i0, *]" in line for line in doc["dependence_words"]["source"])


def test_lower_observe_prints_the_maps_it_observed() -> None:
    """`lower --emit access --observe`: after the static maps (not exact through tl.reshape), the
    maps observed as `diff` observes them; the real-world suite counts these lines."""
    from lowercheck import realworld

    done = run_lowercheck(["lower", str(ROW_MAX / "row_max_reshaped.py"), "--emit", "access", "--observe"])
    assert done.returncode == 0, done.stderr
    assert realworld.inexact_outputs(done.stdout) == ["return0"]
    lines = [line for line in done.stdout.splitlines() if line.startswith("//   observed: ")]
    assert len(lines) == 1 and "return0[i0] changes with x[i0, *] (observed at " in lines[0]
    assert realworld.observed_outputs(done.stdout) == {"return0"}
    plain = run_lowercheck(["lower", str(ROW_MAX / "row_max_reshaped.py"), "--emit", "access"])
    assert "observed" not in plain.stdout  # only when asked: it runs the kernel


def test_a_map_not_exact_at_some_swept_size_is_not_proved(tmp_path: Path) -> None:
    """row_cumsum's block scan is captured per size; at cols=97 its chunk loop takes one trip and its
    map composes, at larger sizes the carry feeds itself: the LC204 check must say "not compared"
    (it kept the first size's "proved"), as the output's dependence status does."""
    report = tmp_path / "report.json"
    folder = ROW_MAX.parent / "row_cumsum"
    done = run_lowercheck(["diff", str(folder / "row_cumsum.cu"), str(folder / "row_cumsum.py"), "--no-run",
                           "--json", str(report)])
    assert done.returncode == 0, done.stderr
    doc = json.loads(report.read_text())
    assert doc["dependences"] == {"return0": "not compared"}
    lc204 = next(c for c in doc["static_checks"] if c["code"] == "LC204")
    assert lc204["status"] == "not compared" and "feeds itself" in lc204["detail"]
