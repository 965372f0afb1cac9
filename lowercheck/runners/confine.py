"""The sandbox of every process that runs user code (a front end's import and capture, a run).

Two calls, so that a stage (a front-end call, a batch of runs) costs one fork and no namespace:

- `hold()`, once, in a process that is about to become a long-lived server of stages (the run
  fork server, a front-end worker's call server), while it is still single-threaded: a user
  namespace (unless the process is root with CAP_SYS_ADMIN already), a network namespace (no
  interface but a loopback that is down: no network) and a PID namespace. The caller forks once:
  its child, PID 1 of the new namespace, returns and serves (imports, threads: a process whose
  children go to another PID namespace may start no thread, PID 1 may); the caller stays outside
  as the watcher and ends as PID 1 ended (the parent who kills the watcher ends the namespace:
  PID 1 dies with it, PR_SET_PDEATHSIG, and with PID 1 every process in the namespace). After each
  stage, PID 1 ends every process left in the namespace (`sweep`: also a grandchild that left its
  session, `setsid`, a daemon's double fork, which the kernel gave to PID 1);
- `enter(box)`, in each stage's process, freshly forked by PID 1 and single-threaded: it becomes
  the reaper of every orphan it makes (PR_SET_CHILD_SUBREAPER, so that `left_behind()` names what
  the user's code left running when its work is done) and is confined as below. In a process that
  no holder forked, `enter` makes the namespaces itself and forks once more, the process that runs
  the user's code then PID 1 of a namespace of its own, the caller its watcher.

Stages of one holder share its namespaces but never meet: it runs one at a time and sweeps before
the next starts. A stage cannot stop PID 1: the kernel drops a signal from inside the namespace to
its PID 1 unless PID 1 handles it (it handles none), and Landlock scopes signals. A stage is
confined by:

- Landlock (ABI 1 to 7): the file system is read-only everywhere the interpreter, the libraries and
  the user's files live, and unreadable in the home folders, /tmp and /mnt beyond them; the only
  writable places are the box's folders (the stage's private temporary folder and the tool caches
  the children need: Triton's, JAX's under `.cache/`). No TCP bind or connect, no signal to a
  process outside the sandbox, no abstract Unix socket outside it (Landlock's scopes, ABI 6);
- no capabilities (the bounding set dropped, so an `exec` gives none back) and no new privileges;
- the box's limit on the address space (RLIMIT_AS) and no core dumps.

What a machine does not offer (an old kernel without Landlock, user namespaces turned off) is left
out, and `shortfall()` says what, so that every report can say it: the time and memory limits
and the process-group kill hold on every machine.

Why these and not bubblewrap or seccomp: they need no set-uid helper nor a package outside PyPI
(bubblewrap is not installed on every machine and its PyPI wrappers ship a binary), and they cost
a few milliseconds per child; the Landlock bindings on PyPI are pre-releases or a few months old,
and the three system calls are the kernel's stable ABI. Pathname Unix sockets are not covered by
Landlock up to ABI 7 (connecting needs no file access right); the network namespace covers the rest.
"""

from __future__ import annotations

import ctypes
import os
import resource
import select
import signal
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Caches stay inside the checkout, never in ~ (the Makefile sets the same); the sandbox may write them.
CACHE_DIRS = {
    "TRITON_CACHE_DIR": "triton",
    "TRITON_HOME": "triton-home",
    "JAX_COMPILATION_CACHE_DIR": "jax",
    "XDG_CACHE_HOME": "xdg",
}

SOURCE_CACHES = "by-source"  # below each cache: one folder per user file that runs (`source_caches`)

_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_CLONE_NEWPID = 0x20000000
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAP_SYS_ADMIN = 21
_CAP_LAST = 63
# The Landlock system calls (one number on every architecture since Linux 5.13).
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
# Access rights on files, by the ABI version that introduced them.
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_DIR_CHANGES = sum(1 << bit for bit in range(4, 13))  # remove, make (char, dir, reg, sock, fifo, block, sym)
_REFER, _TRUNCATE, _IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1
_FILE_RIGHTS = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV  # what a rule on a file may grant
# Outside these trees of `/` the sandbox reads everything; inside them only what it needs.
PRIVATE_TREES = ("/home", "/root", "/tmp", "/var/tmp", "/mnt", "/media", "/lost+found")
# Device files a process may open for writing: the harmless ones and the GPU's.
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
GPU_DEVICES = ("nvidia", "dri")


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


@dataclass(frozen=True)
class Box:
    """What one sandboxed process may touch."""

    writable: tuple[str, ...]  # its private temporary folder and the tool caches (created if missing)
    readable: tuple[str, ...] = ()  # the user's files (their folders): readable even in a home folder
    memory_mb: int | None = None  # RLIMIT_AS; None: no bound (a GPU run)


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _error(what: str) -> OSError:
    code = ctypes.get_errno()
    return OSError(code, f"{what}: {os.strerror(code)}")


_held = False  # this process is PID 1 of namespaces it made for its stages (`hold`), or forked by it


def hold() -> list[str]:
    """Make the namespaces this process's stages run in (module docstring); returns in PID 1 of
    them, with what could not be set up (empty when nothing). The caller never returns: it waits
    outside and ends as PID 1 ended. Single-threaded callers only (before imports that start
    threads). Where no PID namespace can be made, it returns in the caller and each stage makes
    its own (`enter`)."""
    global _held
    libc = _libc()
    problem = _unshare(libc)
    if "PID namespace" in problem:
        return [problem]
    _become_pid_one()  # the watcher stays in there and never returns
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # PID 1 dies with its watcher
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # handled signals reach PID 1 from inside: none
    _held = True
    return [problem] if problem else []


def die_with_parent(parent: int) -> None:
    """End this process when its parent, `parent`, ends (PR_SET_PDEATHSIG; at once if it has)."""
    _libc().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def sweep(limit_s: float = 10.0) -> None:
    """In PID 1 of held namespaces (`hold`), once a stage's process has been waited for: SIGKILL to
    every other process of the namespace, reaped, until none is left (one forking meanwhile is
    signalled again). Nothing elsewhere."""
    if not _held or os.getpid() != 1:
        return
    end = time.monotonic() + limit_s
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            while True:
                os.waitpid(-1, 0)  # orphans were given to PID 1: reap them
        except ChildProcessError:
            pass
        try:
            os.kill(-1, 0)
        except ProcessLookupError:
            return  # nothing left
        if time.monotonic() > end:
            return
        time.sleep(0.0005)  # a process whose parent is ending: it is ours in a moment


def enter(box: Box) -> list[str]:
    """Confine this stage's process (see the module's docstring): returns with what could not be
    set up on this machine (empty when nothing; what `hold` could not set up, it said). Forked by
    a holder (`hold`), it runs in the holder's namespaces; else it makes its own and forks, the
    caller never returning (it waits for that child and ends as it did). Single-threaded callers
    only."""
    libc = _libc()
    missing: list[str] = []
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for folder in box.writable:
        os.makedirs(folder, exist_ok=True)
    namespaces = "" if _held else _unshare(libc)  # forked by a holder: its namespaces
    if namespaces:
        missing.append(namespaces)
    # Landlock before the fork (the watcher is confined too); capabilities after it (PID 1 may
    # need none to start, and dropping the bounding set needs CAP_SETPCAP).
    landlock = _landlock(libc, box)
    if landlock:
        missing.append(landlock)
    if not _held and "PID namespace" not in namespaces:
        _become_pid_one()  # the watcher stays in there and never returns
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # PID 1 dies with its watcher
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # orphans of the stage come to it: `left_behind`
    _drop_capabilities(libc)
    if box.memory_mb is not None:
        limit = box.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    if box.writable:
        use_temporary_folder(box.writable[0])
    return missing


def use_temporary_folder(folder: str) -> None:
    """Make `folder` this process's temporary folder (and its children's): TMPDIR, TMP and TEMP, and
    `tempfile`'s own choice, computed again from them."""
    import tempfile

    for name in ("TMPDIR", "TMP", "TEMP"):
        os.environ[name] = folder
    tempfile.tempdir = None


def left_behind(seen: set[tuple[int, int]] | None = None) -> list[str]:
    """The command names of the processes still running below this one (in a stage: every process
    its code started and did not wait for, orphans included, `enter`), oldest first; with `seen`,
    only those not in it, which are added. Empty where /proc does not say."""
    seen = set() if seen is None else seen
    try:
        stack = [os.readlink("/proc/self")]  # this process as /proc numbers it (outside the namespace)
    except OSError:
        return []
    found: list[tuple[int, str]] = []
    while stack:
        pid = stack.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/children") as handle:
                    children = handle.read().split()
            except OSError:
                continue
            for child in children:
                try:
                    with open(f"/proc/{child}/stat") as handle:
                        stat = handle.read()
                except OSError:
                    continue  # gone meanwhile
                name, fields = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
                if fields[0] in "ZXx":  # ended, not yet reaped
                    continue
                stack.append(child)
                key = (int(child), int(fields[19]))  # (pid, start time): a reused pid is another process
                if key not in seen:
                    seen.add(key)
                    found.append((key[1], name))
    return [name for _, name in sorted(found)]


def describe(names: list[str]) -> str:
    """`3 processes (python3 x2, sleep)`."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    shown = ", ".join(f"{name} x{count}" if count > 1 else name for name, count in counts.items())
    return f"{len(names)} process{'es' if len(names) != 1 else ''} ({shown})"


def _unshare(libc) -> str:
    """New user (unless already privileged), network and PID namespaces; what failed, or ''."""
    privileged = _has_capability(_CAP_SYS_ADMIN)
    flags = _CLONE_NEWNET | _CLONE_NEWPID | (0 if privileged else _CLONE_NEWUSER)
    uid, gid = os.geteuid(), os.getegid()
    if libc.unshare(flags) != 0:
        err = _error("unshare")
        return f"no user, network and PID namespaces ({err.strerror}): the network is reachable and a daemon " \
               "started by the code may outlive it"
    if not privileged:  # map our own ids, as an unprivileged process may
        try:
            for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
                fd = os.open(f"/proc/self/{name}", os.O_WRONLY)
                try:
                    os.write(fd, text.encode())
                finally:
                    os.close(fd)
        except OSError as err:
            return f"the user namespace's ids could not be mapped ({err.strerror})"
    return ""


def _has_capability(bit: int) -> bool:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> bit & 1)
    except OSError:
        pass
    return False


def _become_pid_one() -> None:
    """Fork into the new PID namespace; the parent waits and ends as the child ended."""
    parent = os.getppid()
    pid = os.fork()
    if pid == 0:
        return
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    status = _wait_unless_orphaned(pid, parent)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            signal.signal(sig, signal.SIG_DFL)
            os.kill(os.getpid(), sig)
        except (OSError, ValueError):
            pass
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status))


def _wait_unless_orphaned(pid: int, parent: int) -> int:
    """The wait status of PID 1 (`pid`). Should this process's `parent` end first (lowercheck killed
    outright: it would have ended the stage), PID 1 is killed, and with it every process of its
    namespace: a fork server's run that hangs would otherwise spin on, its server never reading
    the end of its input. A pidfd wakes the wait as PID 1 ends; the parent is looked at every
    half second."""
    try:
        ended = os.pidfd_open(pid)
    except (AttributeError, OSError):  # before Linux 5.3
        ended = None
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            os._exit(1)
        if done:
            return status
        if os.getppid() != parent:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            return os.waitpid(pid, 0)[1]
        if ended is not None:
            select.select([ended], [], [], 0.5)
        else:
            time.sleep(0.5)


def _drop_capabilities(libc) -> None:
    for cap in range(_CAP_LAST + 1):
        libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)  # fails past the last capability: harmless
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: none
    libc.capset(header, data)


def landlock_abi(libc=None) -> int:
    """The Landlock ABI version this kernel offers (0: none)."""
    libc = libc or _libc()
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return max(0, int(version))


def _landlock(libc, box: Box) -> str:
    """Restrict the file system, TCP and signals (module docstring); what failed, or ''."""
    abi = landlock_abi(libc)
    if abi < 1:
        return "no Landlock in this kernel: the code can read and write wherever the user can"
    fs = _EXECUTE | _WRITE_FILE | _READ_FILE | _READ_DIR | _DIR_CHANGES
    fs |= (_REFER if abi >= 2 else 0) | (_TRUNCATE if abi >= 3 else 0) | (_IOCTL_DEV if abi >= 5 else 0)
    net = _NET_BIND_TCP | _NET_CONNECT_TCP if abi >= 4 else 0
    scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if abi >= 6 else 0
    attr = _RulesetAttr(fs, net, scoped)
    size = ctypes.sizeof(_RulesetAttr) if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        return f"Landlock refused the ruleset ({_error('landlock').strerror})"
    try:
        read = _EXECUTE | _READ_FILE | _READ_DIR
        for path in readable_trees(box.readable):
            _allow(libc, ruleset, path, read)
        write = fs
        for path in box.writable:
            _allow(libc, ruleset, path, write)
        for path in _devices():
            _allow(libc, ruleset, path, (_READ_FILE | _WRITE_FILE | _IOCTL_DEV | _TRUNCATE) & fs)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return f"no_new_privs refused ({_error('prctl').strerror}): no Landlock"
        if libc.syscall(_SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            return f"Landlock refused to restrict ({_error('landlock').strerror})"
    finally:
        os.close(ruleset)
    return ""


def _allow(libc, ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # gone or never there: nothing to allow
    try:
        if not os.path.isdir(path):
            rights &= _FILE_RIGHTS
        rule = _PathBeneathAttr(rights, fd)
        libc.syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule),
                     ctypes.c_uint32(0))
    finally:
        os.close(fd)


def readable_trees(extra: tuple[str, ...] = ()) -> list[str]:
    """Where sandboxed code may read: every tree of `/` but the private ones, plus the Python
    installation, the import path, the checkout and `extra` (the user's files' folders), which may
    lie in a private tree (a checkout in the home folder)."""
    trees = []
    home = os.path.realpath(os.path.expanduser("~"))
    private = {*PRIVATE_TREES, home}
    for entry in sorted(os.listdir("/")):
        path = "/" + entry
        if path not in private and not _contains(path, home) or path == "/proc":
            trees.append(path)
    from lowercheck.runners.user_code import user_paths

    needed = [sys.prefix, sys.base_prefix, sys.exec_prefix, str(REPO), *sys.path, *user_paths(), *extra]
    trees += [os.path.realpath(p) for p in needed if p and os.path.exists(p)]
    return list(dict.fromkeys(trees))


def _contains(tree: str, path: str) -> bool:
    return path == tree or path.startswith(tree.rstrip("/") + "/")


def _devices() -> list[str]:
    found = list(DEVICES)
    try:
        found += [f"/dev/{name}" for name in os.listdir("/dev") if name.startswith(GPU_DEVICES)]
    except OSError:
        pass
    return found


@cache
def shortfall() -> tuple[str, ...]:
    """What the sandbox cannot set up on this machine (empty when it is whole), found once per
    process by confining a throwaway child (its namespaces and Landlock)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        code = 0
        try:  # what `hold` and `enter` would miss, without their forks
            libc = _libc()
            missing = [problem for problem in (_unshare(libc), _landlock(libc, Box(writable=()))) if problem]
            os.write(write, "\n".join(missing).encode())
        except BaseException:  # noqa: BLE001 - said by the parent
            code = 1
        os._exit(code)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 65536):
        chunks.append(chunk)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        return ("the sandbox could not be set up here: user code runs with time and memory limits only",)
    return tuple(line for line in b"".join(chunks).decode().splitlines() if line)


def note() -> str | None:
    """The line every report carries where the sandbox is not whole, else None."""
    missing = shortfall()
    if not missing:
        return None
    return "sandbox for user code incomplete on this machine: " + "; ".join(missing)


def source_caches(env: Mapping[str, str], path: str) -> dict[str, str]:
    """The tool caches (`CACHE_DIRS`) of a stage that runs the user's file `path`: below each, a
    folder of its own, named by the file's real path and its contents. The stage may write there
    (Triton compiles into its cache) and nowhere else in the caches, so no port plants an entry that
    the stage of another file reads: a forged kernel in a shared Triton cache would be what every
    later diff of that kernel lowers. The same file keeps its folder from one diff to the next."""
    import hashlib

    from lowercheck.errors import MAX_INPUT_BYTES

    digest = hashlib.sha256(os.path.realpath(path).encode() + b"\0")
    try:
        with open(path, "rb") as handle:
            digest.update(handle.read(MAX_INPUT_BYTES))
    except OSError:
        pass  # no file (a test's request): its path alone
    key = digest.hexdigest()[:24]
    return {name: os.path.join(env[name], SOURCE_CACHES, key) for name in CACHE_DIRS if env.get(name)}


def adopt_caches() -> None:
    """After a stage's cache folders were set in its environment (`source_caches`): the libraries
    imported before (the fork server's warm-up) that read them once, read them again. Triton reads
    its variables at each use; JAX (pinned) reads its compilation cache's folder at import and opens
    the cache at its first compilation, which `reset_cache` lets happen again."""
    jax = sys.modules.get("jax")
    folder = os.environ.get("JAX_COMPILATION_CACHE_DIR")
    if jax is None or not folder:
        return
    from jax._src import compilation_cache

    jax.config.update("jax_compilation_cache_dir", folder)
    compilation_cache.reset_cache()
