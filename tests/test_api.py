"""The Python API and the pytest plugin, as docs show them: the examples run here."""

from __future__ import annotations

from pathlib import Path


ROOT = Path(__file__).parents[1]
pytest_plugins = ["pytester"]


def test_api_diff_and_audit_as_documented(monkeypatch):
    monkeypatch.chdir(ROOT)  # the docstring's paths are relative to the checkout
    from lowercheck import api

    example = api.__doc__.split("```python")[1].split("```")[0]
    namespace: dict = {}
    exec(compile(example, "lowercheck/api.py (docstring)", "exec"), namespace)  # noqa: S102 - our own example
    assert namespace["report"].verdict == "equivalent" and namespace["audit"].verdict == "sound"


def test_api_explains_a_difference():
    from lowercheck import api

    report = api.diff(ROOT / "corpus/vector_add/vadd.cu", ROOT / "corpus/vector_add/vadd_no_mask.py", run=False)
    assert report.verdict == "different" and report.exit_code == 1
    text = api.explain(report)
    assert "vadd_no_mask.py:13:9: error[LC201]" in text and "\x1b[" not in text


def test_pytest_plugin_fixture_fails_with_the_findings(pytester):
    pytester.makepyfile(test_port=f"""
        def test_good(lowercheck_diff):
            lowercheck_diff("{ROOT}/corpus/vector_add/vadd.cu", "{ROOT}/corpus/vector_add/vadd.py", run=False)

        def test_bad(lowercheck_diff):
            lowercheck_diff("{ROOT}/corpus/vector_add/vadd.cu", "{ROOT}/corpus/vector_add/vadd_no_mask.py", run=False)

        def test_expected_difference(lowercheck_diff):
            report = lowercheck_diff("{ROOT}/corpus/vector_add/vadd.cu", "{ROOT}/corpus/vector_add/vadd_no_mask.py",
                                     run=False, expect="different")
            assert "LC201" in {{f.code for f in report.findings}}

        def test_task(lowercheck_audit):
            lowercheck_audit("{ROOT}/corpus/tasks/relu_sound/task.toml")
    """)
    result = pytester.runpytest_subprocess("-q")  # the plugin comes through its pytest11 entry point
    result.assert_outcomes(passed=3, failed=1)
    out = result.stdout.str()
    assert "vadd_no_mask.py: different (expected equivalent)" in out
    assert "vadd_no_mask.py:13:9: error[LC201]: out-of-bounds load from `x`" in out
