"""The real pairs (`corpus/realpairs/`): each case's verdict and codes against its hand-written
expectation, as tests/test_corpus.py judges the corpus (every expected code reported; an equivalent
case reports no error; a `known_gap` case must still fail, strictly). Their sides are files of the
pinned packages of the real-world suite (`realworld:PACKAGE/PATH[:ENTRY]`), installed into
`.cache/realworld` on first use (the tests skip when PyPI cannot be reached and they are not there),
and their seeded bugs one-line edits of those files, made on copies.

`make test` runs the cases of `FAST`; `make realpairs` (REALPAIRS=all) runs them all. Below them,
the mechanisms the pairs rest on: naming an installed file, editing a copy, importing a file that
lies inside a package, a spec's values reaching only their own side, and a null CUDA pointer.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest
from support import run_lowercheck

from lowercheck import batch, realworld
from lowercheck.errors import UserError

pytestmark = pytest.mark.xdist_group("realworld")

ROOT = Path(__file__).resolve().parent.parent / "corpus" / "realpairs"
EXIT = {"equivalent": 0, "different": 1, "inconclusive": 3}
CASES = batch.discover(ROOT)



def _fast(case: batch.Case) -> bool:
    """One case per kind of pair and mechanism, for `make test`: a spec binding two sides whose
    names differ (x, weight | X, W) with values for one side only; a seeded edit of an installed
    Triton file; a DeepSpeed launcher against liger with a null pointer in its spec and a bug
    DeepSpeed ships."""
    folder = Path(case.folder).name
    return (folder == "liger_rms_norm" and case.edit is None) or (folder == "liger_relu_squared" and case.edit is not None) \
        or (folder == "deepspeed_rms_norm" and case.spec == "rows_tail.toml")


SELECTED = CASES if os.environ.get("REALPAIRS") == "all" else [c for c in CASES if _fast(c)]


@pytest.fixture(scope="module")
def installed() -> None:
    try:
        realworld.install()
    except realworld.Unreachable as err:
        pytest.skip(f"the pinned real-world packages are not in .cache/realworld and could not be fetched: {err}")


@pytest.mark.parametrize("case", SELECTED, ids=[c.label for c in SELECTED])
def test_real_pair(case: batch.Case, installed, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    command = ["diff", *case.paths(), "--json", str(report)]
    if case.spec:
        command += ["--spec", str(Path(case.folder) / case.spec)]
    command += list(case.args)
    done = run_lowercheck(command)
    assert report.exists(), f"no report (exit {done.returncode}):\n{done.stderr}"
    doc = json.loads(report.read_text())
    found = {f["code"] for f in doc["findings"] if f["severity"] == "error"}
    problems = []
    if doc["verdict"] != case.verdict:
        problems.append(f"verdict {doc['verdict']}, expected {case.verdict}")
    if done.returncode != EXIT.get(case.verdict):
        problems.append(f"exit code {done.returncode}")
    if not set(case.codes) <= found:
        problems.append(f"missing {sorted(set(case.codes) - found)}")
    if case.verdict == "equivalent" and found:
        problems.append(f"unexpected {sorted(found)}")
    if case.known_gap is not None:
        if not problems:
            pytest.fail(f"known gap closed, remove `known_gap` from the case: {case.known_gap}")
        pytest.xfail(f"{case.known_gap} ({'; '.join(problems)})")
    assert not problems, "; ".join(problems) + f"\n{case.description}\n{done.stdout}\n{done.stderr}"


def test_every_real_pair_is_well_formed() -> None:
    """At least 20 pairs; every case names its class and a description; every seeded bug is an edit
    (or, for a bug the package ships, says so); every spec it names exists."""
    pairs = {(c.folder, c.source, c.target) for c in CASES}
    assert len(pairs) >= 20, f"{len(pairs)} real pairs"
    for case in CASES:
        assert case.bug_class in batch.BUG_CLASSES, case.label
        assert case.description, case.label
        assert case.spec is None or (Path(case.folder) / case.spec).is_file(), case.label
        if case.verdict == "different":
            assert case.edit is not None or "as shipped" in case.description, case.label
        else:
            assert case.edit is None and case.codes == (), case.label


# ---------------------------------------------------------------------------------------------
# The mechanisms


def test_a_reference_names_an_installed_file(installed) -> None:
    path = realworld.resolve("realworld:liger-kernel/liger_kernel/ops/geglu.py:geglu_forward")
    assert path == f"{realworld.installed('liger-kernel') / 'liger_kernel/ops/geglu.py'}:geglu_forward"
    assert realworld.resolve("k.py") == "k.py"  # anything else is the user's own path
    with pytest.raises(UserError, match="names no package"):
        realworld.resolve("realworld:numpy/core.py")
    with pytest.raises(UserError, match="is not in liger-kernel"):
        realworld.resolve("realworld:liger-kernel/liger_kernel/ops/nothing.py")


def test_an_edit_is_made_on_a_copy_beside_the_file(tmp_path: Path) -> None:
    original = tmp_path / "k.py"
    original.write_text("a = 1\nmask = i < n\nmask = i < n\n")
    copy = realworld.edited_copy(f"{original}:entry", "i < n", "i <= n", line=3)
    path, _, entry = copy.rpartition(":")
    assert entry == "entry" and Path(path).parent == tmp_path and realworld.EDITED in Path(path).name
    assert Path(path).read_text() == "a = 1\nmask = i < n\nmask = i <= n\n"
    assert original.read_text() == "a = 1\nmask = i < n\nmask = i < n\n"  # never changed
    with pytest.raises(UserError, match="found 2 times"):  # ambiguous without its line
        realworld.edited_copy(str(original), "i < n", "i <= n")
    with pytest.raises(UserError, match="found 0 times"):
        realworld.edited_copy(str(original), "j < n", "j <= n")


def test_a_case_edit_is_checked(tmp_path: Path) -> None:
    (tmp_path / "expected.toml").write_text(textwrap.dedent("""\
        [[case]]
        source = "a.py"
        target = "b.py"
        verdict = "different"
        edit = { side = "port", old = "<", new = "<=" }
        """))
    with pytest.raises(UserError, match="side \\(source or target\\)"):
        batch.discover(tmp_path)


def test_a_file_inside_a_package_imports_its_own_package(tmp_path: Path) -> None:
    """`liger_kernel/ops/rms_norm.py` imports `liger_kernel.ops.utils`: a file inside a package is
    imported as that package's module, whether or not the package is installed."""
    package = tmp_path / "mypkg" / "ops"
    package.mkdir(parents=True)
    (tmp_path / "mypkg" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "utils.py").write_text("BLOCK = 128\n")
    (package / "kernel.py").write_text(textwrap.dedent("""\
        import torch
        from mypkg.ops.utils import BLOCK
        from .utils import BLOCK as SAME


        def scale(x):
            return x * (BLOCK // SAME)
        """))
    spec = tmp_path / "spec.toml"
    spec.write_text('[sizes]\nn = [3, 100]\n[args.x]\nshape = ["n"]\ndtype = "float32"\n'
                    '[args.y]\nshape = ["n"]\ndtype = "float32"\n')
    other = tmp_path / "ref.py"
    other.write_text("import torch\n\n\ndef ident(y):\n    return y.clone()\n")
    done = run_lowercheck(["diff", str(other), f"{package / 'kernel.py'}:scale", "--spec", str(spec)])
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_value_reaches_only_the_side_that_has_it(tmp_path: Path) -> None:
    """The spec of a pair gives `eps` for one side: the other side, without `eps`, is not passed it
    (it failed with "unexpected keyword argument"), and `eps` has no partner to bind."""
    (tmp_path / "a.py").write_text("import torch\n\n\ndef norm(x, w, eps):\n"
                                   "    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w\n")
    (tmp_path / "b.py").write_text("import torch\n\n\ndef norm(v, g):\n"
                                   "    return v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + 1e-6) * g\n")
    (tmp_path / "s.toml").write_text(textwrap.dedent("""\
        [sizes]
        r = [2, 5]
        c = [7]
        [args.x]
        shape = ["r", "c"]
        [args.w]
        shape = ["c"]
        [args.eps]
        value = 1e-6
        [args.v]
        shape = ["r", "c"]
        [args.g]
        shape = ["c"]
        """))
    done = run_lowercheck(["diff", str(tmp_path / "a.py"), str(tmp_path / "b.py"), "--spec", str(tmp_path / "s.toml")])
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_null_cuda_pointer_picks_the_launch_without_it(tmp_path: Path) -> None:
    """`[args.residual] none = true`: the launcher's `residual == nullptr` holds, so it launches the
    kernel without the residual, and `residual` is no buffer of the entry."""
    source = tmp_path / "norm.cu"
    source.write_text(textwrap.dedent("""\
        __global__ void plain(float* out, const float* x, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) out[i] = 2.0f * x[i];
        }
        __global__ void fused(float* out, const float* x, const float* residual, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) out[i] = 2.0f * (x[i] + residual[i]);
        }
        void launch(float* out, const float* x, const float* residual, int n) {
            if (residual == nullptr) {
                plain<<<(n + 127) / 128, 128>>>(out, x, n);
            } else {
                fused<<<(n + 127) / 128, 128>>>(out, x, residual, n);
            }
        }
        """))
    spec = tmp_path / "s.toml"
    spec.write_text('[sizes]\nn = [5, 300]\n[args.residual]\nnone = true\n')
    done = run_lowercheck(["lower", f"{source}:launch", "--spec", str(spec)])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "kernel.launch @plain" in done.stdout and "@fused" not in done.stdout
    assert 'name = "residual"' not in done.stdout
    # Two buffers are never decided equal (nor unequal) by their nullness: only a null one decides.
    aliased = tmp_path / "aliased.cu"
    aliased.write_text(source.read_text().replace("if (residual == nullptr)", "if (out == x)"))
    done = run_lowercheck(["lower", f"{aliased}:launch"])
    assert "kernel.launch @plain" not in done.stdout, done.stdout
    port = tmp_path / "port.py"
    port.write_text("import torch\n\n\ndef double(x):\n    return 2 * x\n")
    done = run_lowercheck(["diff", f"{source}:launch", str(port), "--spec", str(spec)])
    assert done.returncode == 0, done.stdout + done.stderr
