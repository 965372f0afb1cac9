"""The HTML report in a real browser: three corpus pairs (a missing mask, a transposed index, a
numerics bug) rendered by headless Chromium (Debian's `chromium`, installed here when missing and
this is a root Debian machine): no console errors, every finding's anchor there, every picture
decoded; each page under 2 MB; a screenshot of each kept in .cache/test-artefacts/."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from support import run_lowercheck

ROOT = Path(__file__).parents[2]
ARTEFACTS = ROOT / ".cache" / "test-artefacts"
PAIRS = {
    "missing_mask": ("vector_add/vadd.cu", "vector_add/vadd_no_mask.py", []),
    "transposed_index": ("transpose/transpose.cu", "transpose/transpose_copy.py", []),
    "numerics": ("reduce_sum/reduce_sum.cu", "reduce_sum/reduce_sum_fp16_acc.py", []),
}


@pytest.fixture(scope="module")
def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and shutil.which("apt-get") and os.geteuid() == 0:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, timeout=600)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], env=env, capture_output=True, timeout=1200)
        found = shutil.which("chromium")
    if found is None:
        pytest.skip("no chromium, and it cannot be installed here (not a root Debian machine)")
    return found


def _browse(chromium: str, page: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                           "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000",
                           f"--user-data-dir={page.parent / 'profile'}", *extra, page.as_uri()],
                          capture_output=True, text=True, timeout=180)


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_html_report_renders_in_a_browser(tmp_path, chromium, name):
    source, target, extra = PAIRS[name]
    page = tmp_path / f"{name}.html"
    result = run_lowercheck(["diff", str(ROOT / "corpus" / source), str(ROOT / "corpus" / target), *extra,
                             "--html", str(page)])
    assert result.returncode == 1, result.stdout + result.stderr
    text = page.read_text()
    assert page.stat().st_size < 2 * 2**20
    assert "http://" not in text.replace("http://www.w3.org", "") and "https://" not in text  # self-contained
    findings = len(re.findall(r"id='finding-\d+'", text))
    assert findings >= 1
    if name == "transposed_index":  # values differ in the runs: the error's heat map and its pattern
        assert "<h2>Where the values differ</h2>" in text and "alt='error of return0'" in text
    dom = _browse(chromium, page, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = re.search(r"<body([^>]*)>", dom.stdout).group(1)
    drawn = int(re.search(r'data-pictures-drawn="(\d+)"', body).group(1))
    pictures = int(re.search(r'data-pictures="(\d+)"', body).group(1))
    assert pictures >= 2 and drawn == pictures, body  # the roofline and the access pictures decoded
    assert 'data-js-errors="0"' in body, body
    for i in range(findings):
        assert f'id="finding-{i}"' in dom.stdout
    assert "Uncaught" not in dom.stderr and ":CONSOLE(" not in dom.stderr, dom.stderr[-2000:]
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTEFACTS / f"html-report-{name}.png"
    done = _browse(chromium, page, f"--screenshot={shot}", "--window-size=1280,1800", "--hide-scrollbars")
    assert done.returncode == 0 and shot.stat().st_size > 10_000, done.stderr[-2000:]
