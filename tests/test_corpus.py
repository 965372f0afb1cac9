"""The corpus: run `lowercheck diff` on every case of every `corpus/*/expected.toml` and compare the
verdict and the codes with the hand-written expectation (the expected codes must all be reported,
and the warning codes of `warnings`; an equivalent case must report no error).

A case with `mode = "static"` runs with `--no-run` and must report exactly its codes (as errors), so
a static check is shown to find the bug on its own (errors and warnings both count there); `spec = "FILE"` passes a spec file beside it;
`args = [...]` adds command-line options (`["--platform", "tpu-v5e"]` for a migration check).

`make test` runs a cover of the corpus (`cover`): in every folder one case of each verdict and mode,
and each expected code at least once; `make corpus` (CORPUS=all) runs every case, and `make
detection` the whole corpus through `lowercheck corpus`."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest
from support import run_lowercheck

CORPUS = Path(__file__).parents[1] / "corpus"
EXIT = {"equivalent": 0, "different": 1, "inconclusive": 3}


def cases() -> list[tuple[Path, dict]]:
    found = []
    for expected in sorted(CORPUS.glob("*/expected.toml")):
        for case in tomllib.loads(expected.read_text())["case"]:
            found.append((expected.parent, case))
    return found


def cover(found: list[tuple[Path, dict]]) -> list[tuple[Path, dict]]:
    """The first case of each folder, verdict and mode, then a case for each expected code no case
    chosen so far expects, in the corpus's order."""
    chosen, kinds, codes = [], set(), set()
    for folder, case in found:
        kind = (folder.name, case["verdict"], case.get("mode", "full"))
        if kind not in kinds:
            kinds.add(kind)
            chosen.append((folder, case))
            codes |= set(case["codes"])
    for folder, case in found:
        if set(case["codes"]) - codes:
            chosen.append((folder, case))
            codes |= set(case["codes"])
    return chosen


CASES = cases() if os.environ.get("CORPUS") == "all" else cover(cases())


@pytest.mark.parametrize("folder, case", CASES, ids=[f"{f.name}/{c['target']}" for f, c in CASES])
def test_case(folder: Path, case: dict, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    command = ["diff", str(folder / case["source"]),
               str(folder / case["target"]), "--json", str(report)]
    static_only = case.get("mode") == "static"
    if static_only:
        command.append("--no-run")
    if "spec" in case:
        command += ["--spec", str(folder / case["spec"])]
    command += case.get("args", [])  # options the case needs, e.g. ["--platform", "tpu-v5e"]
    done = run_lowercheck(command)
    doc = json.loads(report.read_text())
    levels = ("error", "warning") if case.get("mode") == "static" else ("error",)
    found = {f["code"] for f in doc["findings"] if f["severity"] in levels}
    context = f"{case['description']}\n{done.stdout}\n{done.stderr}"
    problems = []
    if doc["verdict"] != case["verdict"]:
        problems.append(f"verdict {doc['verdict']}, expected {case['verdict']}")
    if done.returncode != EXIT[case["verdict"]]:
        problems.append(f"exit code {done.returncode}")
    if not set(case["codes"]) <= found:
        problems.append(f"missing {sorted(set(case['codes']) - found)}")
    warned = {f["code"] for f in doc["findings"] if f["severity"] == "warning"}
    if not set(case.get("warnings", [])) <= warned:  # a hack caught as a warning: the warning must be there
        problems.append(f"missing warnings {sorted(set(case['warnings']) - warned)}")
    if (case["verdict"] == "equivalent" or static_only) and found - set(case["codes"]):
        problems.append(f"unexpected {sorted(found - set(case['codes']))}")
    # A case lowercheck is known not to get right yet says why in `known_gap`: it must still fail
    # (strict), so the marker goes as soon as the gap is closed.
    if "known_gap" in case:
        if not problems:
            pytest.fail(f"known gap closed, remove `known_gap` from the case: {case['known_gap']}")
        pytest.xfail(f"{case['known_gap']} ({'; '.join(problems)})")
    assert not problems, "; ".join(problems) + "\n" + context
