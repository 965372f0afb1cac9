"""`make fuzz`: every corpus pair and spec mutated, each mutant through `lowercheck diff`, and the
ways a tool fails on bad input counted as failures.

    python -m lowercheck.fuzz [--seed S] [--count N] [-j 2] [--out docs/fuzz.md]

Mutant `i` of seed `S` is the same on every run (its own `random.Random(f"{S}:{i}")`): a case of
`corpus/*/expected.toml` (cycled in a seeded order, so every local pair is used), a mutation kind
(cycled, so each kind gets its share; `KINDS`), the file it changes (source, target or spec),
and a mode: static (`--no-run`), with runs (`RUN_SHARE` of the run cases, `--timeout` small), and
a share of either in a fresh `python -m lowercheck` process (`FRESH_SHARE`). The case's folder is
copied into a temporary folder under `.cache/fuzz/` and only the copy is mutated; the corpus's
hashes are compared before and after the whole run.

The other mutants go to a long-lived server (`python -m lowercheck.fuzz --serve`, in a session of
its own): the CLI's `main` runs one command line after another with stdout and stderr captured, so
torch, Triton and JAX are imported once per server, not once per mutant (about 0.8 s a static mutant
instead of 6 s). Each mutant's exit code and output are still checked one by one.

A mutant fails (`check`) on: an exit code outside 0-3 or none within its wall limit (a hang); a
Python traceback or "internal error" in its output; an exit 2 whose message names no `path:line`
of a file (line >= 1); a file of its copy changed or removed; a process it started still alive
after it finished (every process started for a mutant, or for a server, carries an environment
tag, `TAG`, which /proc shows whatever session or parent the process ends up with: the front-end
workers lead sessions of their own); a BOM or CRLF mutant whose exit code differs from the same
case unmutated (compilers accept both). The failures are kept (the mutant's folder and output)
under `.cache/fuzz/failures/` for reproduction, and `--out` gets the summary: what was mutated, how
many per kind, the exit codes, the failures, the wall time.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import hashlib
import io
import json
import os
import platform
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from lowercheck.diff_server import exchange

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus"
WORK = ROOT / ".cache" / "fuzz"
TAG = "LCFUZZ_TAG"  # not LOWERCHECK_*: those are settings (the configuration, the report cache's key)

RUN_SHARE = 0.15  # of the mutants of run cases: diffed with runs (the rest static, `--no-run`)
FRESH_SHARE = 0.08  # of all mutants: a fresh `python -m lowercheck` process instead of the server
STATIC_LIMIT_S = 150.0  # wall limit of a static mutant (the isl budget is ~80 s)
RUN_LIMIT_S = 420.0  # wall limit of a mutant with runs (observation has a budget of 90 s)
RUN_TIMEOUT_S = 20  # `--timeout` of a mutant with runs: seconds per side and size
SERVER_COMMANDS = 120  # a server is recycled (and checked for stray processes) after this many mutants
STRAY_GRACE_S = 10.0  # how long a finished mutant's processes may take to end
OUTPUT_KEPT = 4000  # characters of a mutant's stdout and stderr kept in the results

# An error said at a line of a file, as the CLI renders it: `path:line[:column]: error...` (or
# `inconclusive[...]`) at the start of a line of the output: what an exit 2 must show
_LOCATION = re.compile(r"^(?:\[\w+\] )?(\S+?):(\d+)(?::\d+)?: (?:error|inconclusive)", re.M)
_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z-]+")
_ABSURD_SIZES = (2**31, 2**31 - 1, 2**32, 2**40, 2**62, 2**63 - 1, 2**63, 2**64, -1, 0, 10**30)
_ABSURD_CONSTANTS = ("0", "1", "-1", "2147483648", "1099511627776", "9223372036854775808", "0.0", "1e308", "nan",
                     "3", "65536", "-2147483649")


@dataclass(frozen=True)
class Case:
    """A corpus pair whose two sides are files of its folder (pairs with a pinned package's file,
    `realworld:...`, need a download and are left out)."""

    folder: Path
    source: str  # FILE or FILE:ENTRY, relative to the folder
    target: str
    spec: str | None
    mode: str  # run | static
    args: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"{self.folder.name}/{self.target} vs {self.source}"


@dataclass
class Draft:
    """A mutant being made: its folder (a copy of the case's), its sides and spec there, and its
    extra command-line options."""

    folder: Path
    files: dict[str, Path]  # role (source, target, spec) -> the copy's path
    entries: dict[str, str | None]  # role (source, target) -> ENTRY or None
    options: list[str] = field(default_factory=list)
    what: str = ""  # the mutation in words


@dataclass
class Mutant:
    index: int
    case: str
    kind: str
    role: str  # which file the mutation changed (or "arguments")
    what: str
    mode: str  # static | run
    process: str  # server | fresh
    argv: list[str]
    folder: str


@dataclass
class Result:
    mutant: Mutant
    exit: int | None  # None: past its wall limit
    seconds: float
    stdout: str
    stderr: str
    failures: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# Mutations: each changes the draft in place (a file of its folder, or its options) and returns
# what it did. `role` is the file chosen (source, target or spec).

Mutation = Callable[[random.Random, Draft, str], str]
KINDS: dict[str, Mutation] = {}
_FILE_KINDS: set[str] = set()  # the kinds that change a file (the others change the arguments)


def mutation(name: str, changes_file: bool = True):
    def register(fn: Mutation) -> Mutation:
        KINDS[name] = fn
        if changes_file:
            _FILE_KINDS.add(name)
        return fn
    return register


def _line_at(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


@mutation("delete-line")
def _delete_line(rng: random.Random, draft: Draft, role: str) -> str:
    path = draft.files[role]
    lines = _lines(path)
    if not lines:
        return "nothing to delete (empty file)"
    k = rng.randrange(len(lines))
    path.write_bytes(b"".join(lines[:k] + lines[k + 1:]))
    return f"line {k + 1} deleted"


@mutation("duplicate-line")
def _duplicate_line(rng: random.Random, draft: Draft, role: str) -> str:
    path = draft.files[role]
    lines = _lines(path)
    if not lines:
        return "nothing to duplicate (empty file)"
    k = rng.randrange(len(lines))
    path.write_bytes(b"".join(lines[:k + 1] + [lines[k]] + lines[k + 1:]))
    return f"line {k + 1} duplicated"


_TOKEN = re.compile(rb"[A-Za-z_]\w*|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|[^\s\w]")


@mutation("swap-tokens")
def _swap_tokens(rng: random.Random, draft: Draft, role: str) -> str:
    path = draft.files[role]
    data = path.read_bytes()
    tokens = list(_TOKEN.finditer(data))
    pairs = [k for k in range(len(tokens) - 1) if tokens[k].group() != tokens[k + 1].group()]
    if not pairs:
        return "no two different tokens side by side"
    a, b = tokens[(k := rng.choice(pairs))], tokens[k + 1]
    path.write_bytes(data[:a.start()] + b.group() + data[a.end():b.start()] + a.group() + data[b.end():])
    return f"tokens `{a.group().decode(errors='replace')}` and `{b.group().decode(errors='replace')}` swapped " \
           f"at line {_line_at(data, a.start())}"


_IDENTIFIER = re.compile(rb"\b[A-Za-z_]\w*\b")


@mutation("identifier")
def _identifier(rng: random.Random, draft: Draft, role: str) -> str:
    def renamed(hit: re.Match, found: list[re.Match]) -> bytes:  # another name of the file, or a new one
        others = sorted({m.group() for m in found} - {hit.group()})
        return rng.choice(others) if others and rng.random() < 0.6 else hit.group() + b"_x"

    return _substitute_one(rng, draft.files[role], _IDENTIFIER, "identifier", renamed)


_NUMBER = re.compile(rb"(?<![\w.])\d+(?:\.\d*)?(?:[eE][-+]?\d+)?(?![\w.])")


@mutation("constant")
def _constant(rng: random.Random, draft: Draft, role: str) -> str:
    return _substitute_one(rng, draft.files[role], _NUMBER, "constant", lambda hit, _: rng.choice(
        [c for c in _ABSURD_CONSTANTS if c.encode() != hit.group()]).encode())


def _substitute_one(rng: random.Random, path: Path, pattern: re.Pattern, what: str,
                    new: Callable[[re.Match, list[re.Match]], bytes]) -> str:
    """`path` with one match of `pattern`, chosen by `rng`, replaced by `new(match, every match)`;
    what was done, in words."""
    data = path.read_bytes()
    found = list(pattern.finditer(data))
    if not found:
        return f"no {what}"
    hit = rng.choice(found)
    value = new(hit, found)
    path.write_bytes(data[:hit.start()] + value + data[hit.end():])
    return f"`{hit.group().decode()}` -> `{value.decode()}` at line {_line_at(data, hit.start())}"


@mutation("truncate")
def _truncate(rng: random.Random, draft: Draft, role: str) -> str:
    path = draft.files[role]
    data = path.read_bytes()
    cut = rng.randrange(len(data) + 1)
    path.write_bytes(data[:cut])
    return f"cut at byte {cut} of {len(data)}"


@mutation("random-bytes")
def _random_bytes(rng: random.Random, draft: Draft, role: str) -> str:
    path = draft.files[role]
    data = bytearray(path.read_bytes())
    count = rng.choice((1, 2, 8, 64))
    for _ in range(count):
        at = rng.randrange(len(data) + 1)
        byte = rng.randrange(256)
        if at < len(data) and rng.random() < 0.5:
            data[at] = byte
        else:
            data.insert(at, byte)
    path.write_bytes(bytes(data))
    return f"{count} random byte(s) written"


@mutation("bom-crlf")
def _bom_crlf(rng: random.Random, draft: Draft, role: str) -> str:
    path = draft.files[role]
    data = path.read_bytes()
    choice = rng.choice(("bom", "crlf", "both"))
    if choice in ("crlf", "both"):
        data = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    if choice in ("bom", "both"):
        data = b"\xef\xbb\xbf" + data
    path.write_bytes(data)
    return {"bom": "a UTF-8 BOM added", "crlf": "CRLF line ends", "both": "a UTF-8 BOM and CRLF line ends"}[choice]


@mutation("empty")
def _empty(rng: random.Random, draft: Draft, role: str) -> str:
    draft.files[role].write_bytes(b"")
    return "emptied"


@mutation("directory")
def _directory(rng: random.Random, draft: Draft, role: str) -> str:
    path = draft.files[role]
    path.unlink()
    path.mkdir()
    (path / "inside.txt").write_text("a file inside the directory\n")
    return "replaced by a directory"


@mutation("huge")
def _huge(rng: random.Random, draft: Draft, role: str) -> str:
    path = draft.files[role]
    comment = b"#" if path.suffix in (".py", ".toml") else b"//"
    megabytes = rng.choice((4, 32, 160))
    if rng.random() < 0.5:  # many lines
        filler = (comment + b" padding" + b" x" * 28 + b"\n") * (megabytes * 1024 * 1024 // 66)
        how = "lines"
    else:  # one long line
        filler = comment + b" " + b"y" * (megabytes * 1024 * 1024) + b"\n"
        how = "one line"
    with path.open("ab") as out:
        out.write(b"\n" + filler)
    return f"{megabytes} MiB of comment appended as {how}"


def _size_names(draft: Draft) -> list[str]:
    """The sizes the spec names, else the integer-looking parameter names common in the sides."""
    spec = draft.files.get("spec")
    if spec is not None and spec.is_file():
        import tomllib

        with contextlib.suppress(Exception):
            names = list(tomllib.loads(spec.read_text()).get("sizes", {}))
            if names:
                return names
    text = " ".join(p.read_text(errors="replace") for r, p in draft.files.items() if r != "spec" and p.is_file())
    common = [n for n in ("n", "rows", "cols", "M", "N", "K", "n_cols", "n_rows", "seq", "dim", "B", "T", "C", "H")
              if re.search(rf"\b{n}\b", text)]
    return common or ["n"]


@mutation("absurd-size", changes_file=False)
def _absurd_size(rng: random.Random, draft: Draft, role: str) -> str:
    name = rng.choice(_size_names(draft))
    value = rng.choice(_ABSURD_SIZES)
    spec = draft.files.get("spec")
    if spec is not None and spec.is_file() and rng.random() < 0.6:
        text = spec.read_text()
        new, count = re.subn(rf"(?m)^(\s*{re.escape(name)}\s*=\s*)\[[^\]]*\]", rf"\g<1>[{value}]", text)
        if rng.random() < 0.3:  # a float, a string, an empty list or a list of a million entries
            odd = rng.choice(("1.5", '"big"', "[]", "[" + ", ".join(["7"] * 1_000_000) + "]"))
            new, count = re.subn(rf"(?m)^(\s*{re.escape(name)}\s*=\s*)\[[^\]]*\]", rf"\g<1>{odd}", text)
            value = odd[:20]
        if count:
            spec.write_text(new)
            return f"spec size `{name}` = {value}"
    if spec is None and rng.random() < 0.6:  # a spec of its own, so that the error has a line to name
        spec = draft.files["spec"] = draft.folder / "fuzz_sizes.toml"
        spec.write_text(f"# sizes of the fuzzer\n[sizes]\n{name} = [{value}]\n")
        return f"a spec with size `{name}` = {value}"
    draft.options += ["--size", f"{name}={value}"]
    return f"--size {name}={value}"


@mutation("wrong-entry", changes_file=False)
def _wrong_entry(rng: random.Random, draft: Draft, role: str) -> str:
    side = role if role in ("source", "target") else rng.choice(("source", "target"))
    path = draft.files[side]
    names = sorted({m.group().decode() for m in _IDENTIFIER.finditer(path.read_bytes())}) if path.is_file() else []
    choice = rng.random()
    if names and choice < 0.5:
        entry = rng.choice(names)  # a name of the file: a kernel, a helper, a variable, a keyword
    elif choice < 0.8:
        entry = "no_such_entry"
    else:
        entry = rng.choice(("Class.forward", "launch<__half>", "x.y", "main"))
    draft.entries[side] = entry
    return f"{side} entry `{entry}`"


# ---------------------------------------------------------------------------------------------
# Cases and mutants


def cases(corpus: Path = CORPUS) -> tuple[list[Case], list[str]]:
    """The corpus pairs whose sides are files of their folder; the labels of those left out."""
    from lowercheck.batch import discover
    from lowercheck.frontends import split_entry

    found, skipped = [], []
    for case in discover(corpus):
        folder = Path(case.folder)
        local = all(not name.startswith("realworld:") and (folder / split_entry(name)[0]).is_file()
                    for name in (case.source, case.target))
        if not local or case.edit:
            skipped.append(f"{folder.name}/{case.target} vs {case.source}")
            continue
        found.append(Case(folder, case.source, case.target, case.spec, case.mode, case.args))
    return found, skipped


def make_mutant(seed: int, index: int, pool: list[Case], work: Path, run_share: float = RUN_SHARE,
                fresh_share: float = FRESH_SHARE) -> Mutant:
    """Mutant `index` of `seed`: the same case, kind, file and mode on every run (for the same
    shares)."""
    from lowercheck.frontends import split_entry

    rng = random.Random(f"{seed}:{index}")
    order = list(range(len(pool)))
    random.Random(f"{seed}:order").shuffle(order)
    case = pool[order[index % len(pool)]]
    kinds = list(KINDS)
    kind = kinds[(index + index // len(pool)) % len(kinds)]
    folder = work / f"m{index:05d}" / case.folder.name
    shutil.copytree(case.folder, folder, ignore=shutil.ignore_patterns("__pycache__", ".cache"))
    files, entries = {}, {}
    for role, given in (("source", case.source), ("target", case.target)):
        name, entries[role] = split_entry(given)
        files[role] = folder / name
    if case.spec:
        files["spec"] = folder / case.spec
    draft = Draft(folder, files, entries, list(case.args))
    role = rng.choice(sorted(files)) if kind in _FILE_KINDS else "arguments"
    what = KINDS[kind](rng, draft, role if role != "arguments" else rng.choice(sorted(files)))
    mode = "run" if case.mode == "run" and rng.random() < run_share else "static"
    process = "fresh" if rng.random() < fresh_share else "server"
    argv = ["diff", *(_side(draft, r) for r in ("source", "target")), "--seed", "0"]
    if "spec" in files:
        argv += ["--spec", str(files["spec"])]
    argv += draft.options
    argv += ["--no-run"] if mode == "static" else ["--timeout", str(RUN_TIMEOUT_S)]
    return Mutant(index, case.label, kind, role, what, mode, process, argv, str(folder))


def _side(draft: Draft, role: str) -> str:
    entry = draft.entries[role]
    return str(draft.files[role]) + (f":{entry}" if entry else "")


def unmutated(mutant: Mutant, pool: list[Case], seed: int, work: Path) -> Mutant:
    """The same case, mode and process as `mutant`, without the mutation (the BOM/CRLF oracle)."""
    case = next(c for c in pool if c.label == mutant.case)
    from lowercheck.frontends import split_entry

    folder = work / f"m{mutant.index:05d}-plain" / case.folder.name
    shutil.copytree(case.folder, folder, ignore=shutil.ignore_patterns("__pycache__", ".cache"))
    argv = ["diff"]
    for given in (case.source, case.target):
        name, entry = split_entry(given)
        argv.append(str(folder / name) + (f":{entry}" if entry else ""))
    argv += ["--seed", "0"] + (["--spec", str(folder / case.spec)] if case.spec else []) + list(case.args)
    argv += ["--no-run"] if mutant.mode == "static" else ["--timeout", str(RUN_TIMEOUT_S)]
    return Mutant(mutant.index, case.label, "unmutated", "-", "the case unmutated", mutant.mode, mutant.process, argv,
                  str(folder))


# ---------------------------------------------------------------------------------------------
# Processes: the tag every process of a mutant (or a server) carries, and finding those left


def tagged(tag: str) -> list[int]:
    """The live processes whose environment carries `TAG=tag` (zombies have none)."""
    needle = f"{TAG}={tag}\0".encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as handle:
                if needle in handle.read():
                    found.append(int(entry.name))
        except OSError:
            continue
    return found


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()[:200]
    except OSError:
        return "?"


def left_behind(tag: str, grace_s: float = STRAY_GRACE_S) -> list[str]:
    """The processes tagged `tag` still alive after `grace_s` (each then killed, by its pid): their
    command lines."""
    deadline = time.monotonic() + grace_s
    while (pids := tagged(tag)) and time.monotonic() < deadline:
        time.sleep(0.25)
    stray = [f"pid {pid}: {_command_line(pid)}" for pid in pids]
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return stray


def _environment(tag: str, work: Path) -> dict[str, str]:
    """A mutant's environment: its tag, and lowercheck's cache in the run's folder (gone with it)."""
    env = {**os.environ, TAG: tag, "COLUMNS": "200", "LOWERCHECK_CACHE_DIR": str(work / "lowercheck-cache")}
    env.pop("LOWERCHECK_DEBUG", None)
    return env


def serve() -> int:
    """`python -m lowercheck.fuzz --serve`: one JSON list of `lowercheck` arguments per line on
    stdin; one JSON line {exit, stdout, stderr} per command, once it has finished. The protocol
    uses a copy of the original stdout; file descriptors 1 and 2 go to /dev/null, so nothing
    written there (by native code, by a child) can break it."""
    from lowercheck.cli import main

    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    for line in sys.stdin:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(json.loads(line), keep_workers=True)
            except SystemExit as stop:  # argparse: usage errors exit 2 with their message
                code = stop.code if isinstance(stop.code, int) else 2
            except BaseException:  # noqa: BLE001 - the CLI let something through: the fuzzer counts it
                import traceback

                traceback.print_exc()
                code = -1
        protocol.write(json.dumps({"exit": code, "stdout": out.getvalue()[-OUTPUT_KEPT:],
                                   "stderr": err.getvalue()[-OUTPUT_KEPT:]}) + "\n")
    return 0


class Server:
    """A `serve()` process in a session of its own, tagged: `run(argv, limit_s)` -> (exit or None
    when it overran, stdout, stderr). A server that overran is killed with its group and whatever
    carries its tag; `close()` ends it gracefully and returns the processes it left behind."""

    def __init__(self, name: str, work: Path) -> None:
        self.name = name
        self.work = work
        self.generation = 0
        self.commands = 0
        self.process: subprocess.Popen | None = None

    @property
    def tag(self) -> str:
        return f"{self.name}.{self.generation}"

    def _start(self) -> subprocess.Popen:
        if self.process is None:
            self.generation += 1
            self.commands = 0
            self.process = subprocess.Popen([sys.executable, "-m", "lowercheck.fuzz", "--serve"], cwd=ROOT,
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                            text=True, start_new_session=True, env=_environment(self.tag, self.work))
        return self.process

    def run(self, argv: list[str], limit_s: float) -> tuple[int | None, str, str]:
        process = self._start()
        self.commands += 1
        doc, why = exchange(process, argv, limit_s)
        if doc is None:
            self.kill()
            return None, "", why
        return doc["exit"], doc["stdout"], doc["stderr"]

    def kill(self) -> list[str]:
        """Kill the server's group now; what carries its tag after the grace period is stray."""
        if self.process is None:
            return []
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.process = None
        return left_behind(self.tag)

    def close(self) -> list[str]:
        """End the server as a finished command ends (stdin closed) and return what it left behind."""
        if self.process is None:
            return []
        self.process.stdin.close()
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            self.process = None
            return ["the server did not end within 60 s of its input closing"] + left_behind(self.tag)
        self.process = None
        return left_behind(self.tag)


_FRESH: set[subprocess.Popen] = set()  # the fresh mutants running now: killed when the run is interrupted


def run_fresh(mutant: Mutant, limit_s: float, work: Path) -> tuple[int | None, str, str, list[str]]:
    """`python -m lowercheck ARGV` in a session of its own: (exit or None, stdout, stderr, stray)."""
    tag = f"{work.name}.fresh{mutant.index}"
    process = subprocess.Popen([sys.executable, "-m", "lowercheck", *mutant.argv], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True,
                               env=_environment(tag, work))
    _FRESH.add(process)
    try:
        out, err = process.communicate(timeout=limit_s)
        code: int | None = process.returncode
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        code = None
    finally:
        _FRESH.discard(process)
    return code, out[-OUTPUT_KEPT:], err[-OUTPUT_KEPT:], left_behind(tag)


# ---------------------------------------------------------------------------------------------
# Checks


def _digests(folder: Path) -> dict[str, str]:
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and ".cache" not in path.parts:
            found[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def check(code: int | None, stdout: str, stderr: str, limit_s: float) -> list[str]:
    """The failures of one command's outcome (an empty list: it behaved)."""
    failures = []
    text = stdout + "\n" + stderr
    if code is None:
        failures.append(f"no exit within {limit_s:g} s (a hang)")
    elif code not in (0, 1, 2, 3):
        failures.append(f"exit code {code}, outside 0-3")
    if "Traceback (most recent call last)" in text:
        failures.append("a Python traceback in the output")
    if "internal error" in text:
        failures.append("an internal error")
    if code == 2 and not named_line(stderr + "\n" + stdout) and not names_option(stderr):
        failures.append("exit 2 without a file:line")
    return failures


def named_line(text: str) -> bool:
    """Whether an error of `text` is said at a line (>= 1) of a file: `path:line[:column]: error`."""
    return any(int(m.group(2)) >= 1 for m in _LOCATION.finditer(text))


def names_option(text: str) -> bool:
    """Whether an error line of `text` is about a command-line option it names (`bad --size
    n=-1`): such an error has no file to point into."""
    return any(_OPTION.search(line) for line in text.splitlines() if line.startswith("error:"))


# ---------------------------------------------------------------------------------------------
# The run


@dataclass
class Summary:
    seed: int
    count: int
    jobs: int
    results: list[Result]
    skipped: list[str]
    cases_used: int
    cases_total: int
    wall_s: float
    corpus_changed: list[str]
    stray_servers: list[str]


def fuzz(seed: int, count: int, jobs: int = 2, corpus: Path = CORPUS, progress: bool = False,
         log: Path | None = None, only: list[int] | None = None, run_share: float = RUN_SHARE,
         fresh_share: float = FRESH_SHARE) -> Summary:
    """Make and check `count` mutants of `seed`, `jobs` at a time (`only`: just these indices of
    them, to reproduce a failure)."""
    pool, skipped = cases(corpus)
    start = time.monotonic()
    folders = sorted({case.folder for case in pool})
    before = {f"{folder.name}/{name}": digest for folder in folders for name, digest in _digests(folder).items()}
    WORK.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"run-{seed}-", dir=WORK))
    servers: list[Server] = [Server(f"{work.name}.server{k}", work) for k in range(jobs)]
    free: list[Server] = list(servers)
    lock = threading.Lock()
    stray_servers: list[str] = []
    results: list[Result] = []
    sink = log.open("w") if log else None

    def one(index: int) -> Result:
        mutant = make_mutant(seed, index, pool, work, run_share, fresh_share)
        result = execute(mutant)
        if mutant.kind == "bom-crlf" and result.exit is not None:
            plain = execute(unmutated(mutant, pool, seed, work))
            if plain.exit != result.exit and plain.exit is not None:
                result.failures.append(f"exit {result.exit} with {mutant.what}, {plain.exit} unmutated")
            result.failures += [f"unmutated: {f}" for f in plain.failures]
        if result.failures:
            _keep(result, work)
        shutil.rmtree(Path(mutant.folder).parent, ignore_errors=True)
        shutil.rmtree(work / f"m{index:05d}-plain", ignore_errors=True)
        return result

    def execute(mutant: Mutant) -> Result:
        folder = Path(mutant.folder)
        digests = _digests(folder) if folder.exists() else {}
        limit = RUN_LIMIT_S if mutant.mode == "run" else STATIC_LIMIT_S
        began = time.monotonic()
        stray: list[str] = []
        if mutant.process == "fresh":
            code, out, err, stray = run_fresh(mutant, limit, work)
        else:
            with lock:
                server = free.pop()
            try:
                code, out, err = server.run(mutant.argv, limit)
                if code is None:
                    stray = server.kill()
                elif server.commands >= SERVER_COMMANDS:
                    stray = server.close()
            finally:
                with lock:
                    free.append(server)
        seconds = time.monotonic() - began
        failures = check(code, out, err, limit)
        after = _digests(folder) if folder.exists() else {}
        changed = sorted(name for name, digest in digests.items() if after.get(name) != digest)
        if changed:
            failures.append(f"input changed or removed: {', '.join(changed[:5])}")
        if stray:
            failures.append(f"process(es) left behind: {'; '.join(stray[:3])}")
        return Result(mutant, code, round(seconds, 2), out, err, failures)

    executor = concurrent.futures.ThreadPoolExecutor(jobs)
    try:
        futures = [executor.submit(one, i) for i in (only if only is not None else range(count))]
        for done_count, future in enumerate(concurrent.futures.as_completed(futures), 1):
            result = future.result()
            results.append(result)
            if sink:
                sink.write(json.dumps(_result_json(result)) + "\n")
                sink.flush()
            if progress:
                mark = "FAIL " + "; ".join(result.failures) if result.failures else ""
                print(f"[{done_count}/{len(futures)}] #{result.mutant.index} {result.mutant.kind} {result.mutant.mode}/"
                      f"{result.mutant.process} exit {result.exit} {result.seconds:.1f}s {mark}", flush=True)
    except BaseException:  # interrupted: what runs now is killed, what waits is never started
        for process in list(_FRESH):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        for server in servers:
            server.kill()
        raise
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
        for server in servers:
            left = server.close()
            if left:
                stray_servers.append(f"{server.name}: {'; '.join(left[:3])}")
        if sink:
            sink.close()
        shutil.rmtree(work, ignore_errors=True)
    after = {f"{folder.name}/{name}": digest for folder in folders for name, digest in _digests(folder).items()}
    corpus_changed = sorted(name for name, digest in before.items() if after.get(name) != digest)
    results.sort(key=lambda r: r.mutant.index)
    return Summary(seed, count, jobs, results, skipped, len({r.mutant.case for r in results}), len(pool),
                   time.monotonic() - start, corpus_changed, stray_servers)


def _result_json(result: Result) -> dict:
    doc = asdict(result)
    if not result.failures:  # the output of a mutant that behaved is not needed
        doc["stdout"], doc["stderr"] = doc["stdout"][-300:], doc["stderr"][-300:]
    return doc


def _keep(result: Result, work: Path) -> None:
    """A failing mutant's folder and outcome, under .cache/fuzz/failures/, to reproduce it."""
    kept = WORK / "failures" / f"{work.name}-m{result.mutant.index:05d}"
    shutil.rmtree(kept, ignore_errors=True)
    kept.mkdir(parents=True)
    folder = Path(result.mutant.folder)
    if folder.exists():
        shutil.copytree(folder, kept / folder.name, ignore=shutil.ignore_patterns("__pycache__"))
    (kept / "result.json").write_text(json.dumps(asdict(result), indent=2))


def failures(summary: Summary) -> list[tuple[Mutant | None, str]]:
    """Every failure of the run: per mutant, and the run's own (corpus changed, stray servers)."""
    found: list[tuple[Mutant | None, str]] = [(r.mutant, f) for r in summary.results for f in r.failures]
    found += [(None, f"corpus file changed: {name}") for name in summary.corpus_changed]
    found += [(None, f"left behind by a server: {s}") for s in summary.stray_servers]
    return found


def markdown(summary: Summary, command: str) -> str:
    """docs/fuzz.md: what was mutated, how many per kind and mode, the exit codes, the failures."""
    results = summary.results
    codes = Counter("hang" if r.exit is None else str(r.exit) for r in results)
    failed = failures(summary)
    per_kind: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        per_kind[r.mutant.kind]["n"] += 1
        per_kind[r.mutant.kind]["hang" if r.exit is None else str(r.exit)] += 1
        per_kind[r.mutant.kind]["failed"] += bool(r.failures)
    modes = Counter(f"{r.mutant.mode}, {r.mutant.process}" for r in results)
    roles = Counter(r.mutant.role for r in results)
    seconds = sorted(r.seconds for r in results) or [0.0]
    exit2 = [r for r in results if r.exit == 2]
    with_line = sum(named_line(r.stderr + "\n" + r.stdout) for r in exit2)
    with_option = sum(not named_line(r.stderr + "\n" + r.stdout) and names_option(r.stderr) for r in exit2)
    lines = [
        "# Fuzzing lowercheck's input handling",
        "",
        "Written by `make fuzz` (`lowercheck/fuzz.py`, which says how mutants are made and checked); do not edit by hand.",
        "",
        f"- command: `{command}`",
        f"- seed {summary.seed}, {summary.count} mutants, {summary.jobs} at a time, on a "
        f"{os.cpu_count()}-core {platform.machine()} machine (Python {platform.python_version()})",
        f"- wall time: {summary.wall_s / 60:.1f} min ({summary.wall_s:.0f} s); per mutant: median "
        f"{seconds[len(seconds) // 2]:.1f} s, slowest {seconds[-1]:.1f} s",
        f"- corpus pairs mutated: {summary.cases_used} of the {summary.cases_total} whose sides are files of their "
        f"folder ({len(summary.skipped)} pairs with a pinned package's file left out: they need a download)",
        f"- **failures: {len(failed)}** (tracebacks {_count(failed, 'traceback')}, internal errors "
        f"{_count(failed, 'internal error')}, hangs {_count(failed, 'a hang')}, exits outside 0-3 "
        f"{_count(failed, 'outside 0-3')}, exit 2 without file:line {_count(failed, 'without a file:line')}, "
        f"inputs changed {_count(failed, 'changed')}, processes left behind {_count(failed, 'left behind')}, "
        f"BOM/CRLF changing the verdict {_count(failed, 'unmutated')})",
        "- exit codes: " + ", ".join(f"{k}: {codes[k]}" for k in ("0", "1", "2", "3", "hang") if codes[k])
        + f"; of the {len(exit2)} exits 2, {with_line} name a file:line, {with_option} a command-line option "
        f"(`bad --size n=-1`: no file to point into), {len(exit2) - with_line - with_option} neither",
        "- modes: " + ", ".join(f"{k}: {v}" for k, v in sorted(modes.items())),
        "- file mutated: " + ", ".join(f"{k}: {v}" for k, v in sorted(roles.items())),
        "",
        "| mutation | mutants | exit 0 | exit 1 | exit 2 | exit 3 | hang | failed |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for kind in KINDS:
        c = per_kind.get(kind, Counter())
        lines.append(f"| {kind} | {c['n']} | {c['0']} | {c['1']} | {c['2']} | {c['3']} | {c['hang']} | {c['failed']} |")
    lines += ["", "## Failures", ""]
    if not failed:
        lines.append("None.")
    for result in [r for r in results if r.failures][:200]:
        mutant = result.mutant
        said = next((line.strip().replace("`", "'") for line in (result.stderr + "\n" + result.stdout).splitlines()
                     if "error" in line),
                    "")
        lines.append(f"- #{mutant.index} {mutant.case}, {mutant.kind} ({mutant.what}), {mutant.mode}/{mutant.process}: "
                     f"{'; '.join(result.failures)}" + (f" (`{said[:300]}`)" if said else ""))
    lines += [f"- the run: {text}" for mutant, text in failed if mutant is None]
    lines += ["", "## Pairs left out", ""] + [f"- {label}" for label in summary.skipped]
    return "\n".join(lines) + "\n"


def _count(failed: list[tuple[Mutant | None, str]], needle: str) -> int:
    return sum(needle in text for _, text in failed)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lowercheck.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--out", help="write the summary as Markdown (docs/fuzz.md)")
    parser.add_argument("--log", help="each mutant's result as a JSON line (default: .cache/fuzz/last.jsonl)")
    parser.add_argument("--run-share", type=float, default=RUN_SHARE,
                        help=f"of the mutants of run cases, the share diffed with runs (default {RUN_SHARE})")
    parser.add_argument("--fresh-share", type=float, default=FRESH_SHARE,
                        help=f"the share of mutants in a fresh process instead of the server (default {FRESH_SHARE})")
    parser.add_argument("--only", help="only these mutants (comma-separated indices): to reproduce a failure")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return serve()
    if args.count < 1 or args.jobs < 1:
        parser.error("--count and -j must be at least 1")
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    signal.signal(signal.SIGTERM, _interrupt)  # `kill PID` of a run in the background ends it cleanly too
    log = Path(args.log) if args.log else WORK / "last.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    only = [int(i) for i in args.only.split(",")] if args.only else None
    try:
        summary = fuzz(args.seed, args.count, args.jobs, progress=True, log=log, only=only,
                       run_share=args.run_share, fresh_share=args.fresh_share)
    except KeyboardInterrupt:
        print(f"interrupted: the results so far are in {log}", file=sys.stderr)
        return 130
    command = f"python -m lowercheck.fuzz --seed {args.seed} --count {args.count} -j {args.jobs}"
    command += "".join(f" --{name.replace('_', '-')} {value}" for name, value, default in
                       (("run_share", args.run_share, RUN_SHARE), ("fresh_share", args.fresh_share, FRESH_SHARE))
                       if value != default)
    text = markdown(summary, command)
    if args.out:
        Path(args.out).write_text(text)
    failed = failures(summary)
    print(f"{len(summary.results)} mutants in {summary.wall_s:.0f} s: {len(failed)} failure(s)")
    for mutant, message in failed[:50]:
        print(f"  #{mutant.index if mutant else '-'} {mutant.kind if mutant else ''}: {message}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
