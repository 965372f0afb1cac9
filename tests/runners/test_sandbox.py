"""The sandbox turns every way a runner can fail into a RunResult, and passes results through."""

from __future__ import annotations

import concurrent.futures
import os
from pathlib import Path
from time import perf_counter

import numpy as np

from lowercheck.runners import child
from lowercheck.runners.base import RunRequest
from lowercheck.runners.confine import source_caches
from lowercheck.runners.sandbox import REPO, run_isolated, run_isolated_batch

HERE = Path(__file__).resolve().parent


def fake(action: str, **options) -> RunRequest:
    """A request for tests/runners/fake_runner.py, registered in the child as `test-fake`."""
    path = os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH", "")) if p)
    env = {child.RUNNERS_ENV: "test-fake=fake_runner", "PYTHONPATH": path}
    return RunRequest(language="test-fake", path="fake.py", entry="fake", ir=None,
                      args=options.pop("args", {}), options={"do": action, "env": env, **options})


def writable_folder(request: RunRequest, tmp_path: Path) -> Path:
    """A folder `request`'s child may write (and the test read): its own cache below `tmp_path`
    (`confine.source_caches`), as XDG_CACHE_HOME."""
    request.options["env"]["XDG_CACHE_HOME"] = str(tmp_path)
    return Path(source_caches({"XDG_CACHE_HOME": str(tmp_path)}, request.path)["XDG_CACHE_HOME"])


def test_result_comes_back():
    x = np.arange(5, dtype=np.float32)
    result = run_isolated(fake("double", args={"x": x}))
    assert result.error is None, result.error
    np.testing.assert_array_equal(result.outputs["x"], x * 2)
    assert result.outputs["x"].dtype == np.float32
    assert result.wall_s > 0


def test_runs_from_two_threads():  # as `lowercheck diff` runs the two sides
    requests = [fake("double", args={"x": np.full(3, float(k))}) for k in range(4)]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        results = list(pool.map(run_isolated, requests))
    assert [r.outputs["x"].tolist() for r in results] == [[2.0 * k] * 3 for k in range(4)]


def test_exception_is_a_crash_with_its_traceback():
    result = run_isolated(fake("raise"))
    assert result.error_kind == "crash"
    assert "ValueError: the kernel is broken" in result.error
    assert "fake_runner.py" in result.error


def test_timeout_kills_the_child():
    start = perf_counter()
    result = run_isolated(fake("sleep"), timeout_s=2)
    assert result.error_kind == "timeout"
    assert perf_counter() - start < 30


def test_limits_apply_to_the_child():
    result = run_isolated(fake("limits"), memory_mb=3000)
    assert result.outputs["as"].tolist() == [3000 << 20, 3000 << 20]
    assert result.outputs["core"].tolist() == [0, 0]


def test_memory_limit_gives_oom():
    result = run_isolated(fake("allocate"), memory_mb=1024)
    assert result.error_kind == "oom", result.error


def test_segfault_is_a_crash_naming_the_signal():
    result = run_isolated(fake("segfault"))
    assert result.error_kind == "crash"
    assert "SIGSEGV" in result.error


def test_exit_without_result_is_a_crash():
    result = run_isolated(fake("exit"))
    assert result.error_kind == "crash"
    assert "status 3" in result.error


def test_unknown_language_is_a_user_error():
    request = RunRequest(language="cobol", path="x", entry="x", ir=None, args={})
    result = run_isolated(request)
    assert result.error_kind == "user"
    assert "cobol" in result.error


def test_environment_reaches_the_child():
    request = fake("env", name="TRITON_INTERPRET")
    request.options["env"]["TRITON_INTERPRET"] = "1"
    result = run_isolated(request)
    assert bytes(result.outputs["TRITON_INTERPRET"]) == b"1"


def test_caches_stay_in_the_checkout(monkeypatch):
    monkeypatch.delenv("TRITON_CACHE_DIR", raising=False)
    result = run_isolated(fake("env", name="TRITON_CACHE_DIR"))
    cache = bytes(result.outputs["TRITON_CACHE_DIR"]).decode()
    assert Path(cache).is_relative_to(REPO / ".cache")


def test_registry_names_the_runners():
    assert child.runners()["cuda"] == "lowercheck.runners.simt"
    assert child.runners()["triton"] == "lowercheck.runners.triton_interp"


def test_after_a_timeout_runs_as_large_are_not_waited_out_again():
    big, small = {"x": np.zeros(100)}, {"x": np.zeros(10)}
    start = perf_counter()
    results = run_isolated_batch([fake("sleep", args=big), fake("sleep", args=big), fake("double", args=small)],
                                 timeout_s=2)
    assert [r.error_kind for r in results] == ["timeout", "timeout", None]
    assert "not run" in results[1].error
    assert perf_counter() - start < 15  # one limit waited out, not two


def test_a_runner_s_own_limit_is_told_apart_from_the_kernel_s_fault():
    """Unsupported (the runner cannot run a construct) is error_kind "runner": inconclusive in the
    report; an exception of the kernel's is a crash: an error."""
    from lowercheck.compare.dynamic import failure_findings
    from lowercheck.findings import Severity

    limit = run_isolated(fake("unsupported"))
    assert limit.error_kind == "runner" and "k.cu:7" in limit.error
    fault = run_isolated(fake("raise"))
    assert fault.error_kind == "crash"
    (inconclusive,) = failure_findings("target", limit, {"n": 4}, "k.cu")
    (error,) = failure_findings("target", fault, {"n": 4}, "k.cu")
    assert inconclusive.level == Severity.INCONCLUSIVE and "a limit of the runner" in inconclusive.message
    assert error.level == Severity.ERROR
