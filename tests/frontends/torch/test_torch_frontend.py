"""The PyTorch reference front end (lowercheck/frontends/torch) and its runner
(lowercheck/runners/torch_eager.py): entries, size names from torch.export, the binding's names,
errors with the user's line, and eager runs (own dtype, and float64 for the oracle).

The IR itself is checked by tests/filecheck/frontends/torch_kernelbench.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lowercheck.errors import Unsupported, UserError
from lowercheck.frontends import language_of
from lowercheck.frontends import torch as reference
from lowercheck.frontends.base import Binding, SizeArg, TensorArg
from lowercheck.runners import torch_eager
from lowercheck.runners.base import RunRequest

INPUTS = Path(__file__).parent / "inputs"
ROOT = Path(__file__).parents[3]
KERNELBENCH = ROOT / "tests" / "filecheck" / "frontends" / "torch_kernelbench.py"
FUNCTIONS = str(INPUTS / "functions.py")


def shapes(module) -> dict[str, list[str]]:
    return {p.pname: [s.data for s in p.shape] for p in module.ops.first.params}


def test_language_and_entries(tmp_path: Path) -> None:
    assert language_of(str(KERNELBENCH)) == "torch"
    assert [e.name for e in reference.entries(str(KERNELBENCH))] == ["Model"]
    assert [(e.name, [p.name for p in e.params]) for e in reference.entries(FUNCTIONS)] == \
        [("row_sums", ["x"]), ("flatten_pairs", ["x", "y"]), ("branchy", ["x"])]
    bad = tmp_path / "bad.py"
    bad.write_text("import torch\n\ndef f(x):\n    return x +\n")
    with pytest.raises(UserError) as err:
        reference.entries(str(bad))
    assert err.value.location.line == 4


def test_binding_names_the_sizes_and_export_derives_the_output() -> None:
    binding = Binding(args={"x": TensorArg(("rows", "cols"), "float32")})
    module = reference.lower(FUNCTIONS, "row_sums", binding)
    assert shapes(module) == {"x": ["rows", "cols"], "return0": ["rows"]}
    pairs = reference.lower(FUNCTIONS, "flatten_pairs", Binding(args={"x": TensorArg(("n",), "float32"),
                                                                        "y": TensorArg(("m",), "float32")}))
    assert shapes(pairs)["return0"] == ["floor((m + n)/2)", "2"]


def test_example_inputs_give_sizes_without_a_binding() -> None:
    module = reference.lower(str(KERNELBENCH), None, Binding())
    entry = module.ops.first
    assert shapes(module)["b"] == ["a_size1", "b_size1"]  # export tied b's rows to a's columns
    assert entry.example_sizes == {"a_size0": 64, "a_size1": 32, "b_size1": 48}
    assert [op.target.data for op in entry.operators] == ["aten.matmul.default", "aten.softmax.int", "aten.mul.Tensor"]


def test_errors_name_the_line() -> None:
    with pytest.raises(UserError, match="shape of `x` is unknown"):
        reference.lower(FUNCTIONS, "row_sums", Binding())
    with pytest.raises(UserError, match="2-D in get_inputs"):
        reference.lower(str(KERNELBENCH), None, Binding(args={"a": TensorArg(("n",), "float32")}))
    with pytest.raises(Unsupported, match="torch.export cannot trace") as err:
        reference.lower(FUNCTIONS, "branchy", Binding(args={"x": TensorArg(("n",), "float32")}))
    assert err.value.location.line == 14  # the data-dependent branch
    with pytest.raises(UserError, match="several entries"):
        reference.lower(FUNCTIONS, None, Binding(args={"x": SizeArg("n")}))


def test_runner_in_own_dtype_and_as_the_float64_oracle() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    request = RunRequest("torch", str(KERNELBENCH), "Model", None, {"a": a, "b": b},
                         options={"params": ["a", "b"]})
    result = torch_eager.run(request)
    assert result.error is None, result.error
    logits = a.astype(np.float64) @ b.astype(np.float64)
    want = np.exp(logits - logits.max(1, keepdims=True))
    want = 0.5 * want / want.sum(1, keepdims=True)
    assert result.outputs["return0"].dtype == np.float32
    np.testing.assert_allclose(result.outputs["return0"], want, rtol=1e-5)
    np.testing.assert_array_equal(result.outputs["a"], a)  # inputs come back, to check they are unchanged
    oracle = torch_eager.run(RunRequest("torch", str(KERNELBENCH), "Model", None, {"a": a, "b": b},
                                        options={"params": ["a", "b"], "shadow_f64": True}))
    assert oracle.outputs["return0"].dtype == np.float64
    np.testing.assert_allclose(oracle.outputs["return0"], want, rtol=1e-12)


def test_runner_reports_the_users_line() -> None:
    result = torch_eager.run(RunRequest("torch", FUNCTIONS, "flatten_pairs", None,
                                        {"x": np.ones(3, np.float32), "y": np.ones(2, np.float32)},
                                        options={"params": ["x", "y"]}))
    assert result.error_kind == "user" and "functions.py:10" in result.error


def test_in_place_updates_are_inout_and_specialised_dimensions_keep_names(tmp_path: Path) -> None:
    source = tmp_path / "ref.py"
    source.write_text(
        "import math\nimport torch\nimport torch.nn as nn\n\n\n"
        "class Model(nn.Module):\n"
        "    def forward(self, x, counts, q):\n"
        "        counts.add_(x.sum())\n"
        "        return counts, q / math.sqrt(q.shape[1])\n\n\n"
        "def get_inputs():\n"
        "    return [torch.ones(5), torch.zeros(3), torch.ones(4, 64)]\n")
    entry = reference.lower(str(source), None, Binding()).ops.first
    params = {p.pname: (p.role.data, [s.data for s in p.shape]) for p in entry.params}
    assert params["counts"] == ("inout", ["counts_size0"])
    # math.sqrt makes export specialise q's columns (64); the reference still runs at any width
    assert params["q"] == ("in", ["q_size0", "q_size1"]) and params["return1"] == ("out", ["q_size0", "q_size1"])


def test_reduction_lengths_follow_the_operator_graph() -> None:
    from lowercheck.compare.operators import reduction_lengths

    entry = reference.lower(str(KERNELBENCH), None, Binding()).ops.first
    sizes = {"a_size0": 5, "a_size1": 7, "b_size1": 11}
    lengths = reduction_lengths(entry, sizes)
    assert lengths["matmul"] == 7  # the inner dimension
    assert lengths["softmax"] == 11 and lengths["return0"] == 11  # the row softmax combines 11 products


def test_torch_functions_nested_in_each_other_all_become_plain() -> None:
    """`FloorDiv(s + PythonMod(255*s, 256), 256)` (a padded view's extent): every torch function goes,
    the inner ones too, whatever order a set of the expression's atoms has in this process."""
    import sympy
    from torch.utils._sympy.functions import CeilDiv, FloorDiv, PythonMod

    from lowercheck.frontends.torch.graph import _plain

    s = sympy.Symbol("s0", positive=True, integer=True)
    for k in range(2, 12):  # several shapes of it, so one order of the atoms cannot hide the fault
        exprs = [FloorDiv(s + PythonMod(255 * s, 256 + k), 256), CeilDiv(PythonMod(s, k) + FloorDiv(s, k), 8),
                 FloorDiv(FloorDiv(s * k + 1, 4), PythonMod(s, 7) + 1)]
        for expr in exprs:
            plain = _plain(expr)
            assert not any(type(f).__module__.startswith("torch") for f in plain.atoms(sympy.Function)), plain
