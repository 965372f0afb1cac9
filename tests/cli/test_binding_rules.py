"""Binding that follows the user ([w2 2/7]): the spec's word wins over inference, and says so."""

from __future__ import annotations

from pathlib import Path

from support import run_lowercheck

from lowercheck.bind import spec_roles
from lowercheck.frontends import cuda
from lowercheck.lowering import spec_binding
from lowercheck.spec import ArgSpec, Spec

CORPUS = Path(__file__).parents[2] / "corpus"


def test_a_spec_role_replaces_the_inferred_one_and_is_said() -> None:
    module = cuda.lower(str(CORPUS / "vector_add" / "vadd.cu"))
    said: list[str] = []
    spec = Spec(args={"out": ArgSpec(role="inout"), "x": ArgSpec(role="in")})
    spec_roles(module, spec, said)
    roles = {op.pname: op.role.data for op in module.walk() if hasattr(op, "pname") and op.kind.data == "buffer"}
    assert roles == {"x": "in", "y": "in", "out": "inout"}
    assert said == ["`out` is inout (inferred: out)"]  # x agreed: nothing to say


def test_a_spec_shape_without_a_dtype_binds(tmp_path: Path) -> None:
    """`[args.x] shape = [...]` alone is enough (a typed side keeps its own dtype)."""
    assert spec_binding(Spec(sizes={"n": [4]}, args={"x": ArgSpec(shape=("n",))})).args["x"].shape == ("n",)
    spec = tmp_path / "spec.toml"
    spec.write_text('[sizes]\nn = [100, 1000]\n[args.x]\nshape = ["n"]\n[args.y]\nshape = ["n"]\n'
                    '[args.out]\nshape = ["n"]\n')
    inputs = Path(__file__).parent / "inputs"  # no guard: the extents cannot be inferred, only given
    done = run_lowercheck(["diff", str(inputs / "vadd_floored.cu"), str(inputs / "vadd_floored.py"),
                           "--spec", str(spec), "--no-run"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cannot infer the extent" not in done.stderr


def test_parameters_with_defaults_keep_them(tmp_path: Path) -> None:
    """`BLOCK=512`, a flag and a mode string with defaults are the wrapper's own choices: neither
    assumed to be tensors by `lower` nor matched with the CUDA side's parameters by `diff`."""
    port = (CORPUS / "vector_add" / "vadd.py").read_text()
    port = port.replace("def vadd(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:",
                        "def vadd(x, y, BLOCK: int = 512, interpret=False, mode=\"fast\", *, scale=1.0):")
    port = port.replace("    BLOCK = 1024\n", "    assert mode == \"fast\" and not interpret and scale == 1.0\n")
    path = tmp_path / "vadd_defaults.py"
    path.write_text(port)
    lowered = run_lowercheck(["lower", str(path)])
    assert lowered.returncode == 0, lowered.stderr
    assert "BLOCK" not in lowered.stderr and "mode" not in lowered.stderr  # nothing assumed for them
    done = run_lowercheck(["diff", str(CORPUS / "vector_add" / "vadd.cu"), str(path), "--size", "n=1,1000"])
    assert done.returncode == 0, done.stdout + done.stderr


def test_spec_values_reach_the_wrapper_in_every_run(tmp_path: Path) -> None:
    """`[args.NAME] value = ...` / `none = true`: a mode string, a flag, None, an integer and a float
    the wrapper receives as given, in `lower` and in each run of `diff` (a value that changes the
    result changes the verdict, so the runs did receive it)."""
    inputs = Path(__file__).parent / "inputs"
    vadd = str(CORPUS / "vector_add" / "vadd.cu")
    spec = (inputs / "vadd_modes.toml").read_text()
    lowered = run_lowercheck(["lower", str(inputs / "vadd_modes.py"), "--spec", str(inputs / "vadd_modes.toml")])
    assert lowered.returncode == 0, lowered.stderr
    assert "assumed" not in lowered.stderr  # nothing guessed: the spec gave every argument
    done = run_lowercheck(["diff", vadd, str(inputs / "vadd_modes.py"), "--spec", str(inputs / "vadd_modes.toml")])
    assert done.returncode == 0 and "verdict: equivalent" in done.stdout, done.stdout + done.stderr
    for changed in (spec.replace('value = "sum"', 'value = "difference"'), spec.replace("value = 1.0", "value = 2.0")):
        path = tmp_path / "changed.toml"
        path.write_text(changed)
        done = run_lowercheck(["diff", vadd, str(inputs / "vadd_modes.py"), "--spec", str(path)])
        assert done.returncode == 1 and "verdict: different" in done.stdout, done.stdout + done.stderr


def test_relations_too_costly_to_build_are_left_out_not_waited_for() -> None:
    """`lower --emit access` prints relations as a reading aid; over the budget, a line says so."""
    from lowercheck.lowering import extract_accesses, relations_text

    module = extract_accesses(cuda.lower(str(CORPUS / "vector_add" / "vadd.cu")))
    assert "block p reads x" in relations_text(module)
    assert "not shown: building them took more than" in relations_text(module, budget_s=1e-6)
