"""`make profile`'s report: its section of docs/bench.md is rewritten in place, and a stage is the
cumulative time of the functions that own it in a real cProfile of a lowercheck command."""

from __future__ import annotations

import sys
from pathlib import Path

from lowercheck import profile


def test_section_is_replaced_not_appended(tmp_path):
    results = {"static diff of vector_add": {
        "cold": (4.0, {"imports in the main process": 1.0, "the report": 0.1}),
        "warm": (1.5, {"imports in the main process": 0.9, "the report": 0.1}),
        "cold_median": 4.0, "warm_median": 1.5}, "nvcc -cubin": 0.5}
    page = tmp_path / "bench.md"
    page.write_text("# Bench\n\nkept above\n")
    profile.write(profile.markdown(results), page)
    profile.write(profile.markdown(results), page)
    text = page.read_text()
    assert text.count(profile.START) == 1 and text.startswith("# Bench\n\nkept above")
    assert "Ratio against `nvcc -cubin` of vadd.cu (0.50 s): cold 8.0x, warm 3.0x." in text


def test_stages_come_from_a_real_profile(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", sys.argv[:1])
    wall, shares = profile._profiled(["codes"], tmp_path / "cache", tmp_path / "codes.prof")
    assert wall > 0 and shares["imports in the main process"] > 0
    assert shares["(profiled main process)"] <= wall + 0.5
    assert Path(tmp_path / "codes.prof").stat().st_size > 0
