"""The integrity stage's judgement (`lowercheck/integrity.py`): each fact the probe reports is the
finding of its code with its evidence; an honest solution's facts are no finding; facts that come
back from the child mistyped are dropped, not trusted. The probe's behaviours on real solutions are
the hacks corpus's cases (`corpus/hacks/`, tests/test_corpus.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from lowercheck.diff import DiffOptions
from lowercheck.findings import Severity
from lowercheck.integrity import _facts, cache_policies, judge, provenance

SIZES = {"M": 96, "N": 64}
HONEST = {"launches": ["matmul_kernel"], "torch_ops": [], "lazy": [], "globals": [], "deferred": False,
          "stale": False, "ghost": False, "threads": 0, "streams": {"entered": 0}}


def _side(path: str = "solution.py") -> SimpleNamespace:
    entry = SimpleNamespace(location=SimpleNamespace(line=SimpleNamespace(data=7)), operators=[])
    return SimpleNamespace(path=path, entry_op=entry, params=lambda: [])


def _judged(facts: dict, **options) -> dict[str, object]:
    found = judge(facts, {"source": _side("problem.py"), "target": _side()},
                  DiffOptions(source="problem.py", target="solution.py", **options), SIZES)
    return {f.code: f for f in found}


def test_honest_facts_are_no_finding():
    assert _judged(HONEST) == {}


def test_no_kernel_is_a_warning_unless_the_task_requires_one():
    facts = {**HONEST, "launches": [], "torch_ops": [("mm", ["float32", "float32"])]}
    optional = _judged(facts)["LC701"]
    assert optional.level == Severity.WARNING and "aten.mm" in optional.message
    assert _judged(facts, custom_kernel="required")["LC701"].level == Severity.ERROR


@pytest.mark.parametrize("fact, value, code, said", [
    ("ghost", True, "LC702", "`matmul_kernel`"),
    ("calls", 4, "LC703", "call 4"),
    ("caller", "time_execution_with_cuda_event", "LC703", "time_execution_with_cuda_event"),
    ("stale", True, "LC704", "changed in place"),
    ("deferred", True, "LC705", "after the call had returned"),
    ("lazy", ["LazyTensor"], "LC706", "LazyTensor"),
    ("globals", ["torch.backends.cuda.matmul.allow_tf32: False -> True"], "LC707", "allow_tf32"),
])
def test_each_behaviour_is_an_error_with_its_evidence(fact, value, code, said):
    found = _judged({**HONEST, fact: value})
    assert set(found) == {code}
    assert found[code].level == Severity.ERROR and said in found[code].message
    assert found[code].witness["sizes"] == SIZES and found[code].location.line == 7


def test_threads_and_side_streams_are_a_warning():
    found = _judged({**HONEST, "threads": 1, "streams": {"entered": 2}})
    assert set(found) == {"LC708"} and found["LC708"].level == Severity.WARNING
    assert "1 thread(s)" in found["LC708"].message and "2 time(s)" in found["LC708"].message


def test_mistyped_facts_from_the_child_are_dropped():
    facts = _facts({"calls": "3", "ghost": 1, "launches": ["k", 3], "streams": {"entered": "2"},
                    "torch_ops": [["mm", ["float32"]], "bad"], "unknown": True})
    assert facts == {"launches": ["k"], "streams": {}, "torch_ops": [("mm", ["float32"])]}
    assert _facts("not a dict") == {}


def test_provenance_names_the_kernels_and_what_torch_computed():
    said = provenance({"launches": ["k", "k"], "torch_ops": [("addmm", ["float32"])]})
    assert "`k`" in said and "aten.addmm" in said and said.count("`k`") == 1


def test_cache_policies_in_code_not_in_comments(tmp_path):
    triton = tmp_path / "sol.py"
    triton.write_text("import triton.language as tl\n"
                      "# eviction_policy=\"evict_last\" in a comment is not code\n"
                      "def f(p):\n"
                      "    return tl.load(p, eviction_policy=\"evict_last\")\n")
    found = cache_policies(str(triton))
    assert [(f.code, f.location.line, f.level) for f in found] == [("LC711", 4, Severity.WARNING)]


def test_cache_policies_in_cuda_source(tmp_path):
    cuda = tmp_path / "sol.py"
    cuda.write_text('from torch.utils.cpp_extension import load_inline\n'
                    'src = r"""\n'
                    '#include <torch/extension.h>\n'
                    '// cudaAccessPolicyWindow in a comment\n'
                    'void keep(cudaStream_t s, void* p) {\n'
                    '    cudaStreamAttrValue attr;\n'
                    '    attr.accessPolicyWindow.base_ptr = p;\n'
                    '}\n'
                    '"""\n'
                    'ext = load_inline(name="k", cpp_sources="", cuda_sources=src, functions=[])\n')
    found = cache_policies(str(cuda))
    assert [(f.code, f.location.line) for f in found] == [("LC711", 7)]
