"""Configuration: [tool.lowercheck] or lowercheck.toml < environment < command line; unknown keys
are bad input at their file:line; ignore/error lists change the report (and so the verdict)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from support import run_lowercheck

from lowercheck import config
from lowercheck.errors import UserError

ROOT = Path(__file__).parents[1]
NO_MASK = [str(ROOT / "corpus/vector_add/vadd.cu"), str(ROOT / "corpus/vector_add/vadd_no_mask.py")]


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for key in config.DEFAULTS:
        monkeypatch.delenv(f"LOWERCHECK_{key.upper()}", raising=False)
    return tmp_path


def test_precedence_file_then_environment_then_command_line(project, monkeypatch):
    (project / "pyproject.toml").write_text('[project]\nname = "k"\n\n[tool.lowercheck]\nseed = 7\ntimeout = 30\n'
                                            'gpu = "a100-80gb"\n')
    (project / "sub").mkdir()
    loaded = config.load(project / "sub")  # the nearest file, from a folder below it
    assert loaded["seed"] == 7 and loaded.origins["seed"].endswith("pyproject.toml:5")
    assert loaded["timeout"] == 30.0 and loaded["gpu"] == "a100-80gb"
    monkeypatch.setenv("LOWERCHECK_SEED", "9")
    loaded = config.load(project)
    assert loaded["seed"] == 9 and loaded.origins["seed"] == "environment $LOWERCHECK_SEED"
    final = config.apply_command_line(loaded, seed=11, timeout=None, gpu=None)
    assert final["seed"] == 11 and final.origins["seed"] == "command line" and final["timeout"] == 30.0
    shown = run_lowercheck(["config", "--timeout", "5"]).stdout
    assert re.search(r"^seed\s+= 9", shown, re.M)
    assert "environment $LOWERCHECK_SEED" in shown
    assert re.search(r"^timeout\s+= 5.0", shown, re.M) and "# command line" in shown and "a100-80gb" in shown


def test_lowercheck_toml_wins_in_its_folder_and_a_pyproject_without_the_table_is_passed_over(project):
    (project / "pyproject.toml").write_text('[tool.lowercheck]\nseed = 1\n')
    (project / "inner").mkdir()
    (project / "inner" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert config.load(project / "inner")["seed"] == 1
    (project / "inner" / "lowercheck.toml").write_text("seed = 2\n")
    assert config.load(project / "inner")["seed"] == 2


@pytest.mark.parametrize("text, line, message", [
    ('[tool.lowercheck]\nseed = 1\nsede = 2\n', 3, "unknown key `sede` in [tool.lowercheck]"),
    ('[tool.lowercheck]\nignore = ["LC999"]\n', 2, "unknown code 'LC999'"),
    ('[tool.lowercheck]\ngpu = "v100"\n', 2, "unknown target"),
    ('[tool.lowercheck]\ntimeout = "soon"\n', 2, "`timeout` must be a number"),
])
def test_bad_configuration_names_the_key_and_line(project, text, line, message):
    (project / "pyproject.toml").write_text(text)
    with pytest.raises(UserError, match=message.replace("[", r"\[").replace("(", r"\(")) as err:
        config.load(project)
    assert err.value.location.line == line and err.value.location.file.endswith("pyproject.toml")
    result = run_lowercheck(["diff", *NO_MASK, "--no-run"])
    assert result.returncode == 2 and f"pyproject.toml:{line}: error" in result.stderr


def test_ignore_and_error_change_the_verdict(project):
    assert run_lowercheck(["diff", *NO_MASK, "--no-run"]).returncode == 1
    (project / "lowercheck.toml").write_text('ignore = ["LC201", "LC210"]\n')
    result = run_lowercheck(["diff", *NO_MASK, "--no-run"])
    assert "ignored by the configuration: LC201 x" in result.stdout
    assert "error[LC201]" not in result.stdout
    (project / "lowercheck.toml").write_text('[[overrides]]\npaths = ["*/vadd_no_mask.py"]\nerror = ["LC101"]\n')
    result = run_lowercheck(["diff", str(ROOT / "corpus/vector_add/vadd.cu"), str(ROOT / "corpus/vector_add/vadd.py"),
                             "--no-run"])
    assert result.returncode == 0  # the override names another file
    (project / "lowercheck.toml").write_text('[[overrides]]\npaths = ["*/vadd.py"]\nerror = ["LC101"]\n')
    result = run_lowercheck(["diff", str(ROOT / "corpus/vector_add/vadd.cu"), str(ROOT / "corpus/vector_add/vadd.py"),
                             "--no-run"])
    assert result.returncode == 1 and "promoted to errors by the configuration: LC101" in result.stdout


def test_environment_lists(project, monkeypatch):
    monkeypatch.setenv("LOWERCHECK_IGNORE", "lc205, LC206")
    assert config.load(project)["ignore"] == ["LC205", "LC206"]
    monkeypatch.setenv("LOWERCHECK_TIMEOUT", "never")
    with pytest.raises(UserError, match="LOWERCHECK_TIMEOUT"):
        config.load(project)
    assert os.environ["LOWERCHECK_TIMEOUT"] == "never"


def test_the_task_policy_on_kernels_of_its_own(project, monkeypatch):
    """`custom_kernel = "required"` (a task that asks for a kernel) reaches the diff: the corpus's torch
    wrapper is then an error, not a warning; a value outside the choices is bad input at its line."""
    (project / "lowercheck.toml").write_text('custom_kernel = "required"\nintegrity = "on"\n')
    loaded = config.load(project)
    assert loaded["custom_kernel"] == "required" and loaded.origins["custom_kernel"].endswith("lowercheck.toml:1")
    (project / "lowercheck.toml").write_text('integrity = "maybe"\n')
    with pytest.raises(UserError, match="`integrity` must be one of 'on', 'off'"):
        config.load(project)
    monkeypatch.setenv("LOWERCHECK_CUSTOM_KERNEL", "required")
    (project / "lowercheck.toml").write_text("")
    assert config.load(project)["custom_kernel"] == "required"
    hacks = ROOT / "corpus/hacks"
    report = project / "r.json"
    done = run_lowercheck(["diff", str(hacks / "problems/gemm.py"), str(hacks / "solutions/gemm_torch_mm.py"),
                           "--json", str(report)])
    assert done.returncode == 1, done.stdout + done.stderr
    found = {f["code"]: f["severity"] for f in json.loads(report.read_text())["findings"]}
    assert found.get("LC701") == "error"
