"""The real-world suite: `lowercheck lower` on kernels as their authors published them.

    python -m lowercheck.realworld [-j N] [--timeout S] [--memory-mb MB] [--only TEXT] [--out FILE]

Packages that ship real kernel source are installed, pinned by version, into `.cache/realworld`
inside the checkout (never into the venv, never into ~), and nothing of theirs is copied into this
repository: `PACKAGES` says what is fetched and where its kernels lie; the only kernel files of our
own are the small launchers under `tests/realworld/` (`WRAPPERS`), which import a kernel from an
installed file (by its path in `.cache/realworld`) and launch it as the library's own launcher does
for one common configuration, where that launcher takes arguments `lower` cannot guess (a mode
string, a flag, group counts); a `NAME.toml` beside one is its spec.

Each file's entries (host launchers, Python functions that launch a kernel) are listed in a child
process; each entry is then lowered by `lowercheck lower FILE:ENTRY --emit access` in its own
process with a time limit and an address-space limit, N at a time, and classified (`classify`):

- `clean`: exit 0 and no `access.unmodelled` in the access IR;
- `partly proved`: the same, but some access takes its index from loaded data (`access.indirect`:
  a gather, an embedding lookup) or happens under a condition on it (`data_condition`): modelled
  as such, bounds-checked by the runs, every other access fully checked. Counted as lowered;
- `unmodelled`: exit 0, but some access is `access.unmodelled` (its reason is the construct);
- `LC901`: exit 3, an unsupported construct (the message and its file:line);
- `error`: exit 2, a user-level error (file not found, no entry, the user's code raised);
- `crash`: an internal error, a traceback, or a death by signal;
- `timeout`: still running at the time limit;
- `no launcher`: a file with kernels but no entry lowercheck can call (a row for the file).

Kernels that include CUTLASS, CuTe or CUB headers are a group of their own, outside the percentage.
`docs/realworld.md` (`make realworld`) is the report: one row per entry, totals per language, the
pinned versions, the most common constructs, and the wall time of the run.
"""

from __future__ import annotations

import argparse
import compileall
import concurrent.futures
import fcntl
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lowercheck.errors import UserError
from lowercheck.lowering import COMPARED_LINE, NOT_EXACT, OBSERVED_LINE

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / ".cache" / "realworld"
WRAPPERS = REPO / "tests" / "realworld"
SPECS = WRAPPERS / "specs"  # our specs for entries of installed files, by their shown path

LOWERED = ("clean", "partly proved")
RESULTS = ("clean", "partly proved", "unmodelled", "LC901", "error", "crash", "timeout", "no launcher")
# A kernel built on these template libraries is counted apart (lowercheck does not model them).
TEMPLATE_LIBRARY = re.compile(r"#\s*include\s*[<\"](cutlass|cute|cub)/|\b(cutlass|cute|cub)::|\bCutlass[A-Z]\w*")
_LOCAL_INCLUDE = re.compile(r'#\s*include\s*"([^"]+)"')


@dataclass(frozen=True)
class Package:
    """A pinned distribution with kernel sources: how pip fetches it and which files are kernels."""

    name: str  # the distribution's name on PyPI
    version: str
    kind: str  # "sdist" (unpacked tar.gz), "wheel" (unpacked as a zip, never installed) or "venv"
    language: str  # the language of its kernels, as `lowercheck.frontends.language_of` names it
    patterns: tuple[str, ...]  # glob patterns of kernel files, relative to the unpacked root
    marker: str  # a regular expression a kernel file contains (files without it are helpers)
    skip: tuple[str, ...] = ()  # glob patterns of files left out (with the reason in `note`)
    note: str = ""
    # Files that define no kernel but launch the package's kernels (`_jsd_kernel[(BT,)](...)` in a
    # backend module that imports it): their launchers are rows too.
    launchers: tuple[str, ...] = ()

    @property
    def folder(self) -> Path:
        """Where the unpacked package lies (for "venv", the installed package inside the venv)."""
        if self.kind == "venv":
            import importlib.util

            spec = importlib.util.find_spec(self.name)
            assert spec is not None and spec.origin is not None, f"{self.name} is not installed in the venv"
            return Path(spec.origin).parent
        return CACHE / f"{self.name.replace('-', '_')}-{self.version}"


PACKAGES: tuple[Package, ...] = (
    Package("deepspeed", "0.19.8", "sdist", "cuda",
            ("csrc/**/*.cu", "deepspeed/inference/v2/**/*.cu"), r"__global__|<<<|multi_tensor_apply|Cutlass",
            skip=("deepspeed/ops/csrc/**",),
            note="`deepspeed/ops/csrc/` is a byte-for-byte copy of `csrc/` in the sdist and is left out"),
    Package("liger-kernel", "0.8.5", "wheel", "triton",
            ("liger_kernel/ops/*.py", "liger_kernel/ops/experimental/*.py"), r"@triton\.jit",
            note="`liger_kernel/ops/backends/_ascend/` (the same kernels for Ascend NPUs) is left out",
            launchers=("liger_kernel/ops/*.py", "liger_kernel/ops/backends/_triton/*.py")),
    Package("jax", "0.10.2", "venv", "pallas",
            ("experimental/pallas/ops/**/*.py",), r"pallas_call|plgpu\.kernel|pl\.kernel|pl\.core_map"),
)


class Unreachable(Exception):
    """PyPI could not be reached to fetch a pinned package (the suite cannot run here)."""


# ---------------------------------------------------------------------------------------------
# Installing


def install(packages: tuple[Package, ...] = PACKAGES, quiet: bool = True) -> None:
    """Fetch and unpack every package that is not in `.cache/realworld` yet (idempotent). The venv's
    pip downloads it with `--no-deps` (an sdist with `--no-binary :all:`); it is never installed.
    Processes that install at once (two xdist workers, the suite beside the tests) take turns."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for package in packages:
            _install_one(package, quiet)


def _install_one(package: Package, quiet: bool) -> None:
    if package.kind == "venv":
        _check_venv_version(package)
        return
    done = package.folder / ".unpacked"
    if done.exists():
        return
    downloads = CACHE / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    archive = _download(package, downloads, quiet)
    tmp = Path(tempfile.mkdtemp(prefix=f"{package.folder.name}.", suffix=".tmp", dir=CACHE))
    tmp.chmod(0o755)  # mkdtemp's 0700 would hide the package from anyone but its installer
    if package.kind == "sdist":
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        (top,) = list(tmp.iterdir())  # an sdist holds one folder, NAME-VERSION/
        shutil.rmtree(package.folder, ignore_errors=True)
        top.rename(package.folder)
        tmp.rmdir()
    else:
        with zipfile.ZipFile(archive) as wheel:
            wheel.extractall(tmp)
        shutil.rmtree(package.folder, ignore_errors=True)
        tmp.rename(package.folder)
        # Byte-compiled once, as pip compiles a wheel it installs: its modules are imported by
        # sandboxed children, which may not write __pycache__ (liger's import: 0.17 s less each time).
        compileall.compile_dir(package.folder, quiet=2)
    done.write_text(f"{package.name}=={package.version} from {archive.name}\n")


def _download(package: Package, downloads: Path, quiet: bool) -> Path:
    stem = package.name.replace("-", "_")
    suffix = ".tar.gz" if package.kind == "sdist" else ".whl"
    found = [p for p in downloads.iterdir() if p.name.lower().startswith(f"{stem}-{package.version}".lower())
             and p.name.endswith(suffix)]
    if found:
        return found[0]
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
               "--retries", "1", "--timeout", "20",
               "-d", str(downloads), f"{package.name}=={package.version}"]
    command += ["--no-binary", ":all:"] if package.kind == "sdist" else ["--only-binary", ":all:"]
    if not quiet:
        print(f"fetching {package.name}=={package.version} ({package.kind})", file=sys.stderr)
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    found = [p for p in downloads.iterdir() if p.name.lower().startswith(f"{stem}-{package.version}".lower())
             and p.name.endswith(suffix)]
    if done.returncode != 0 or not found:
        raise Unreachable(f"pip download {package.name}=={package.version} failed: "
                          f"{(done.stderr or done.stdout).strip().splitlines()[-1:] or ['no output']}")
    return found[0]


def _check_venv_version(package: Package) -> None:
    from importlib.metadata import version

    installed = version(package.name)
    if installed != package.version:
        raise RuntimeError(f"the suite is pinned to {package.name}=={package.version}; the venv has {installed}")


def installed(name: str) -> Path:
    """The unpacked root of the pinned package `name` (for our wrappers: the folder to import from)."""
    (package,) = [p for p in PACKAGES if p.name == name]
    return package.folder


# ---------------------------------------------------------------------------------------------
# Naming installed files (the real pairs of corpus/realpairs)

REFERENCE = "realworld:"  # `realworld:PACKAGE/PATH[:ENTRY]`: a file of a pinned package, as installed
EDITED = "_lcedit_"  # in the name of an edited copy: `rms_norm_lcedit_1a2b3c4d.py` (never a kernel file)


def resolve(reference: str) -> str:
    """The path (with its `:ENTRY`, if any) of `realworld:PACKAGE/PATH[:ENTRY]`, the package
    installed first; any other string is returned as it is."""
    if not reference.startswith(REFERENCE):
        return reference
    name, _, rest = reference[len(REFERENCE):].partition("/")
    path, _, entry = rest.partition(":")
    if name not in {p.name for p in PACKAGES}:
        raise UserError(f"`{reference}` names no package of the real-world suite",
                        hint=f"one of: {', '.join(p.name for p in PACKAGES)}")
    install(tuple(p for p in PACKAGES if p.name == name))
    file = installed(name) / path
    if not file.is_file():
        raise UserError(f"`{reference}`: {path} is not in {name}", hint=f"look under {installed(name)}")
    return str(file) + (f":{entry}" if entry else "")


def edited_copy(path: str, old: str, new: str, line: int | None = None) -> str:
    """A copy of the file `path` (`:ENTRY` kept) with `old` replaced by `new` where it occurs once
    (in the file, or on line `line`), written beside it, so that its includes and its package's
    imports resolve as the original's do. The file itself is never changed."""
    file_text, _, entry = (path, "", "") if Path(path).is_file() else path.rpartition(":")
    file = Path(file_text)
    lines = file.read_text().splitlines(keepends=True)
    where = [line - 1] if line is not None else range(len(lines))
    found = [i for i in where if 0 <= i < len(lines) for _ in range(lines[i].count(old))]
    if len(found) != 1 or "\n" in old or "\n" in new:
        place = f"line {line}" if line is not None else file.name
        raise UserError(f"an edit of {file.name} replaces a fragment of one line found exactly once; "
                        f"`{old}` is found {len(found)} times in {place}",
                        hint="quote more of the line, or give its number (`line = N`)")
    lines[found[0]] = lines[found[0]].replace(old, new)
    edited = "".join(lines)
    digest = hashlib.sha256(f"{found[0]}\0{old}\0{new}".encode()).hexdigest()[:8]
    copy = file.with_name(f"{file.stem}{EDITED}{digest}{file.suffix}")
    if not copy.exists() or copy.read_text() != edited:
        copy.write_text(edited)
    return str(copy) + (f":{entry}" if entry else "")


# ---------------------------------------------------------------------------------------------
# Finding the kernels


@dataclass(frozen=True)
class KernelFile:
    package: str
    language: str
    path: Path
    template_library: bool  # includes CUTLASS / CuTe / CUB
    wrapper: bool = False  # one of ours, under tests/realworld/

    def spec(self, entry: str | None) -> Path | None:
        """Our spec for one entry (dtypes, shapes and values `lower` cannot guess): beside one of our
        wrappers (`NAME.toml`), or, for an entry of an installed file, `SPECS/<shown path without
        .py>.<entry>.toml` (`SPECS/liger-kernel/liger_kernel/ops/rms_norm.rms_norm_forward.toml`)."""
        if self.wrapper:
            spec = self.path.with_suffix(".toml")
        elif entry is not None:
            spec = SPECS / f"{Path(self.shown).with_suffix('')}.{entry}.toml"
        else:
            return None
        return spec if spec.is_file() else None

    @property
    def shown(self) -> str:
        """The path as the report shows it: inside its package (or the repository, for a wrapper)."""
        if self.wrapper:
            return str(self.path.relative_to(REPO))
        package = next(p for p in PACKAGES if p.name == self.package)
        return f"{self.package}/{self.path.relative_to(package.folder)}"


def kernel_files(packages: tuple[Package, ...] = PACKAGES, wrappers: bool = True) -> list[KernelFile]:
    """Every kernel file of the installed packages (a content-identical copy once), then our wrappers."""
    files: list[KernelFile] = []
    seen: set[str] = set()
    for package in packages:
        root = package.folder
        marker = re.compile(package.marker)
        headers: dict[str, list[Path]] = {}  # a header's name -> the package's files of that name
        for header in root.rglob("*"):
            if header.suffix in (".h", ".cuh", ".hpp") and header.is_file():
                headers.setdefault(header.name, []).append(header)
        # kernel files first (they define kernels), then files that only launch the package's kernels
        kernels = sorted({p for pattern in package.patterns for p in root.glob(pattern) if p.is_file()})
        launchers = sorted({p for pattern in package.launchers for p in root.glob(pattern) if p.is_file()})
        for path, defines in [(p, True) for p in kernels] + [(p, False) for p in launchers]:
            relative = path.relative_to(root)
            if path.name == "__init__.py" or EDITED in path.name or any(relative.match(s) or str(relative).startswith(s.rstrip("*"))
                                                 for s in package.skip):
                continue
            text = path.read_text(errors="replace")
            digest = hashlib.sha256(text.encode()).hexdigest()
            library = defines and ("cutlass" in str(relative).lower() or _uses_template_library(path, headers))
            wanted = (marker.search(text) or library) if defines else _LAUNCH.search(text)
            if not wanted or digest in seen:
                continue
            seen.add(digest)
            files.append(KernelFile(package.name, package.language, path, library))
    if wrappers and WRAPPERS.is_dir():
        from lowercheck.frontends import language_of

        for path in sorted(WRAPPERS.glob("*.py")):
            files.append(KernelFile(_wrapped_package(path), language_of(str(path)), path, False, wrapper=True))
    return files


def _uses_template_library(path: Path, headers: dict[str, list[Path]]) -> bool:
    """Whether the file, or a header of its package that it includes (transitively, matched by name
    as the build's include folders would find it), uses CUTLASS, CuTe or CUB."""
    seen: set[Path] = set()
    todo = [path]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        text = current.read_text(errors="replace")
        if TEMPLATE_LIBRARY.search(text):
            return True
        for name in _LOCAL_INCLUDE.findall(text):
            todo += headers.get(Path(name).name, [])
    return False


def _wrapped_package(path: Path) -> str:
    text = path.read_text()
    return next((p.name for p in PACKAGES if p.name in text), "ours")


# ---------------------------------------------------------------------------------------------
# Running


@dataclass
class Row:
    """One entry lowered (or one file that could not be listed / has no launcher)."""

    package: str
    language: str
    file: str  # as shown in the report
    line: int
    entry: str | None
    launches: list[str]
    template_library: bool
    wrapper: bool
    result: str = ""  # one of RESULTS
    construct: str = ""  # the LC901 message, the unmodelled reason, or the error message
    where: str = ""  # file:line of that construct, inside its package where it lies there
    seconds: float = 0.0
    definitions: int = 0  # kernel definitions in the file (`__global__`, `@triton.jit`, `pallas_call`)
    spec: bool = False  # lowered with a spec of ours (tests/realworld/specs/)
    defined: list[str] = field(default_factory=list)  # a file with no launcher: the kernels it defines
    # Outputs with a dependence map in `lower --emit access`'s words, and why each of them that is
    # not exact on some input is not (what `diff` would leave "not compared": LC204).
    dependences: int = 0
    dependence_gaps: list[str] = field(default_factory=list)
    # Of those not exact, the outputs whose maps `lower --observe` observed in runs (what `diff`
    # then compares, "observed"); the rest stay "not compared".
    observed: int = 0


_DEFINITION = re.compile(r"__global__|@triton\.jit|\bpallas_call\(|plgpu\.kernel\(")
_LAUNCH = re.compile(r"\b\w+\[[^\]\n]+\]\(")  # `kernel[grid](`: a Triton launch


def environment() -> dict[str, str]:
    """The children's environment: caches inside the checkout (as the Makefile sets them), the
    unpacked wheels importable (their modules import their own package), tracebacks on."""
    env = dict(os.environ)
    cache = REPO / ".cache"
    env.setdefault("TRITON_CACHE_DIR", str(cache / "triton"))
    env.setdefault("TRITON_HOME", str(cache / "triton-home"))
    env.setdefault("JAX_COMPILATION_CACHE_DIR", str(cache / "jax"))
    env.setdefault("XDG_CACHE_HOME", str(cache / "xdg"))
    env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    env["LOWERCHECK_DEBUG"] = "1"
    roots = [str(p.folder) for p in PACKAGES if p.kind == "wheel"]
    env["PYTHONPATH"] = os.pathsep.join(roots + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def _run(command: list[str], timeout_s: float, memory_mb: int | None) -> tuple[int | None, str, str, float]:
    """(exit code or None on timeout, stdout, stderr, seconds) of a child in its own process group
    (the front ends' workers die with it) under an address-space limit."""

    def limit() -> None:
        if memory_mb:
            resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    start = time.monotonic()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=environment(), cwd=REPO, start_new_session=True, preexec_fn=limit)
    try:
        out, err = child.communicate(timeout=timeout_s)
        code: int | None = child.returncode
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        out, err = child.communicate()
        code = None
    finally:
        try:
            os.killpg(child.pid, signal.SIGKILL)  # workers left behind by a child that exited
        except ProcessLookupError:
            pass
    return code, out, err, time.monotonic() - start


def list_entries(path: str) -> dict[str, object]:
    """The entries of one file, as JSON-able data (runs in the child of `python -m ... --entries`)."""
    from lowercheck.errors import LowercheckError
    from lowercheck.frontends import frontend_for, stop_workers

    try:
        candidates = frontend_for(path).entries(path)
        return {"entries": [{"name": c.name, "line": c.location.line, "launches": list(c.launches), "kernel": c.kernel}
                            for c in candidates if c.chosen_unnamed or c.kernel]}  # a template: its default instance
    except LowercheckError as err:
        return {"error": err.render(), "exit": err.exit_code}
    finally:
        stop_workers()


_LOCATED = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+)(?::\d+)?: (?:\[\w+\] )?(?P<kind>error|inconclusive)"
                      r"(?:\[(?P<code>LC\d+)\])?: (?P<message>.*)$")
_PLAIN = re.compile(r"^(?:\[\w+\] )?(?P<kind>error|inconclusive)(?:\[(?P<code>LC\d+)\])?: (?P<message>.*)$")
_UNMODELLED = re.compile(r'access\.unmodelled \{[^}]*reason = "(?P<reason>(?:[^"\\]|\\.)*)"[^}]*\}'
                         r'(?: loc\("(?P<file>[^"]*)":(?P<line>\d+):\d+\))?')


def classify(code: int | None, stdout: str, stderr: str) -> tuple[str, str, str]:
    """(result, construct, file:line) of one `lowercheck lower --emit access` run."""
    if code is None:
        return "timeout", "", ""
    if "Traceback (most recent call last)" in stderr or "internal error in lowercheck" in stderr:
        return "crash", _crash_summary(stderr), _crash_where(stderr)
    reasons = [m for m in _UNMODELLED.finditer(stdout)] if code in (0, 3) else []
    if code == 0 and not reasons and "access.kernel @" not in stdout:  # checks nothing: never "clean"
        return "unmodelled", "the entry as lowered launches no kernel", ""
    if code == 0 and not reasons:
        return ("partly proved", "", "") if "note: partly proved" in stderr else ("clean", "", "")
    if reasons:  # `lower` printed the access IR and exits 3 for its unmodelled accesses: the first one says why
        first = reasons[0]
        where = f"{first['file']}:{first['line']}" if first["file"] else ""
        return "unmodelled", _unescape(first["reason"]), where
    message, where = _message(stderr)
    if code == 3:
        return "LC901", message, where
    if code == 2:
        return "error", message, where
    return "crash", f"exit {code}" + (f" (signal {-code})" if code < 0 else "") + (f": {message}" if message else ""), where


_DEPENDENCE = re.compile(r"^//   (?:(?P<out>\w+)\[[^\]]*\] reads |(?P<inexact>\w+) on [^:]+: " + NOT_EXACT + ")")


def dependence_counts(stdout: str) -> tuple[int, int]:
    """(outputs with a dependence map, those not exact on some input) from the `// dependences:`
    lines of `lower --emit access`."""
    seen: dict[str, bool] = {}
    inside = False
    for line in stdout.splitlines():
        if line.startswith("// dependences:"):
            inside = True
            continue
        if inside and (m := _DEPENDENCE.match(line)):
            name = m["out"] or m["inexact"]
            seen[name] = seen.get(name, False) or m["inexact"] is not None
        elif inside and not line.startswith("//   "):
            inside = False
    return len(seen), sum(seen.values())


_GAP = re.compile(r"^//   (?P<out>\w+) on [^:]+: " + NOT_EXACT + r" \((?P<why>.*)\): `diff`")


def inexact_outputs(stdout: str) -> list[str]:
    """The outputs whose dependence map is not exact on some input, in order."""
    return list(dict.fromkeys(m["out"] for line in stdout.splitlines() if (m := _GAP.match(line))))


_OBSERVED = re.compile(r"^(?:" + re.escape(OBSERVED_LINE) + r"(?P<out>\w+)(?:\[| does not change)|"
                       + re.escape(COMPARED_LINE) + r"(?P<compared>\w+) )")


def observed_outputs(stdout: str) -> set[str]:
    """The outputs `lower --observe` observed in runs (`//   observed: return0[i0] changes with ...`),
    or whose maps `diff`'s static checks composed where `lower`'s budget ran out (`//   compared: `)."""
    return {m["out"] or m["compared"] for line in stdout.splitlines() if (m := _OBSERVED.match(line))}


def dependence_gaps(stdout: str) -> list[str]:
    """Why each output that is not exact is not (its first input's reason, locations and names
    left out so that one cause reads the same in every file)."""
    found: dict[str, str] = {}
    for line in stdout.splitlines():
        if m := _GAP.match(line):
            why = re.sub(r"\S+:\d+:\d+", "FILE:LINE", m["why"])
            found.setdefault(m["out"], re.sub(r"`[^`]*`", "`...`", why))
    return list(found.values())


def _message(stderr: str) -> tuple[str, str]:
    for line in stderr.splitlines():
        if m := _LOCATED.match(line):
            return m["message"].strip(), f"{m['file']}:{m['line']}"
        if m := _PLAIN.match(line):
            return m["message"].strip(), ""
    lines = [line for line in stderr.splitlines() if line.strip()]
    return (lines[-1].strip() if lines else "no message"), ""


def _crash_summary(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    internal = [line for line in lines if line.startswith("error: internal error in lowercheck")]
    if internal:
        return internal[0].removeprefix("error: internal error in lowercheck: ")
    return lines[-1] if lines else "traceback"


def _crash_where(stderr: str) -> str:
    """The innermost frame of lowercheck's own code in the traceback (where the bug is)."""
    frames = re.findall(r'File "([^"]+)", line (\d+)', stderr)
    ours = [(f, n) for f, n in frames if "/lowercheck/" in f or "/dialects/" in f or "/passes/" in f]
    if not ours:
        return ""
    file, line = ours[-1]
    return f"{Path(file).relative_to(REPO) if file.startswith(str(REPO)) else file}:{line}"


def _unescape(text: str) -> str:
    return text.replace('\\"', '"').replace("\\\\", "\\")


def _shown_where(where: str, file: KernelFile) -> str:
    """A location inside an installed package, shown relative to it (full paths are long)."""
    if not where:
        return ""
    path, _, line = where.rpartition(":")
    for package in PACKAGES:
        try:
            return f"{package.name}/{Path(path).resolve().relative_to(package.folder.resolve())}:{line}"
        except ValueError:
            continue
    try:
        return f"{Path(path).resolve().relative_to(REPO)}:{line}"
    except ValueError:
        return where


def _lower_row(file: KernelFile, row: Row, timeout_s: float, memory_mb: int | None) -> Row:
    code, out, err, seconds = _run([sys.executable, "-m", "lowercheck", *lower_arguments(file, row.entry)],
                                   timeout_s, memory_mb)
    if code is None:  # the observation's runs must not turn a row that lowers into a timeout
        code, out, err, more = _run([sys.executable, "-m", "lowercheck",
                                     *lower_arguments(file, row.entry, observe=False)], timeout_s, memory_mb)
        seconds += more
    row.result, construct, where = classify(code, out, err)
    if row.result in LOWERED:
        row.dependences, _ = dependence_counts(out)
        row.dependence_gaps = dependence_gaps(out)
        row.observed = len(observed_outputs(out) & set(inexact_outputs(out)))
    row.construct, row.where, row.seconds = _strip_paths(construct), _shown_where(where, file), round(seconds, 1)
    return row


def lower_arguments(file: KernelFile, entry: str | None, observe: bool = True) -> list[str]:
    """`lowercheck lower FILE[:ENTRY] --emit access [--observe] [--spec OURS.toml]` for one row."""
    spec = ["--spec", str(file.spec(entry))] if file.spec(entry) else []
    return ["lower", f"{file.path}:{entry}" if entry else str(file.path), "--emit", "access",
            *(["--observe"] if observe else []), *spec]


def _strip_paths(text: str) -> str:
    """Messages name installed files by their full path; the report names them inside the package."""
    for package in PACKAGES:
        text = text.replace(str(package.folder) + "/", f"{package.name}/")
    return text.replace(str(REPO) + "/", "")


def _file_rows(file: KernelFile, timeout_s: float, memory_mb: int | None) -> list[Row]:
    """The rows of one file: one per entry, or one for the file when it has none or cannot be read."""
    base = dict(package=file.package, language=file.language, file=file.shown, template_library=file.template_library,
                wrapper=file.wrapper, definitions=len(_DEFINITION.findall(file.path.read_text(errors="replace"))))
    code, out, err, seconds = _run([sys.executable, "-m", "lowercheck.realworld", "--entries", str(file.path)],
                                   timeout_s, memory_mb)
    listing = None
    if code == 0:
        try:
            listing = json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            listing = None
    if listing is None:  # the listing itself crashed or hung: a row for the file
        result, construct, where = classify(code if code != 0 else 1, out, err)
        return [Row(**base, line=1, entry=None, launches=[], result=result, construct=_strip_paths(construct),
                    where=_shown_where(where, file), seconds=round(seconds, 1))]
    if "error" in listing:  # the file cannot be parsed or imported: lower it whole for the message
        return [Row(**base, line=1, entry=None, launches=[])]
    # A kernel is a row of its own only where a spec of ours launches it (`[launch] grid`): the
    # library's kernels that its own launchers in other files (a dispatcher) launch.
    entries = [e for e in listing["entries"] if not e.get("kernel") or (not file.wrapper and file.spec(e["name"]))]
    if not entries:
        return [Row(**base, line=1, entry=None, launches=[], result="no launcher",
                    construct="no function of the file that lowercheck can call launches its kernels",
                    defined=[e["name"] for e in listing["entries"] if e.get("kernel")])]
    rows: dict[str, Row] = {}  # overloads share a name, and `lower FILE:NAME` lowers one of them: one row
    for e in entries:
        if e["name"] in rows:
            rows[e["name"]].launches = list(dict.fromkeys(rows[e["name"]].launches + e["launches"]))
        else:
            rows[e["name"]] = Row(**base, line=e["line"], entry=e["name"], launches=e["launches"],
                                  spec=file.spec(e["name"]) is not None and not file.wrapper)
    return list(rows.values())


def _launched_elsewhere(listed: list[list[Row]]) -> list[list[Row]]:
    """Without the `no launcher` row of a file whose kernels the package's other entries launch
    (liger's `utils.py`, whose `element_mul_kernel` the cross-entropy launchers launch; a kernel
    file beside the module that launches its kernels): those entries' rows lower its kernels (a
    kernel no entry launches, a `@triton.jit` helper or a backward, has no row either way)."""
    launched: dict[str, set[str]] = {}
    for rows in listed:
        for row in rows:
            launched.setdefault(row.package, set()).update(row.launches)
    return [[row for row in rows if not (row.result == "no launcher" and set(row.defined) & launched.get(row.package, set()))]
            for rows in listed]


def run(files: list[KernelFile], jobs: int = 1, timeout_s: float = 120, memory_mb: int | None = 8192,
        progress: bool = True) -> list[Row]:
    """Every file's rows, listed and lowered `jobs` at a time."""
    def listing(file: KernelFile) -> list[Row]:
        rows = _file_rows(file, timeout_s, memory_mb)
        if progress:
            print(f"listed {file.shown}: {', '.join(r.entry or r.result or 'whole file' for r in rows)}",
                  file=sys.stderr, flush=True)
        return rows

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        listed = _launched_elsewhere(list(pool.map(listing, files)))
        work = [(file, row) for file, rows in zip(files, listed, strict=True) for row in rows if not row.result]
        futures = [pool.submit(_lower_row, file, row, timeout_s, memory_mb) for file, row in work]
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            row = future.result()
            if progress:
                print(f"[{done}/{len(futures)}] {row.result:<10} {row.file}:{row.line} {row.entry or ''}"
                      f" {row.construct[:100]}", file=sys.stderr, flush=True)
    return [row for rows in listed for row in rows]


# ---------------------------------------------------------------------------------------------
# The report


# What stops a row, by the shape of its message (first match wins): the report's "causes" table.
CAUSES: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("", re.compile(r"launches a kernel on a mesh"),
     "Mosaic GPU's or the TPU's mesh kernel language (`plgpu.kernel`, `pl.core_map`): LC901 by design"),
    ("cuda", re.compile(r"is built on (CUTLASS|CuTe|CUB)"),
     "code built on CUTLASS, CuTe or CUB, whose templates lowercheck does not model: LC901 naming the library"),
    ("cuda", re.compile(r"\(and \d+ more error\(s\)\)|file not found|too many errors|unknown type name|"
                        r"undeclared identifier|no template named|no member named|no matching|shadows template"),
     "clang cannot parse what the launcher or its kernels use against lowercheck's CUDA model: CUDA, ATen or "
     "C++ library names it does not declare (`at::cuda::getCurrentDeviceProperties`, `c10::toString`), "
     "conversions between its half types, or project types"),
    ("", re.compile(r"^`\w+` raised |^`\w+` depends on tensor data|DataDependent|num_warps must be|"
                    r"the launcher raised"),
     "the launcher, called with the arguments `lower` assumes without a spec (every untyped parameter a "
     "float32[n] tensor unless it has a default) or with ours, raised or branched on data"),
    ("", re.compile(r"^Triton cannot compile|receives a tensor"),
     "Triton's compiler rejects the kernel as specialised for the arguments given"),
    ("", re.compile(r"ParseError"), "lowercheck cannot re-parse the TTIR Triton emitted"),
    ("", re.compile(r"loaded value|opaque|data-dependent|a loop-carried value", re.I),
     "an access whose index or condition comes from loaded data (a gather, an early return on a label, "
     "pages looked up in a table): unmodelled, the other accesses stay checked"),
    ("", re.compile(r"no function of the file"), "no launcher: the kernels are launched from another file or "
     "through a helper lowercheck does not follow"),
    ("", re.compile(r"inline assembly|__cvta_generic_to_shared|PTX"), "inline PTX other than memory moves"),
    ("cuda", re.compile(r"host launcher"), "a host launcher construct: a launch chosen by a flag no spec "
     "fixes, a parameter of a project type, a call in a launch expression"),
    ("", re.compile(r"is not supported|unsupported", re.I), "another unsupported construct (LC901)"),
)


def cause(row: Row) -> str:
    for language, pattern, text in CAUSES:
        if (not language or language == row.language) and pattern.search(row.construct):
            return text
    return "other"


def normalised(construct: str) -> str:
    """A message with what differs between files taken out, so that the same gap counts once:
    header names, paths, numbers and entry names."""
    text = re.sub(r"'[^']*\.(h|hpp|cuh)' file not found", "'<project header>' file not found", construct)
    text = re.sub(r"\S+/\S+\.(py|cu|cuh|h)\b", "<file>", text)
    text = re.sub(r"has several entry points: .*", "has several entry points", text)
    text = re.sub(r"FakeTensor\(.*?\)", "FakeTensor(...)", text)
    text = re.sub(r"^`\w+` raised ", "the launcher raised ", text)
    text = re.sub(r"`\w+` depends on tensor data", "the launcher depends on tensor data", text)
    text = re.sub(r"Triton cannot compile `\w+`", "Triton cannot compile the kernel", text)
    text = re.sub(r"\bs\d+\b", "sN", text)
    text = re.sub(r"\b\d+\b", "N", text)
    return text[:160]


def markdown(rows: list[Row], wall_s: float, jobs: int, timeout_s: float, memory_mb: int | None,
             finished: str | None = None) -> str:
    versions = ", ".join(f"`{p.name}=={p.version}`" + (" (the venv's own)" if p.kind == "venv" else f" ({p.kind})")
                         for p in PACKAGES)
    out = ["# The real-world suite", "",
           "`make realworld` (`python -m lowercheck.realworld`) runs `lowercheck lower FILE:ENTRY --emit access` on "
           "every kernel entry of pinned packages that ship real kernel source, as their authors wrote it "
           "(installed into `.cache/realworld`, never copied here). Generated: do not edit by hand.", "",
           f"- Pinned: {versions}.",
           f"- Wall time of this run: {wall_s:.0f} s ({jobs} at a time, {timeout_s:.0f} s and "
           f"{memory_mb or 'no'} MB address space per process), finished {finished or _now()}.",
           "- A row is one entry (a host launcher, or a Python function that launches a kernel); a file whose "
           "entries cannot be listed (it does not parse or import) or that has none is one row.",
           "- Results: " + "; ".join(f"`{r}`" for r in RESULTS) + " (see `lowercheck/realworld.py`). "
           "`clean` and `partly proved` count as lowered.",
           *[f"- {p.name}: {p.note}." for p in PACKAGES if p.note],
           "- Kernels that include CUTLASS, CuTe or CUB are counted in a group of their own, outside the percentage.",
           "- Rows marked *(ours)* are our own launchers (`tests/realworld/`): each imports a kernel from an installed "
           "file and launches it as the library's own launcher does for one common configuration; they are counted "
           "with their language.",
           "- Rows marked *(spec)* lower the library's own entry with a spec of ours (`tests/realworld/specs/`): the "
           "shapes, dtypes and values (a mode string, a flag) its callers pass, which `lower` cannot guess; without "
           "one, every untyped parameter is assumed a float32[n] tensor.", ""]
    out += ["## Totals", "",
            "`files` and `kernels` (kernel definitions in those files: `__global__`, `@triton.jit`, `pallas_call`) "
            "say how much code the rows stand for; the percentage is of rows.", "",
            "| group | files | kernels | rows | " + " | ".join(RESULTS) + " | lowered % |",
            "| --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in RESULTS) + " | ---: |"]

    def total(name: str, group: list[Row]) -> str:
        counts = Counter(r.result for r in group)
        share = f"{100 * sum(counts[r] for r in LOWERED) / len(group):.0f}%" if group else "-"
        files = {r.file: r.definitions for r in group}
        return (f"| {name} | {len(files)} | {sum(files.values())} | {len(group)} | "
                + " | ".join(str(counts[r]) for r in RESULTS) + f" | {share} |")

    counted = [r for r in rows if not r.template_library]
    for language in ("cuda", "triton", "pallas"):
        out.append(total(language, [r for r in counted if r.language == language]))
    out.append(total("**all** (without templates)", counted))
    out.append(total("CUTLASS/CuTe/CUB (apart)", [r for r in rows if r.template_library]))
    out += ["", "## Dependence maps (LC204)", "",
            "Of the lowered rows' outputs, those whose dependence map (the input elements each output element is "
            "computed from, the map `diff` compares) is exact on every input, and those it is not on some input "
            "(`diff` cannot compare them statically), from the `// dependences:` lines of `lower --emit access`; of "
            "those, the ones observed in runs (`lower --observe`: a diff of the entry with itself without its "
            "differential runs, so the inputs and runs are those `diff` uses; `diff` reports them "
            "\"observed\"; counted with them, the few whose maps the diff's own static checks composed where "
            "`lower`'s budget of seconds ran out), and the rest, which `diff` leaves \"not compared\".", "",
            "| group | outputs | exact | not exact | observed | not compared | not compared % |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, group in (*((language, [r for r in counted if r.language == language])
                          for language in ("cuda", "triton", "pallas")), ("**all**", counted)):
        outputs, inexact = sum(r.dependences for r in group), sum(len(r.dependence_gaps) for r in group)
        observed = sum(r.observed for r in group)
        share = f"{100 * (inexact - observed) / outputs:.1f}%" if outputs else "-"
        out.append(f"| {name} | {outputs} | {outputs - inexact} | {inexact} | {observed} | {inexact - observed} | "
                   f"{share} |")
    gaps = Counter(g for r in counted for g in r.dependence_gaps)
    if gaps:
        out += ["", "Why the maps that are not exact are not (per output, its first input's reason):", "",
                "| outputs | reason |", "| ---: | --- |"]
        out += [f"| {n} | {_cell(why)} |" for why, n in gaps.most_common(10)]
    out += ["", "## What stops the rest, by cause", "", "All rows that are not lowered, CUTLASS/CuTe/CUB ones included; "
            "the first rule of `CAUSES` that matches a row's message decides.", "", "| rows | cuda | triton | pallas | cause |",
            "| ---: | ---: | ---: | ---: | --- |"]
    causes = Counter((cause(r), r.language) for r in rows if r.result not in LOWERED)
    for text in dict.fromkeys([c for _, _, c in CAUSES] + ["other"]):
        per = [causes[(text, language)] for language in ("cuda", "triton", "pallas")]
        if sum(per):
            out.append(f"| {sum(per)} | " + " | ".join(map(str, per)) + f" | {text} |")
    out += ["", "## The most common constructs (LC901, unmodelled, errors, crashes)", "",
            "| count | result | construct or message (normalised) | first seen at |", "| ---: | --- | --- | --- |"]
    common = Counter((r.result, normalised(r.construct)) for r in rows if r.result not in (*LOWERED, "timeout"))
    first = {}
    for r in rows:
        first.setdefault((r.result, normalised(r.construct)), r.where or f"{r.file}:{r.line}")
    for (result, construct), count in common.most_common(15):
        out.append(f"| {count} | {result} | {_cell(construct)} | {_cell(first[(result, construct)])} |")
    for title, group in (("CUDA", [r for r in counted if r.language == "cuda"]),
                         ("Triton", [r for r in counted if r.language == "triton"]),
                         ("Pallas", [r for r in counted if r.language == "pallas"]),
                         ("CUTLASS / CuTe / CUB (outside the percentage)", [r for r in rows if r.template_library])):
        out += ["", f"## {title}", "", "| kernel (file:line) | entry | result | construct / message | at | s |",
                "| --- | --- | --- | --- | --- | ---: |"]
        for r in group:
            ours = " *(ours)*" if r.wrapper else " *(spec)*" if r.spec else ""
            out.append(f"| {r.file}:{r.line}{ours} | {_cell(r.entry or '-')} | {r.result} | {_cell(r.construct)} | "
                       f"{_cell(r.where)} | {r.seconds} |")
    return "\n".join(out) + "\n"


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:300]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lowercheck.realworld", description=__doc__.split("\n\n")[0])
    parser.add_argument("-j", "--jobs", type=int, default=1, help="processes at a time (default 1)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per process (default 120)")
    parser.add_argument("--memory-mb", type=int, default=8192, help="address space per process (default 8192)")
    parser.add_argument("--only", action="append", default=[], help="only files whose shown path contains TEXT")
    parser.add_argument("--out", default="docs/realworld.md", help="the Markdown report (default docs/realworld.md)")
    parser.add_argument("--json", default=str(CACHE / "results.json"), help="the rows as JSON")
    parser.add_argument("--report-only", action="store_true",
                        help="write the Markdown report again from the --json file of the last run (no lowering)")
    parser.add_argument("--entries", metavar="FILE", help=argparse.SUPPRESS)  # the listing child
    args = parser.parse_args(argv)
    if args.entries:
        print(json.dumps(list_entries(args.entries)))
        return 0
    if args.report_only:
        run_data = json.loads(Path(args.json).read_text())
        fields = Row.__dataclass_fields__  # a file of an older run may hold fields since dropped
        rows = [Row(**{k: v for k, v in r.items() if k in fields}) for r in run_data["rows"]]
        Path(args.out).write_text(markdown(rows, run_data["wall_s"], run_data["jobs"], run_data["timeout_s"],
                                           run_data["memory_mb"], run_data["finished"]))
        return 0
    try:
        install(quiet=False)
    except Unreachable as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    files = kernel_files()
    if args.only:
        files = [f for f in files if any(text in f.shown for text in args.only)]
    start = time.monotonic()
    rows = run(files, args.jobs, args.timeout, args.memory_mb)
    wall = time.monotonic() - start
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    finished = _now()
    Path(args.json).write_text(json.dumps({"wall_s": wall, "jobs": args.jobs, "timeout_s": args.timeout,
                                           "memory_mb": args.memory_mb, "finished": finished,
                                           "rows": [asdict(r) for r in rows]}, indent=1))
    Path(args.out).write_text(markdown(rows, wall, args.jobs, args.timeout, args.memory_mb, finished))
    counts = Counter(r.result for r in rows)
    print(f"{len(rows)} rows in {wall:.0f} s: " + ", ".join(f"{counts[r]} {r}" for r in RESULTS), file=sys.stderr)
    return 0


if __name__ == "__main__":  # spawned worker processes import this module too
    raise SystemExit(main())
