"""The front-end worker's call server imports what a call's child imported from the packages it
holds (`isolated.import_installed`), so the next calls' children start with it; never a module of
the user's, which runs only in a confined child."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from support import run_lowercheck

from lowercheck.errors import UserError
from lowercheck.frontends.isolated import IsolatedFrontend

ROOT = Path(__file__).parents[2]

# A module of torch's that neither torch's import nor the Triton front end's imports.
PORT = '''import sys

import torch
import triton
import triton.language as tl

BEFORE = "torch.utils.bundled_inputs" in sys.modules
import torch.utils.bundled_inputs  # noqa: E402,F401

raise RuntimeError(f"imported before this file: {BEFORE}")
'''

# The user's own modules, each writing a mark beside itself when imported where it may write: in
# the call server (outside the sandbox) it could; in a call's confined child it cannot.
MARKING = '''import pathlib

try:
    (pathlib.Path(__file__).parent / "{mark}").write_text("imported outside the sandbox")
except OSError:
    pass
'''

HOSTILE_PORT = '''import os
import sys

import torch
import triton
import triton.language as tl

from userpkg import helper  # noqa: F401

torch.__path__.append(os.path.dirname(__file__))  # torch.evil: a module of the user's, under torch's name
import torch.evil  # noqa: E402,F401

sys.modules["torch.made_up"] = sys.modules["torch"]  # a name that is no module
raise RuntimeError("imported")
'''


@pytest.fixture
def worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("LOWERCHECK_CACHE_DIR", str(tmp_path / "cache"))
    frontend = IsolatedFrontend("triton")
    yield frontend
    frontend.close()


def _import_error(worker: IsolatedFrontend, path: Path) -> str:
    with pytest.raises(UserError) as raised:
        worker.entries(str(path))
    return raised.value.message


def test_the_next_calls_child_finds_what_the_last_one_imported(tmp_path: Path, worker: IsolatedFrontend) -> None:
    port = tmp_path / "port.py"
    port.write_text(PORT)
    assert _import_error(worker, port).endswith("imported before this file: False")
    assert _import_error(worker, port).endswith("imported before this file: True")


def test_no_module_of_the_users_is_imported_outside_the_sandbox(tmp_path: Path, worker: IsolatedFrontend) -> None:
    package = tmp_path / "userpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helper.py").write_text(MARKING.format(mark="helper-mark"))
    (package / "evil.py").write_text(MARKING.format(mark="evil-mark"))
    port = package / "port.py"
    port.write_text(HOSTILE_PORT)
    for _ in range(2):
        assert _import_error(worker, port).endswith("RuntimeError: imported")
    assert not (package / "helper-mark").exists()
    assert not (package / "evil-mark").exists()


def test_the_reviewed_files_own_package_is_left_to_the_child(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file of an installed package (jax's own Pallas ops) registers a PRNG when imported; were its
    module imported in the call server after the first call, the lowering's next call would run the
    file again in a child that finds the name taken."""
    monkeypatch.setenv("LOWERCHECK_CACHE_DIR", str(tmp_path / "cache"))
    jax = Path(importlib.util.find_spec("jax").submodule_search_locations[0])  # imports nothing
    philox = jax / "experimental" / "pallas" / "ops" / "tpu" / "random" / "philox.py"
    spec = ROOT / "tests/realworld/specs/jax/experimental/pallas/ops/tpu/random/philox.philox_4x32_kernel.toml"
    done = run_lowercheck(["lower", f"{philox}:philox_4x32_kernel", "--spec", str(spec), "--emit", "access"])
    assert done.returncode == 0, done.stderr
