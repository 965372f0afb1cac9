"""`frontends.start_workers`: the Python sides' workers start before anything heavy is imported (not
even xDSL's builtin dialect, 0.15 s), and the in-process front ends (CUDA) are imported then, in the main thread: the diff's threads (ptxas
beside the lowering) importing them at once would find each other's half-imported modules."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).parents[2]

PROBE = """
import sys, threading
from lowercheck import frontends
from lowercheck.frontends.isolated import IsolatedFrontend

started = []
IsolatedFrontend._start = lambda self: started.append(sorted(k for k in sys.modules if k.startswith(("lowercheck.frontends.cuda", "xdsl"))))
frontends.start_workers([sys.argv[1], sys.argv[2]])
print(started, "lowercheck.frontends.cuda.parse" in sys.modules, threading.active_count())
"""


def test_workers_start_first_and_the_cuda_front_end_is_imported_in_the_main_thread(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, str(ROOT / "corpus/vector_add/vadd.cu"),
                           str(ROOT / "corpus/vector_add/vadd.py")], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120, env={"LOWERCHECK_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[[]]", "True", "1"], done.stdout


KEPT = """
import os, sys
from lowercheck import cli

code = cli.main(["lower", sys.argv[1]], keep_workers=True)
print(code, [(name, sorted(os.listdir(os.path.join(os.environ["TMPDIR"], name))))
             for name in sorted(os.listdir(os.environ["TMPDIR"]))], file=sys.stderr)
"""


def test_a_kept_worker_and_its_temporary_files_go_at_exit(tmp_path: Path) -> None:
    """A caller that keeps its workers (the corpus tests, the diff servers) ends them at exit, and
    with each its folder: its log and its TMPDIR (each call's folder, what torch makes at import)."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    done = subprocess.run([sys.executable, "-c", KEPT, str(ROOT / "corpus/vector_add/vadd.py")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={**os.environ, "TMPDIR": str(temporary), "LOWERCHECK_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr
    code, listing = done.stderr.strip().splitlines()[-1].split(" ", 1)
    assert code == "0"
    assert listing.startswith("[('lowercheck-triton-worker-") and "['log']" in listing, listing  # while it ran
    assert list(temporary.iterdir()) == []


ORPHANED = """
import sys, time
from lowercheck.frontends.isolated import IsolatedFrontend

worker = IsolatedFrontend("triton")
worker.entries(sys.argv[1])
print(worker._folder, flush=True)
time.sleep(600)
"""


def test_a_worker_whose_command_was_killed_removes_its_folder(tmp_path: Path) -> None:
    """A command killed outright (a corpus server past its limit) closes nothing: its worker, in a
    session of its own, sees it gone, ends, and takes its temporary folder with it."""
    command = subprocess.Popen([sys.executable, "-c", ORPHANED, str(ROOT / "corpus/vector_add/vadd.py")],
                               stdout=subprocess.PIPE, text=True, cwd=tmp_path,
                               env={**os.environ, "TMPDIR": str(tmp_path), "LOWERCHECK_CACHE_DIR": str(tmp_path / "cache")})
    try:
        folder = Path(command.stdout.readline().strip())
        assert folder.parent == tmp_path and (folder / "log").exists()
    finally:
        command.kill()
        command.wait()
    deadline = time.monotonic() + 30
    while folder.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not folder.exists()
