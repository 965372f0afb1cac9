"""The long-lived process `lowercheck corpus` runs its cases in (lowercheck/diff_server.py): each
command's exit code comes back, its front-end workers survive to the next command, and a command
that overruns its time is stopped with its whole process group, the next one getting a fresh server."""

from __future__ import annotations

import json
from pathlib import Path

from lowercheck.diff_server import DiffServer

ROOT = Path(__file__).parents[2]
CORPUS = ROOT / "corpus" / "vector_add"


def test_commands_run_one_after_another_and_an_overrun_restarts_the_server(tmp_path: Path) -> None:
    server = DiffServer()
    try:
        report = tmp_path / "r.json"
        argv = ["diff", str(CORPUS / "vadd.cu"), str(CORPUS / "vadd_no_mask.py"), "--no-run", "--json", str(report)]
        assert server.run(argv, 300) == 1
        assert "LC201" in {f["code"] for f in json.loads(report.read_text())["findings"]}
        first = server._process.pid
        assert server.run(["codes", "LC201"], 60) == 0
        assert server._process.pid == first  # the same server: its workers stayed up
        hang = tmp_path / "hang.py"
        hang.write_text("import time\nimport triton\n\ntime.sleep(600)\n\n\ndef f(x):\n    return x\n")
        assert server.run(["lower", str(hang)], 5) is None  # overran: the process group is killed
        assert server._process is None
        assert server.run(["codes", "LC201"], 60) == 0  # a fresh server answers
    finally:
        server.close()
