"""Untrusted ports: a port that hangs, exits or interrupts its worker, or prints a verdict of its own, becomes
a finding (LC902) or nothing, never a dead, stuck or fooled lowercheck."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

VADD_CU = Path(__file__).parents[2] / "corpus" / "vector_add" / "vadd.cu"

HANGING_PORT = '''import torch
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    i = 0
    while i < n:  # never advances: the kernel spins forever
        i = i * 1
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def vadd(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    vadd_kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
    return out
'''


def test_a_hanging_port_is_a_run_failure(tmp_path: Path) -> None:
    """The hanging run is killed at the command's limit and is a failed run. The limit is calibrated on
    this machine as it is now: twice what the same diff takes up to its runs, plus 8 s for the runs'
    start (a fixed 10 s ran out before the runs began on a loaded machine: no run was recorded)."""
    port = tmp_path / "vadd_hang.py"
    port.write_text(HANGING_PORT)
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "lowercheck", "diff", str(VADD_CU), str(port), "--size", "n=100"]
    began = time.monotonic()
    calibration = subprocess.run([*command, "--no-run"], capture_output=True, text=True, timeout=300)
    assert calibration.returncode == 0, calibration.stdout + calibration.stderr
    limit = 2 * (time.monotonic() - began) + 8
    done = subprocess.run([*command, "--timeout", f"{limit:.0f}", "--json", str(report)], capture_output=True,
                          text=True, timeout=300 + limit)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    doc = json.loads(report.read_text())
    failures = [f for f in doc["findings"] if f["code"] == "LC902"]
    assert failures and failures[0]["side"] == "target" and "timeout" in failures[0]["message"]
    assert doc["runs"][0]["status"] == "failed"


@pytest.mark.parametrize(("stop", "code"), [(signal.SIGTERM, 128 + signal.SIGTERM), (signal.SIGINT, 2)])
def test_a_stopped_command_ends_at_once_and_removes_its_folders(tmp_path: Path, stop: int, code: int) -> None:
    """SIGTERM (`timeout`, a cancelled CI job) or Ctrl-C while a run hangs: the command ends within
    seconds, as a terminated process (143) or `interrupted` (2), its worker and run servers
    stopped, its temporary folders removed. Before, SIGTERM killed it outright and left its runs'
    batch folders, and Ctrl-C waited out the hanging run (a minute) before it took effect."""
    port = tmp_path / "vadd_hang.py"
    port.write_text(HANGING_PORT)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    command = subprocess.Popen([sys.executable, "-m", "lowercheck", "diff", str(VADD_CU), str(port), "--size",
                                "n=100", "--timeout", "120"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "TMPDIR": str(temporary),
                                               "LOWERCHECK_CACHE_DIR": str(tmp_path / "cache")},
                               # as from a terminal: an xdist worker may ignore SIGINT, and its children would too
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        end = time.monotonic() + 120
        while not any(p.name.startswith("lowercheck-batch-") for p in temporary.iterdir()):  # the runs began
            assert command.poll() is None and time.monotonic() < end, command.stderr.read()
            time.sleep(0.05)
        command.send_signal(stop)
        began = time.monotonic()
        _, err = command.communicate(timeout=60)
        took = time.monotonic() - began
    finally:
        command.kill()
    assert command.returncode == code and "Traceback" not in err, err
    assert took < 15, f"{took:.1f} s after the signal"
    end = time.monotonic() + 10  # the worker, in a session of its own, sees the command gone within 0.5 s
    while list(temporary.iterdir()) and time.monotonic() < end:
        time.sleep(0.1)
    assert list(temporary.iterdir()) == []


# --- a port cannot set lowercheck's exit code ------------------------------------------------------

VADD_PY = (Path(__file__).parents[2] / "corpus" / "vector_add" / "vadd.py").read_text()
WRAPPER = "def vadd(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:\n"


def _with_import_prelude(prelude: str) -> str:
    return prelude + "\n" + VADD_PY


def _with_wrapper_prelude(prelude: str) -> str:
    assert WRAPPER in VADD_PY
    body = "".join(f"    {line}\n" for line in prelude.splitlines())
    return VADD_PY.replace(WRAPPER, WRAPPER + body)


# (name, port text, what the LC902 message says); every one must give exit 1 with a report.
STOPPING_PORTS = [
    ("exit_at_import", _with_import_prelude("import sys\nsys.exit(0)"), "sys.exit(0)"),
    ("exit_in_wrapper", _with_wrapper_prelude("import sys\nsys.exit(0)"), "sys.exit(0)"),
    # The status of a worker that exited by itself is read when it is known in time (under load it
    # may not be): the finding and the exit code are what must hold.
    ("os_exit_at_import", _with_import_prelude("import os\nos._exit(0)"), "before it handed over its result"),
    ("os_exit_in_wrapper", _with_wrapper_prelude("import os\nos._exit(0)"), "before it handed over its result"),
    ("interrupt_at_import", _with_import_prelude("raise KeyboardInterrupt"), "KeyboardInterrupt"),
    ("kill_own_group", _with_import_prelude("import os, signal\nos.killpg(0, signal.SIGKILL)"),
     "before it handed over its result"),
]


def _lowercheck(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lowercheck", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("name,text,said", STOPPING_PORTS, ids=[p[0] for p in STOPPING_PORTS])
def test_a_port_that_stops_its_worker_is_a_finding_not_our_exit(tmp_path: Path, name: str, text: str,
                                                                said: str) -> None:
    port = tmp_path / f"{name}.py"
    port.write_text(text)
    report = tmp_path / "report.json"
    done = _lowercheck("diff", str(VADD_CU), str(port), "--no-run", "--json", str(report))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert "error[LC902]" in done.stdout and said in done.stdout and "verdict: different" in done.stdout, done.stdout
    doc = json.loads(report.read_text())
    assert doc["verdict"] == "different"
    (finding,) = doc["findings"]
    assert finding["code"] == "LC902" and finding["side"] == "target" and said in finding["message"]


def test_a_port_that_exits_only_when_run_is_a_run_failure(tmp_path: Path) -> None:
    """Captured with fake tensors it behaves; run for real it exits 0: the run's LC902."""
    port = tmp_path / "exit_when_run.py"
    port.write_text(_with_wrapper_prelude("import os\nif os.environ.get('TRITON_INTERPRET'):\n    os._exit(0)"))
    done = _lowercheck("diff", str(VADD_CU), str(port), "--size", "n=100")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "error[LC902]" in done.stdout and "exited with status 0" in done.stdout


@pytest.mark.parametrize("closing", ["sys.stdout.close()",  # and the descriptors under them, redirected and closed:
                                     "import os\nos.dup2(os.open(os.devnull, os.O_WRONLY), 1)\nos.close(2)"],
                         ids=["closed", "redirected"])
def test_what_a_port_prints_stays_out_of_the_report(tmp_path: Path, closing: str) -> None:
    port = tmp_path / "printing.py"
    port.write_text(_with_import_prelude("print('verdict: FORGED')\nimport sys\nprint('FORGED too', file=sys.stderr)"
                                         f"\n{closing}"))
    done = _lowercheck("diff", str(VADD_CU), str(port), "--no-run")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "FORGED" not in done.stdout + done.stderr
    assert "verdict: equivalent" in done.stdout


def test_lower_of_a_file_that_exits_is_bad_input(tmp_path: Path) -> None:
    port = tmp_path / "exits.py"
    port.write_text(_with_import_prelude("import sys\nsys.exit(0)"))
    done = _lowercheck("lower", str(port))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{port}:2" in done.stderr and "sys.exit(0)" in done.stderr


def test_a_relative_port_is_the_file_in_the_working_directory(tmp_path: Path) -> None:
    """The run's child starts elsewhere (its fork server's directory, the checkout): a relative
    path given by the user must still name the user's file, not the checkout's file of that name."""
    wrong = tmp_path / "corpus" / "vector_add" / "vadd.py"
    wrong.parent.mkdir(parents=True)
    wrong.write_text(VADD_PY.replace("x + y", "x - y"))  # the same relative name as the correct port
    done = subprocess.run([sys.executable, "-m", "lowercheck", "diff", str(VADD_CU), "corpus/vector_add/vadd.py",
                           "--size", "n=100", "--no-static"], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "error[LC301]" in done.stdout


def test_a_front_end_worker_ends_with_the_process_that_started_it(tmp_path: Path) -> None:
    """The worker runs in a session of its own, so a kill of lowercheck's process group (a corpus
    server stopped on a timeout) does not reach it: it must notice that its parent is gone and end,
    not linger (they piled up until the machine ran out of memory)."""
    import os
    import time

    script = (
        "import os, signal\n"
        "from lowercheck.frontends.isolated import IsolatedFrontend\n"
        "frontend = IsolatedFrontend('triton')\n"
        "frontend._start()\n"
        "print(*[p.pid for p in frontend._processes], flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    pids = [int(p) for p in done.stdout.split()]
    assert pids, done.stdout + done.stderr

    def alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True

    deadline = time.monotonic() + 30
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(alive(p) for p in pids), f"front-end workers {pids} outlived their parent"


# --- what a front-end call leaves behind, and what it can reach ----------------------------------

DAEMON_PRELUDE = """import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open(os.path.join(os.environ["XDG_CACHE_HOME"], "daemon"), "w") as out:
            out.write(os.readlink("/proc/self"))
        os.execvp("sleep", ["sleep", "600"])
    os._exit(0)
os.wait()
while not os.path.exists(os.path.join(os.environ["XDG_CACHE_HOME"], "daemon")):
    time.sleep(0.01)
time.sleep(0.1)
"""

FDS_PRELUDE = """import os
raise RuntimeError("descriptors: " + " ".join(sorted(os.listdir("/proc/self/fd"))))
"""


def test_a_daemon_started_at_import_is_a_warning_and_ends_with_its_call(tmp_path: Path, monkeypatch) -> None:
    """The front end's call on the file returns its entries (the port is fine), and the daemon its
    import started is an LC903 warning about that side, ended before the next call."""
    from lowercheck.frontends.isolated import IsolatedFrontend
    from lowercheck.runners.confine import source_caches

    port = tmp_path / "daemon.py"
    port.write_text(_with_import_prelude(DAEMON_PRELUDE))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # a tool cache: writable in the sandbox
    monkeypatch.setenv("LOWERCHECK_CACHE_DIR", str(tmp_path / "cache"))
    frontend = IsolatedFrontend("triton")
    try:
        assert "vadd" in [c.name for c in frontend.entries(str(port))]
        (finding,) = frontend.stage_findings(str(port), "target")
    finally:
        frontend.close()
    assert finding.code == "LC903" and finding.side == "target" and str(finding.level) == "warning"
    assert f"reading {port}: 1 process (sleep)" in finding.message and finding.witness["commands"] == ["sleep"]
    own = source_caches({"XDG_CACHE_HOME": str(tmp_path)}, str(port))["XDG_CACHE_HOME"]  # the port's own cache
    daemon = int((Path(own) / "daemon").read_text())
    assert not Path(f"/proc/{daemon}").exists() or "Z" in Path(f"/proc/{daemon}/stat").read_text().rsplit(")")[1][:3]


def test_a_front_end_call_holds_no_descriptor_but_stdio_and_its_result_pipe(tmp_path: Path, monkeypatch) -> None:
    """A pipe the call inherited (the worker's queues to lowercheck, the call server's) could carry
    a forged message past the result's check: the call's process has none."""
    from lowercheck.errors import LowercheckError
    from lowercheck.frontends.isolated import IsolatedFrontend

    port = tmp_path / "fds.py"
    port.write_text(_with_import_prelude(FDS_PRELUDE))
    monkeypatch.setenv("LOWERCHECK_CACHE_DIR", str(tmp_path / "cache"))
    frontend = IsolatedFrontend("triton")
    try:
        with pytest.raises(LowercheckError) as raised:
            frontend.entries(str(port))
    finally:
        frontend.close()
    text = raised.value.render()
    assert "descriptors: " in text, text
    # 0, 1, 2, the result pipe, and the folder listdir itself opened
    import itertools

    descriptors = list(itertools.takewhile(str.isdigit, text.split("descriptors: ")[1].split()))
    assert {"0", "1", "2"} <= set(descriptors) and len(descriptors) <= 5, text


PLANTING_PRELUDE = """import os
OWN = os.environ["TRITON_CACHE_DIR"]
with open(os.path.join(OWN, "planted"), "w") as out:  # its own cache: allowed
    out.write("a forged kernel")
try:  # the cache every other file's lowering reads
    with open(os.path.join(os.path.dirname(os.path.dirname(OWN)), "planted"), "w") as out:
        out.write("a forged kernel")
except OSError:
    pass
"""


def test_a_port_plants_nothing_in_the_cache_another_file_s_lowering_reads(tmp_path: Path) -> None:
    """The Triton cache a capture compiles into is the file's own (`confine.source_caches`): a port
    can write there, never where another file's lowering would find a forged kernel."""
    from lowercheck.runners.confine import SOURCE_CACHES, source_caches

    port = tmp_path / "vadd_plant.py"
    port.write_text(_with_import_prelude(PLANTING_PRELUDE))
    shared = tmp_path / "triton"
    env = {**os.environ, "TRITON_CACHE_DIR": str(shared), "LOWERCHECK_CACHE_DIR": str(tmp_path / "lowercheck")}
    done = subprocess.run([sys.executable, "-m", "lowercheck", "lower", str(port)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    own = Path(source_caches({"TRITON_CACHE_DIR": str(shared)}, str(port))["TRITON_CACHE_DIR"])
    assert (own / "planted").exists()
    assert sorted(p.name for p in shared.iterdir()) == [SOURCE_CACHES]
    assert not (tmp_path / "planted").exists()
