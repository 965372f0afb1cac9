"""User code imports what its author's environment has: its own folder's modules (as `python
file.py` would), and with `--python PATH` the packages of the reviewer's interpreter; a package
neither has is one clear line naming it and how to install it (exit 2), never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support import run_lowercheck

SOLUTION = Path(__file__).parents[2] / "corpus" / "kernelbench" / "solutions" / "relu_triton.py"

PROBLEM = '''import torch
import torch.nn as nn
from {module} import activation


class Model(nn.Module):
    def forward(self, x):
        return activation(x)


def get_inputs():
    return [torch.randn(4, 300)]


def get_init_inputs():
    return []
'''
HELPER = "import torch\n\n\ndef activation(x):\n    return torch.relu(x)\n"


def test_a_reference_imports_its_sibling_module(tmp_path: Path) -> None:
    (tmp_path / "lc_sibling_ops.py").write_text(HELPER)
    problem = tmp_path / "problem.py"
    problem.write_text(PROBLEM.format(module="lc_sibling_ops"))
    done = run_lowercheck(["diff", str(problem), str(SOLUTION)])
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_missing_package_is_named_with_its_install_line(tmp_path: Path) -> None:
    problem = tmp_path / "problem.py"
    problem.write_text(PROBLEM.format(module="lc_not_installed_pkg.ops"))
    done = run_lowercheck(["diff", str(problem), str(SOLUTION)])
    assert done.returncode == 2 and "Traceback" not in done.stdout + done.stderr
    assert f"{problem}:3: error: importing the reference failed: the file imports `lc_not_installed_pkg`, " \
           "which is not installed" in done.stderr
    assert "-m pip install lc_not_installed_pkg" in done.stderr


def test_python_lends_the_reviewers_packages(tmp_path: Path) -> None:
    """A venv of the reviewer's with the package the reference imports: `--python` makes it run."""
    venv = tmp_path / "reviewer"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "lc_reviewer_ops").mkdir(parents=True)
    (site / "lc_reviewer_ops" / "__init__.py").write_text(HELPER)
    problem = tmp_path / "work" / "problem.py"
    problem.parent.mkdir()
    problem.write_text(PROBLEM.format(module="lc_reviewer_ops"))
    command = [sys.executable, "-m", "lowercheck", "diff", str(problem), str(SOLUTION), "--no-static"]
    without = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert without.returncode == 2 and "lc_reviewer_ops" in without.stderr
    done = subprocess.run([*command, "--python", str(python)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
