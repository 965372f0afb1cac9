"""Inputs are recipes made in the run's child, never in lowercheck's own process ([w2 7/7] item 4):
`runners.draws.Draw` makes the same values on both sides, the child says what became of them
(changed: LC306; magnitude; NaN or infinity; a perturbation's value), and a buffer too large for the
run's memory limit ends that child out of memory while lowercheck's process never holds it."""

from __future__ import annotations

import json
import pickle
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from support import run_lowercheck
from test_sandbox import fake

from lowercheck.compare import inputs, provenance
from lowercheck.runners import draws, poison
from lowercheck.runners.draws import Draw
from lowercheck.runners.sandbox import run_isolated

ROOT = Path(__file__).resolve().parents[2]


def test_a_draw_makes_what_the_input_generator_makes_with_its_range_and_fill() -> None:
    plain = Draw((4, 5), "float32", "normal", 3, key="x")
    np.testing.assert_array_equal(plain.make(), inputs.generate("normal", (4, 5), "float32", 3, key="x"))
    assert plain.make().shape == (4, 5) and Draw((4, 5), "float32", "normal", 3, "x", flat=True).make().shape == (20,)
    ids = Draw((1000,), "int32", "large", 1, key="ids", bounds=(2, 7)).make()
    assert ids.min() >= 2 and ids.max() < 7 and len(set(ids.tolist())) == 5
    assert poison.mask(Draw((6,), "float16", "normal", 0, "out", fill="poison").make()).all()
    assert not Draw((6,), "float32", "normal", 0, "acc", fill="zero").make().any()
    assert (Draw((50,), "float32", "normal", 0, "x", absolute=True).make() >= 0).all()
    assert plain.nbytes == 80 and plain.size == 20


def test_a_perturbed_draw_is_provenance_s_replacement_on_both_sides() -> None:
    base = Draw((3, 4), "float32", "normal", 5, key="x")
    mask = np.zeros((3, 4), dtype=bool)
    mask[1, 2] = True
    expected = provenance.replaced(base.make(), (3, 4), mask, 9)
    source, target = base.perturbed((3, 4), mask, 9), replace(base, flat=True).perturbed((3, 4), mask, 9)
    np.testing.assert_array_equal(source.make(), expected)
    np.testing.assert_array_equal(target.make(), expected.ravel())
    assert source == base.perturbed((3, 4), mask, 9)  # recipes compare by value (one entry run once)


def test_the_child_reports_a_changed_input_its_magnitude_and_non_finite_values() -> None:
    x = Draw((64,), "float32", "special", 2, key="x", check=True)
    out = Draw((64,), "float32", "normal", 2, key="out", fill="poison")
    changed = run_isolated(fake("double", args={"x": x, "out": out}))
    assert changed.error is None, changed.error
    facts = changed.facts[draws.FACTS]
    assert set(facts) == {"x"}  # an output is no input
    made = x.make().astype(np.float64)
    doubled = ~draws.same(x.make(), (x.make() * 2).astype(np.float32))
    assert facts["x"]["changed"] == int(doubled.sum()) > 0
    assert facts["x"]["first_changed"] == int(np.flatnonzero(doubled)[0])
    assert facts["x"]["nonfinite"] and facts["x"]["max_abs"] == float(np.abs(made[np.isfinite(made)]).max())
    assert "x" not in changed.outputs and "out" in changed.outputs  # checked there: not handed back

    kept = run_isolated(fake("echo", args={"x": x}, **{draws.KEEP_INPUTS: True}))
    assert kept.facts[draws.FACTS]["x"]["changed"] == 0
    np.testing.assert_array_equal(kept.outputs["x"], x.make())  # the probes compare against it


def test_a_buffer_too_large_for_the_run_ends_its_child_not_lowercheck() -> None:
    huge = Draw((1 << 33,), "float32", "normal", 0, key="x", check=True)  # 32 GiB
    request = fake("echo", args={"x": huge})
    assert len(pickle.dumps(request)) < 4096  # what lowercheck holds and sends: the recipe
    result = run_isolated(request, memory_mb=1024)
    assert result.error_kind == "oom", result.error


@pytest.mark.parametrize("pair", [("vadd.cu", "vadd.py"), ("vadd.cu", "vadd_inplace.py")])
def test_no_request_of_a_diff_carries_an_array(pair, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """Every run request a diff sends (the runs, the oracle, the probes' reruns) holds recipes, and
    the verdict is the one the inputs' facts give (an in-place port: LC306 from the child)."""
    from lowercheck.runners import sandbox

    sent = []
    original = sandbox.run_isolated_batch

    def recording(requests, *args, **kwargs):
        sent.extend(requests)
        return original(requests, *args, **kwargs)

    monkeypatch.setattr(sandbox, "run_isolated_batch", recording)
    report = tmp_path / "report.json"
    folder = ROOT / "corpus" / "vector_add"
    done = run_lowercheck(["diff", str(folder / pair[0]), str(folder / pair[1]), "--json", str(report)])
    assert sent and not [name for r in sent for name, v in r.args.items() if isinstance(v, np.ndarray)]
    assert any(isinstance(v, Draw) for r in sent for v in r.args.values())
    codes = {f["code"] for f in json.loads(report.read_text())["findings"]}
    if pair[1] == "vadd.py":
        assert done.returncode == 0, done.stdout + done.stderr
    else:
        assert "LC306" in codes, done.stdout


def test_forged_input_facts_are_dropped_not_trusted() -> None:
    """The child ran user code, which could hand over any facts: one of the wrong type is dropped
    (a string where a count goes, a bool for an int), and the comparison still runs."""
    from lowercheck.compare.dynamic import compare, input_facts
    from lowercheck.runners.base import RunResult

    honest = {"changed": 2, "first_changed": 5, "max_abs": 1.5, "nonfinite": False, "replaced": 7.0}
    assert input_facts(RunResult(facts={draws.FACTS: {"x": honest}})) == {"x": honest}
    forged = RunResult(outputs={"out": np.ones(3, np.float32)}, facts={draws.FACTS: {
        "x": {"changed": "all", "first_changed": True, "max_abs": "huge", "nonfinite": 1}, "y": "junk"}})
    assert input_facts(forged) == {"x": {}}
    assert input_facts(RunResult(facts={draws.FACTS: ["not", "a", "dict"]})) == {}
    findings, record = compare({"n": 3}, forged, forged, [], "normal")
    assert findings == [] and record.status == "ok"
