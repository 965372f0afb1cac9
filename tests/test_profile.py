"""`make profile`'s report: its section of docs/bench.md is rewritten in place, and a stage is the
cumulative time of the functions that own it in a real cProfile of a lowercheck command."""

from __future__ import annotations

import sys
from pathlib import Path

from lowercheck import bench, profile


def test_section_is_replaced_not_appended(tmp_path):
    results = {"static diff of vector_add": {
        "cold": (4.0, {"imports in the main process": 1.0, "the report": 0.1}),
        "warm": (1.5, {"imports in the main process": 0.9, "the report": 0.1}),
        "cold_median": 4.0, "warm_median": 1.5}, "nvcc -cubin": 0.5}
    page = tmp_path / "bench.md"
    page.write_text("# Bench\n\nkept above\n")
    bench.write_section(page, profile.markdown(results), profile.START, profile.END)
    bench.write_section(page, profile.markdown(results), profile.START, profile.END)
    text = page.read_text()
    assert text.count(profile.START) == 1 and text.startswith("# Bench\n\nkept above")
    assert "Ratio against `nvcc -cubin` of vadd.cu (0.50 s): cold 8.0x, warm 3.0x." in text
    # `make bench` owns the section above it: each command rewrites its own and keeps the other's
    figures = {"static diff, cold": [2.0, 2.2, 2.4], "static diff, warm (report reused)": [0.2, 0.3, 0.25],
               "lower (Triton), cold": [3.0]}
    ratios = bench.markdown(figures, 0.5, {"compile_s": 0.1, "process_s": 1.0}, None, (1.0, 10.0, 100), 16, None, 3)
    bench.write_section(page, ratios, bench.START, bench.END)
    bench.write_section(page, ratios, bench.START, bench.END)
    text = page.read_text()
    assert text.count(bench.START) == 1 and text.count(profile.START) == 1 and "kept above" in text
    assert "| static diff, cold | 2.20 | `nvcc -cubin` of vadd.cu | 0.50 | 4.40x | <= 4x: MISSED |" in text
    assert "| static diff, warm (report reused) | 0.25 | `nvcc -cubin` of vadd.cu | 0.50 | 0.50x | <= 2x: met |" in text
    assert "| lower (Triton), cold | 3.00 | Triton's compile to TTIR, fresh process | 1.00 | 3.00x | <= 2x: MISSED |" in text


def test_stages_come_from_a_real_profile(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", sys.argv[:1])
    wall, shares = profile._profiled(["codes"], tmp_path / "cache", tmp_path / "codes.prof")
    assert wall > 0 and shares["imports in the main process"] > 0
    assert shares["(profiled main process)"] <= wall + 0.5
    assert Path(tmp_path / "codes.prof").stat().st_size > 0
