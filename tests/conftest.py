"""The suite tests the pipeline, so a static diff is computed every time: reusing a stored report
(lowercheck/report_cache.py) would let one test's report answer another's, also one that patches the
pipeline. tests/test_report_cache.py turns reuse back on for the cache's own tests."""

from __future__ import annotations

import os

os.environ["LOWERCHECK_REUSE_REPORTS"] = "0"


def pytest_sessionfinish(session, exitstatus) -> None:
    """The workers tests kept (`cli.main(keep_workers=True)`, front ends made in-process) end with the
    session, and their temporary folders with them: an xdist worker leaves by os._exit, past atexit."""
    from lowercheck.cli import _stop_workers  # what a command does at its end

    _stop_workers()
