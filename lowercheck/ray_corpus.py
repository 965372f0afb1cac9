"""`lowercheck corpus DIR --ray ADDRESS`: a corpus's cases as Ray tasks, for corpora beyond one machine.

Each (case, tool) run is one Ray task that calls `batch.run_case`, the one way a case is judged: the
same `lowercheck diff` command line, in a `DiffServer` of the task's Ray worker process (one per
worker, so a worker pays for the front ends' imports once), with the same per-case time limit and
isolation (its own session, killed whole on an overrun). A case the time limit stops is a `timeout`
outcome, as with `-j`, not a retry. The driver alone writes the results file, through
`batch.recording`, one line per result as `ray.wait` hands it over: the same format, resumable the
same way. A worker that dies mid-case (killed, out of memory, its node lost) is Ray's to retry
(`RETRIES`, the task's `max_retries`); the retried run's result arrives once and is written once. A
case whose worker died on every try is an `error` outcome that says so.

Where the cluster comes from (`--ray`):

- `local`: a cluster with `-j` CPUs started for this command and shut down after it, so none of its
  processes outlives the command. Its session folders (logs) are under lowercheck's cache
  (`.cache/lowercheck/ray`; under the system's temporary folder only when that path is too long for
  Ray's unix sockets), and its token is made per cluster and kept in the environment, not in `~/.ray`.
- `auto`: the running cluster Ray finds (`RAY_ADDRESS`, or the one `ray start` started here).
- `HOST:PORT` or `ray://HOST:PORT`: that cluster.

A cluster we connect to must see the corpus at the same paths as the driver (a shared file system),
and have lowercheck installed in its workers' Python; the tasks run in the driver's working
directory, so relative case folders and lowercheck's cache (`.cache/lowercheck`) are the same
folders. Every case's folder is checked on the node that runs it.

The summary names each worker (node address and process id) with its cases, the seconds it spent on
them, and its cases per minute of the run's wall time (`RayRun.markdown`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import secrets
import socket
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lowercheck import batch, cache
from lowercheck.batch import Case, Outcome
from lowercheck.diff_server import DiffServer
from lowercheck.errors import UserError

LOCAL = "local"  # `--ray local`: start a cluster for this command
RETRIES = 2  # tries after a worker died mid-case (Ray's `max_retries`; an exception of ours is not retried)
INSTALL_HINT = "pip install 'lowercheck[ray]'"

# A unix socket's path holds at most 107 bytes; Ray puts its sockets at
# TEMP/session_<date>_<time>_<microseconds>_<pid>/sockets/plasma_store.
_SOCKET_PATH_MAX = 107
_SOCKET_SUFFIX = len("/session_2026-12-06_04-21-58_952901_4194304/sockets/plasma_store")


def _ray():
    try:
        import ray
    except ImportError:
        raise UserError("`--ray` needs Ray, which is not installed", hint=INSTALL_HINT) from None
    return ray


@dataclass
class WorkerLoad:
    """One Ray worker process's share of a run: the cases it judged and the seconds they took."""

    node: str  # the node's address
    pid: int
    cases: int = 0
    busy_s: float = 0.0

    @property
    def name(self) -> str:
        return f"{self.node} pid {self.pid}"


@dataclass
class RayRun:
    """What `run_corpus_ray` did: every outcome (those already in the results file too), each worker's
    share of the runs it made, the wall time of those runs and of starting or joining the cluster."""

    outcomes: dict[tuple[str, str], Outcome]
    cluster: str  # in words: "a local cluster of 2 CPUs", "the cluster at HOST:PORT"
    workers: list[WorkerLoad] = field(default_factory=list)
    wall_s: float = 0.0
    start_s: float = 0.0

    @property
    def ran(self) -> int:
        return sum(worker.cases for worker in self.workers)

    def per_minute(self, cases: int) -> float:
        return 60 * cases / self.wall_s if self.wall_s > 0 else 0.0

    def markdown(self) -> str:
        """The per-worker table of the summary (empty when nothing ran)."""
        if not self.workers:
            return ""
        lines = [f"Ray workers ({self.cluster}; {self.start_s:.0f} s to start or join it, not counted below):", "",
                 "| worker | cases | busy s | cases per minute |", "| --- | --- | --- | --- |"]
        for worker in self.workers:
            lines.append(f"| {worker.name} | {worker.cases} | {worker.busy_s:.0f} | {self.per_minute(worker.cases):.1f} |")
        lines.append(f"| all ({self.wall_s:.0f} s of wall time) | {self.ran} | "
                     f"{sum(w.busy_s for w in self.workers):.0f} | {self.per_minute(self.ran):.1f} |")
        return "\n".join(lines)


def temp_dir() -> Path:
    """Where a local cluster keeps its session folders: lowercheck's cache, unless that path leaves
    too little room for Ray's socket paths (then a folder of ours in the system's temporary folder)."""
    wanted = (cache.folder() / "ray").resolve()
    if len(str(wanted)) + _SOCKET_SUFFIX <= _SOCKET_PATH_MAX:
        return wanted
    return Path(tempfile.gettempdir()) / f"lowercheck-ray-{hashlib.sha256(str(wanted).encode()).hexdigest()[:12]}"


@contextlib.contextmanager
def local_environment() -> Iterator[None]:
    """The environment a cluster we start runs in (its processes inherit it): a token made for it,
    unless the user gave one (Ray turns token authentication on for a new local cluster and would
    otherwise write a token to ~/.ray/auth_token); no usage report. Restored afterwards, with the
    mode Ray sets (RAY_AUTH_MODE)."""
    wanted = {"RAY_USAGE_STATS_ENABLED": os.environ.get("RAY_USAGE_STATS_ENABLED", "0")}
    if "RAY_AUTH_TOKEN" not in os.environ and "RAY_AUTH_TOKEN_PATH" not in os.environ:
        wanted["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    previous = {name: os.environ.get(name) for name in [*wanted, "RAY_AUTH_MODE"]}
    os.environ.update(wanted)
    try:
        yield
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


_CLUSTER_HINT = ("`--ray local` starts a cluster for this command; `--ray auto` joins the one `ray start --head` "
                 "started; or give its HOST:PORT (a cluster with token authentication also needs RAY_AUTH_MODE=token "
                 "and its RAY_AUTH_TOKEN)")


def _answers(address: str) -> None:
    """A HOST:PORT where nothing answers is refused at once (Ray's own client would retry for minutes)."""
    host, colon, port = address.rpartition(":")
    if not colon or not port.isdigit() or "://" in address:
        return  # `auto`, or a `ray://` client address: Ray's own checks
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=10).close()
    except OSError as err:
        raise UserError(f"cannot join the Ray cluster at {address}: nothing answers there ({err.strerror or err})",
                        hint=_CLUSTER_HINT) from None


@contextlib.contextmanager
def cluster(address: str, workers: int) -> Iterator[str]:
    """Ray initialised in this process for the block: a local cluster of `workers` CPUs started
    (`address` is `local`) or the cluster at `address` joined; shut down (a local one) or left (a
    joined one) at the end, whatever happens. Yields the cluster in words."""
    with contextlib.ExitStack() as stack:
        options = {"logging_level": "ERROR", "log_to_driver": False}
        if address == LOCAL:
            stack.enter_context(local_environment())
            # "local" is also Ray's word for a new instance, even where RAY_ADDRESS names a running one
            options |= {"address": LOCAL, "num_cpus": workers, "_temp_dir": str(temp_dir()), "include_dashboard": False}
            described = f"a local cluster of {workers} CPUs"
        else:
            _answers(address)
            options["address"] = address
            described = f"the cluster at {address}"
        ray = _ray()
        try:
            ray.init(**options)
        except (ConnectionError, ValueError, RuntimeError, ray.exceptions.RayError) as err:
            ray.shutdown()
            what = "start a local Ray cluster" if address == LOCAL else f"join the Ray cluster at {address}"
            raise UserError(f"cannot {what}: {' '.join(str(err).split())[:500]}",
                            hint=_CLUSTER_HINT) from None
        stack.callback(ray.shutdown)
        yield described


@functools.cache
def _server() -> DiffServer:
    """This Ray worker process's diff server, kept for every case the worker runs (it ends with the
    worker: the server watches its parent)."""
    return DiffServer()


def _judge(case: Case, tool: str, limit_s: float, html_dir: Path | None, cwd: str) -> tuple[Outcome, str, int]:
    """The Ray task: one case judged by `batch.run_case` in this worker's diff server, in the
    driver's working directory; the outcome and which worker (node address, process id) judged it."""
    import ray

    node = ray.util.get_node_ip_address()
    if Path(cwd).is_dir() and os.getcwd() != cwd:
        os.chdir(cwd)
    if not Path(case.folder).is_dir():
        return (Outcome(case.key, tool, "error", message=f"the case's folder {case.folder} is not on node {node}: "
                        "a Ray cluster's nodes need the corpus at the driver's paths (a shared file system)"),
                node, os.getpid())
    return batch.run_case(case, tool, limit_s, _server(), html_dir=html_dir), node, os.getpid()


def run_corpus_ray(cases: list[Case], results: Path, address: str = LOCAL, workers: int = 2, baseline: bool = False,
                   limit_s: float = 600.0, progress: bool | None = None, html_dir: Path | None = None) -> RayRun:
    """Run what is not in `results` yet as Ray tasks on the cluster `address` (`local`: one of
    `workers` CPUs started for the call), appending each outcome as it arrives; the outcomes (those
    reused too) and each worker's throughput."""
    done, todo = batch.resume(cases, results, baseline)
    if not todo:
        return RayRun(done, "no cluster: nothing to run")
    ray = _ray()
    started = time.monotonic()
    loads: dict[tuple[str, int], WorkerLoad] = {}
    with cluster(address, workers) as described:
        run = RayRun(done, described, start_s=time.monotonic() - started)
        judge = ray.remote(num_cpus=1, max_retries=RETRIES, retry_exceptions=False)(_judge)
        began = time.monotonic()
        with batch.recording(results, done, todo, progress) as record:
            pending = {judge.remote(case, tool, limit_s, html_dir, os.getcwd()): (case, tool) for case, tool in todo}
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                case, tool = pending.pop(ready[0])
                try:
                    outcome, node, pid = ray.get(ready[0])
                except ray.exceptions.RayTaskError:
                    raise  # a fault of ours, as `run_case` raising is with -j
                except ray.exceptions.RayError as err:  # the worker died on every try
                    record(case, Outcome(case.key, tool, "error", message=(
                        f"its Ray worker died on each of {RETRIES + 1} tries: {type(err).__name__}: "
                        + " ".join(str(err).split())[:400])))
                    continue
                load = loads.setdefault((node, pid), WorkerLoad(node, pid))
                load.cases += 1
                load.busy_s += outcome.seconds
                record(case, outcome)
        run.wall_s = time.monotonic() - began
    run.workers = sorted(loads.values(), key=lambda w: (w.node, w.pid))
    return run


__all__ = ["LOCAL", "RETRIES", "RayRun", "WorkerLoad", "cluster", "local_environment", "run_corpus_ray", "temp_dir"]
