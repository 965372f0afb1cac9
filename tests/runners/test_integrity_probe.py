"""The integrity probe's instruments (`lowercheck/runners/integrity_probe.py`), in this process:
outputs compared up to rounding, the process's flags and functions watched, torch's own operators
recorded, late threads waited for."""

from __future__ import annotations

import threading
import time

import pytest

torch = pytest.importorskip("torch")

from lowercheck.runners import integrity_probe as probe  # noqa: E402


def test_agree_up_to_rounding_not_beyond():
    x = torch.randn(64, 64, generator=torch.Generator().manual_seed(0))
    assert probe.agree([x], [x.clone()])
    assert probe.agree([x], [torch.nextafter(x, torch.full_like(x, float("inf")))])  # one ulp: a reduction order
    assert not probe.agree([x], [torch.zeros_like(x)])  # a skipped or replayed result
    assert not probe.agree([x], [x * 1.01])
    assert not probe.agree([x], [x.double()]) and not probe.agree([x], [x[:32]])
    assert not probe.agree([x], [x, x])


def test_agree_on_special_values_and_integers():
    nan = torch.tensor([1.0, float("nan"), float("inf")])
    assert probe.agree([nan], [nan.clone()])
    assert not probe.agree([nan], [torch.tensor([1.0, 0.0, float("inf")])])
    assert not probe.agree([nan], [torch.tensor([1.0, float("nan"), -float("inf")])])
    ints = torch.arange(10)
    assert probe.agree([ints, 3], [ints.clone(), 3]) and not probe.agree([ints], [ints + 1])
    assert not probe.agree([3], [4])


def test_bits_tell_one_ulp_apart():
    x = torch.ones(4)
    assert probe.bits([x]) == probe.bits([x.clone()])
    assert probe.bits([x]) != probe.bits([torch.nextafter(x, torch.zeros_like(x))])


def test_globals_see_a_flag_and_a_replaced_function(monkeypatch):
    before = probe.Globals()
    monkeypatch.setattr(torch.backends.cuda.matmul, "allow_tf32", not torch.backends.cuda.matmul.allow_tf32)
    monkeypatch.setattr(torch, "allclose", lambda *a, **k: True)
    changed = before.changed(probe.Globals())
    assert any(c.startswith("torch.backends.cuda.matmul.allow_tf32:") for c in changed)
    assert "torch.allclose replaced" in changed
    monkeypatch.undo()
    assert before.changed(probe.Globals()) == []


def test_globals_see_the_reference_forward_replaced():
    class Model(torch.nn.Module):
        def forward(self, x):
            return x

    reference = Model()
    before = probe.Globals(reference)
    original = Model.forward
    Model.forward = lambda self, x: x + 1
    try:
        assert "the reference's forward replaced" in before.changed(probe.Globals(reference))
    finally:
        Model.forward = original


def test_torch_ops_record_computation_not_structure():
    record: list = []
    a, b = torch.randn(4, 4), torch.randn(4, 4)
    with probe.torch_ops(record, lambda: True):
        c = torch.empty(4, 4)
        c.copy_(a.t().contiguous())
        torch.mm(a, b.to(torch.bfloat16).float())
    ops = probe.compute_ops(record)
    assert ["mm", ["float32", "float32"]] in ops
    assert all(name not in ("empty", "copy", "t", "_to_copy", "clone") for name, _ in ops)
    skipped: list = []
    with probe.torch_ops(skipped, lambda: False):  # inside a kernel's engine: not the solution's own
        torch.mm(a, b)
    assert skipped == []


def test_join_threads_waits_for_late_workers_within_the_limit():
    before = probe.threads_now()
    done = []
    worker = threading.Thread(target=lambda: (time.sleep(0.2), done.append(1)), daemon=True)
    worker.start()
    assert len(probe.threads_now() - before) == 1
    probe.join_threads(before, 5.0)
    assert done == [1]
    stuck = threading.Event()
    slow = threading.Thread(target=stuck.wait, daemon=True)
    slow.start()
    start = time.monotonic()
    probe.join_threads(before, 0.2)
    assert time.monotonic() - start < 2.0
    stuck.set()
