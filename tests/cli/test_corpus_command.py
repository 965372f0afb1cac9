"""`lowercheck corpus`: cases discovered from expected.toml, results appended as they finish, a
restarted run skipping finished cases (a torn last line from a killed run is ignored), and the
summary with the KernelBench-style baseline beside lowercheck's numbers."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from support import marked_processes, run_lowercheck

CORPUS = Path(__file__).parents[2] / "corpus"


def make_corpus(root: Path) -> Path:
    folder = root / "vector_add"
    folder.mkdir(parents=True)
    for name in ("vadd.cu", "vadd.py", "vadd_le_mask.py", "vadd_floor_grid.py"):
        shutil.copy(CORPUS / "vector_add" / name, folder / name)
    (folder / "expected.toml").write_text('''
[[case]]
source = "vadd.cu"
target = "vadd.py"
verdict = "equivalent"
codes = []
description = "the port"

[[case]]
source = "vadd.cu"
target = "vadd_le_mask.py"
verdict = "different"
codes = ["LC201"]
description = "mask <= n"

[[case]]
source = "vadd.cu"
target = "vadd_floor_grid.py"
mode = "static"
verdict = "different"
codes = ["LC202"]
description = "grid floors"
''')
    return root


def test_corpus_runs_resumes_and_compares_with_the_baseline(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "corpus")
    results = tmp_path / "results.jsonl"
    # A run killed after one case: its outcome is on disk (marked so we can see it is not redone),
    # followed by half a line.
    from lowercheck.batch import discover

    key = next(c.key for c in discover(root) if c.target == "vadd_floor_grid.py" and c.mode == "static")
    finished = {"key": key, "tool": "lowercheck", "verdict": "different",
                "codes": ["LC202"], "seconds": -1.0, "message": "from the killed run"}
    results.write_text(json.dumps(finished) + "\n" + '{"key": "torn')
    report = tmp_path / "detection.md"
    done = subprocess.run([sys.executable, "-m", "lowercheck", "corpus", str(root), "-j", "2", "--json", str(results),
                           "--baseline", "kernelbench", "--markdown", str(report)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in results.read_text().splitlines()[1:]]  # the torn line is gone
    kept = json.loads(results.read_text().splitlines()[0])
    assert kept["seconds"] == -1.0  # not redone
    runs = {(r["key"].split(":")[2], r["tool"]) for r in lines}
    assert runs == {("vadd.py", "lowercheck"), ("vadd_le_mask.py", "lowercheck"),
                    ("vadd.py", "kernelbench"), ("vadd_le_mask.py", "kernelbench")}
    text = report.read_text()
    assert "| seeded bugs detected | 2 / 2 (100.0%) | 0 / 1 (0.0%) |" in text  # <= n passes allclose
    assert "| false positives on correct pairs | 0 / 1 | 0 / 1 |" in text
    assert "Time: 4 case runs in " in text and "with `-j 2`; 1 results reused from an interrupted run" in text
    # Started again with everything done: nothing runs.
    again = subprocess.run([sys.executable, "-m", "lowercheck", "corpus", str(root), "--json", str(results),
                            "--baseline", "kernelbench"], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and len(results.read_text().splitlines()) == 1 + 4


# ---------------------------------------------------------------------------------------------
# Per bug class: counted from fake outcomes (nothing runs).

from lowercheck import batch  # noqa: E402
from lowercheck.batch import Case, Outcome  # noqa: E402


def _case(target: str, verdict: str, codes: tuple[str, ...], bug_class: str | None, mode: str = "run") -> Case:
    return Case("/corpus/op", "k.cu", target, verdict, codes, "", mode=mode, bug_class=bug_class)


CLASS_CASES = [
    _case("ok.py", "equivalent", (), "none"),
    _case("ok_flagged.py", "equivalent", (), "none"),
    _case("ok_unsure.py", "equivalent", (), "none"),
    _case("tail.py", "different", ("LC201",), "unmasked-tail"),
    _case("tail_other_family.py", "different", ("LC201",), "unmasked-tail"),
    _case("tail_unsure.py", "different", ("LC201",), "unmasked-tail"),
    _case("tail_passed.py", "different", ("LC201",), "unmasked-tail"),
    _case("math.py", "different", ("LC301",), "wrong-math"),
    _case("floor.py", "different", ("LC202",), "coverage", mode="static"),
    _case("old.py", "different", ("LC301",), None),
]


def _outcome(target: str, tool: str, verdict: str, codes: tuple[str, ...] = ()) -> tuple[tuple[str, str], Outcome]:
    case = next(c for c in CLASS_CASES if c.target == target)
    return (case.key, tool), Outcome(case.key, tool, verdict, list(codes))


CLASS_OUTCOMES = dict([
    _outcome("ok.py", "lowercheck", "equivalent"),
    _outcome("ok_flagged.py", "lowercheck", "different", ("LC301",)),  # a false positive
    _outcome("ok_unsure.py", "lowercheck", "inconclusive"),
    _outcome("tail.py", "lowercheck", "different", ("LC201", "LC101")),  # detected
    _outcome("tail_other_family.py", "lowercheck", "different", ("LC301",)),  # missed: another family
    _outcome("tail_unsure.py", "lowercheck", "inconclusive"),
    _outcome("tail_passed.py", "lowercheck", "equivalent"),  # missed
    _outcome("math.py", "lowercheck", "error"),  # missed: failed
    _outcome("floor.py", "lowercheck", "different", ("LC202",)),  # detected (static: no baseline run)
    _outcome("old.py", "lowercheck", "different", ("LC301",)),
    _outcome("ok.py", "kernelbench", "equivalent"),
    _outcome("ok_flagged.py", "kernelbench", "different"),
    _outcome("ok_unsure.py", "kernelbench", "equivalent"),
    _outcome("tail.py", "kernelbench", "equivalent"),
    _outcome("tail_other_family.py", "kernelbench", "different"),
    _outcome("tail_unsure.py", "kernelbench", "different"),
    _outcome("tail_passed.py", "kernelbench", "equivalent"),
    _outcome("math.py", "kernelbench", "different"),
    _outcome("old.py", "kernelbench", "equivalent"),
])


def test_summary_counts_per_bug_class() -> None:
    ours = batch.summarise(CLASS_CASES, CLASS_OUTCOMES, "lowercheck")
    counts = {name: (c.cases, c.detected, c.missed, c.inconclusive, c.false_positives)
              for name, c in ours.by_class.items()}
    assert counts == {"none": (3, 0, 0, 1, 1), "unmasked-tail": (4, 1, 2, 1, 0), "wrong-math": (1, 0, 1, 0, 0),
                      "coverage": (1, 1, 0, 0, 0), "unclassified": (1, 1, 0, 0, 0)}
    base = batch.summarise([c for c in CLASS_CASES if c.mode == "run"], CLASS_OUTCOMES, "kernelbench")
    assert {name: (c.bugs, c.detected, c.correct, c.false_positives) for name, c in base.by_class.items()} == {
        "none": (0, 0, 3, 1), "unmasked-tail": (4, 2, 0, 0), "wrong-math": (1, 1, 0, 0), "unclassified": (1, 0, 0, 0)}


def test_markdown_has_the_per_class_table_beside_the_baseline() -> None:
    text = batch.markdown(CLASS_CASES, CLASS_OUTCOMES, True, "today")
    section = text[text.index("## Per bug class"):text.index("## Per expected code")]
    rows = [line for line in section.splitlines()
            if line.startswith("| ") and not line.startswith(("| class", "| ---"))]
    # class | cases | detected | missed | inconclusive | false positives | baseline detected | baseline FP,
    # in the order of BUG_CLASSES, cases without a class last.
    assert rows == [
        "| none | 3 | - | - | 1 | 1 | - | 1 / 3 |",
        "| unmasked-tail | 4 | 1 | 2 | 1 | - | 2 / 4 | - |",
        "| coverage | 1 | 1 | 0 | 0 | - | - | - |",  # static: the baseline has no run to judge
        "| wrong-math | 1 | 0 | 1 | 0 | - | 1 / 1 | - |",
        "| unclassified | 1 | 1 | 0 | 0 | - | 0 / 1 | - |",
    ]
    empty = next(line for line in section.splitlines() if line.startswith("Classes without a case:"))
    assert "double-write" in empty and "unmasked-tail" not in empty and "none," not in empty
    # The per-code table stays.
    assert "| LC201 | 1 / 4 | 2 / 4 |" in text
    # Without the baseline, its columns are empty.
    alone = batch.markdown(CLASS_CASES, CLASS_OUTCOMES, False, "today")
    assert "| unmasked-tail | 4 | 1 | 2 | 1 | - | - | - |" in alone
    # The missed list says why a case was not judged.
    assert "- op/math.py vs k.cu (error)" in text and "- op/tail_unsure.py vs k.cu (inconclusive)" in text


def test_results_file_carries_the_class(tmp_path: Path, monkeypatch) -> None:
    def fake_run(case: Case, tool: str, limit_s: float, server=None, html_dir=None) -> Outcome:
        return Outcome(case.key, tool, "equivalent" if case.verdict == "equivalent" else "different", [])

    monkeypatch.setattr(batch, "run_case", fake_run)
    results = tmp_path / "results.jsonl"
    batch.run_corpus(CLASS_CASES[:4], results, 2, baseline=True, limit_s=10, progress=False)
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(lines) == 8
    assert {(r["key"].split(":")[2], r["tool"], r["bug_class"]) for r in lines} >= {
        ("ok.py", "lowercheck", "none"), ("tail.py", "kernelbench", "unmasked-tail")}
    # An older results file without the field still loads.
    results.write_text(json.dumps({"key": "a", "tool": "lowercheck", "verdict": "equivalent"}) + "\n")
    assert batch.load_results(results)[("a", "lowercheck")].bug_class is None


def test_corpus_html_index_links_each_cases_report(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "corpus")
    pages = tmp_path / "pages"
    # one job (the jobs are the test above's): its diff server's pages
    done = run_lowercheck(["corpus", str(root), "-j", "1", "--json", str(tmp_path / "results.jsonl"), "--html",
                           str(pages)])
    assert done.returncode == 0, done.stdout + done.stderr
    index = (pages / "index.html").read_text()
    assert "3 of 3 cases as expected." in index
    links = re.findall(r"<a href='([^']+\.html)'>report</a>", index)
    assert len(links) == 3 and all((pages / link).is_file() for link in links)
    assert "<h2>Findings</h2>" in (pages / links[1]).read_text()
    assert "\x1b[" not in done.stdout  # piped: no progress bar drawn


def test_an_interrupted_corpus_run_ends_at_once_and_leaves_no_process(tmp_path: Path) -> None:
    """Ctrl-C while `-j 2` cases hang in their runs: the command ends within seconds (`interrupted`,
    exit 2), the running cases stopped and not recorded, the waiting ones never started, no process
    and no temporary folder left (a resumed run does them). Before, the first Ctrl-C left the pool to run every case still
    waiting (minutes) and record them."""
    folder = tmp_path / "corpus" / "spin"
    folder.mkdir(parents=True)
    for name in ("vadd.cu", "vadd_forever.cu"):
        shutil.copy(CORPUS / "hostile" / "kernels" / name, folder / name)
    (folder / "expected.toml").write_text("".join(
        f'[[case]]\nsource = "vadd.cu"\ntarget = "vadd_forever.cu"\nverdict = "different"\ncodes = ["LC902"]\n'
        f'description = "spins, {i}"\nargs = ["--size", "n={100 + i}"]\n\n' for i in range(6)))
    results, marker, temporary = tmp_path / "results.jsonl", uuid.uuid4().hex, tmp_path / "tmp"
    temporary.mkdir()
    command = subprocess.Popen([sys.executable, "-m", "lowercheck", "corpus", str(tmp_path / "corpus"), "-j", "2",
                                "--case-timeout", "240", "--json", str(results)], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "LOWERCHECK_CACHE_DIR": str(tmp_path / "cache"), MARKER: marker,
                                    "TMPDIR": str(temporary)},
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as from a terminal
    try:
        end = time.monotonic() + 120
        while len(_forkservers(marker)) < 6:  # two servers, each with its watcher, PID 1 and a spinning run
            assert command.poll() is None and time.monotonic() < end, command.communicate()
            time.sleep(0.1)
        time.sleep(2)  # both jobs' runs spinning
        command.send_signal(signal.SIGINT)
        began = time.monotonic()
        out, err = command.communicate(timeout=60)
        took = time.monotonic() - began
    finally:
        command.kill()
    assert command.returncode == 2 and "interrupted" in err and "Traceback" not in err, out + err
    assert took < 15, f"{took:.1f} s after Ctrl-C"
    recorded = results.read_text().splitlines() if results.exists() else []
    assert len(recorded) < 6, recorded
    end = time.monotonic() + 15
    while _marked(marker) and time.monotonic() < end:
        time.sleep(0.2)
    assert _marked(marker) == []
    assert list(temporary.iterdir()) == []  # the killed cases' run folders too: their servers got SIGTERM first


MARKER = "LOWERCHECK_CORPUS_TEST"


def _marked(marker: str) -> list[int]:
    return marked_processes(MARKER, marker)


def _forkservers(marker: str) -> list[int]:
    found = []
    for pid in _marked(marker):
        try:
            if b"forkserver" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            continue
    return found
