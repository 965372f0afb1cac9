"""pytest plugin: `lowercheck_diff` and `lowercheck_audit` fixtures for harness authors.

```python
def test_my_port(lowercheck_diff):
    lowercheck_diff("ref/vadd.cu", "port/vadd.py")            # fails with the report's findings
    report = lowercheck_diff("ref/k.cu", "port/k_bad.py", expect="different")
    assert {f.code for f in report.findings} >= {"LC201"}

def test_my_task(lowercheck_audit):
    lowercheck_audit("tasks/softmax/task.toml")               # fails unless the task is sound
```

Installed with lowercheck (entry point `pytest11`); the fixtures cost nothing until called. A test
that fails shows the findings as the terminal report does (file:line, code, message, witness, help).
"""

from __future__ import annotations

import pytest


@pytest.fixture
def lowercheck_diff():
    """`check(source, target, spec=None, *, expect="equivalent", **options) -> Report`: fails the
    test unless the verdict is `expect`; options as `lowercheck.api.diff`'s."""

    def check(source, target, spec=None, *, expect: str = "equivalent", **options):
        from lowercheck import api

        report = api.diff(source, target, spec, **options)
        if report.verdict != expect:
            pytest.fail(f"lowercheck diff {source} {target}: {report.verdict} (expected {expect})\n"
                        + api.explain(report), pytrace=False)
        return report

    return check


@pytest.fixture
def lowercheck_audit():
    """`check(task, harness=None, *, expect="sound", **options) -> AuditReport`: fails the test unless
    the audit's verdict is `expect`."""

    def check(task, harness=None, *, expect: str = "sound", **options):
        from lowercheck import api

        report = api.audit(task, harness, **options)
        if report.verdict != expect:
            pytest.fail(f"lowercheck audit {task}: {report.verdict} (expected {expect})\n" + api.explain(report),
                        pytrace=False)
        return report

    return check
