"""Importing the user's Python file (front ends, and runners in their child processes) and saying
where in it an exception came from.

A file outside any package is imported under a private module name, its folder on `sys.path` (its
sibling modules import, as when Python runs the file). A file inside a package (its
folder holds `__init__.py`, as `liger_kernel/ops/rms_norm.py` does) is imported as that package's
module, with the folder above the package on `sys.path`, as Python would import it from a program
beside the package: its absolute and relative imports of its own package work, whether or not the
package is installed."""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import os
import sys
import traceback
from types import ModuleType


# The import path of the reviewer's Python (`--python`, `python =`), os.pathsep-joined: user code
# imports from it after lowercheck's own path, and the sandbox lets it be read.
USER_PATH_ENV = "LOWERCHECK_USER_PATH"


def use_interpreter(python: str) -> None:
    """Let user code import what `python` has installed (its site-packages, after lowercheck's own),
    in this process's children: set `USER_PATH_ENV` (empty `python`: lowercheck's own interpreter,
    nothing more)."""
    if not python:
        os.environ.pop(USER_PATH_ENV, None)
        return
    import subprocess

    from lowercheck.errors import UserError

    script = "import site, sys; print('\\n'.join([*site.getsitepackages(), site.getusersitepackages()]))"
    try:
        done = subprocess.run([python, "-c", script], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise UserError(f"--python {python}: the interpreter does not run ({err})",
                        hint="name a Python executable, e.g. the venv's bin/python") from None
    if done.returncode != 0:
        raise UserError(f"--python {python}: the interpreter failed ({done.stderr.strip()[-200:]})",
                        hint="name a Python executable, e.g. the venv's bin/python")
    paths = [p for p in done.stdout.splitlines() if p and os.path.isdir(p)]
    os.environ[USER_PATH_ENV] = os.pathsep.join(paths)


def user_paths() -> list[str]:
    """The reviewer's import path (`use_interpreter`), as this process's environment says."""
    return [p for p in os.environ.get(USER_PATH_ENV, "").split(os.pathsep) if p]


class UserFailure(Exception):
    """The user's code failed (import, call): the message names their file:line."""


def package_of(file: str) -> tuple[str, str] | None:
    """(the folder above the outermost package holding `file`, the file's dotted module name), or
    None when the file's folder is not a package."""
    folder, stem = os.path.split(os.path.realpath(file))
    parts = [os.path.splitext(stem)[0]]
    while os.path.isfile(os.path.join(folder, "__init__.py")) and os.path.basename(folder).isidentifier():
        folder, package = os.path.split(folder)
        parts.insert(0, package)
    if len(parts) == 1 or not all(p.isidentifier() for p in parts):
        return None
    return folder, ".".join(parts)


def exec_user_module(path: str, prefix: str) -> ModuleType:
    """The module of the user's file, executed (its own exceptions propagate; SyntaxError
    included). Outside a package: a fresh module named `prefix` + a hash of the path. Inside one:
    the package's module by its dotted name, the package's root on `sys.path`."""
    from lowercheck import cuda_on_cpu

    file = os.path.realpath(path)
    for extra in user_paths():  # the reviewer's packages, after lowercheck's own torch and Triton
        if extra not in sys.path:
            sys.path.append(extra)
    if cuda_on_cpu.mentions_cuda(file):  # `.cuda()`, device="cuda": on the CPU when there is no GPU
        cuda_on_cpu.install()
    found = package_of(file)
    if found is not None:
        root, dotted = found
        if root not in sys.path:
            sys.path.insert(0, root)
        # A folder that was looked up before it existed (a package unpacked since) is cached as
        # importing nothing, for the life of the process: look at it afresh.
        sys.path_importer_cache.pop(root, None)
        sys.modules.pop(dotted, None)  # executed afresh, as a file outside a package is
        try:
            module = importlib.import_module(dotted)
        except BaseException:
            sys.modules.pop(dotted, None)
            raise
        if os.path.realpath(getattr(module, "__file__", "") or "") == file:
            return module
        sys.modules.pop(dotted, None)  # another file of that name came first on sys.path: ours, privately
    folder = os.path.dirname(file) if found is None else None
    if folder is not None:  # as `python file.py` runs it: its own folder first, for its sibling modules
        _enter_folder(folder)
    name = prefix + hashlib.sha1(file.encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    if found is not None:
        module.__package__ = found[1].rpartition(".")[0]  # its relative imports still resolve
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    finally:
        if folder is not None:
            _leave_folder(folder)
    return module


# The folders of user files this process imported (outside a package), on `sys.path` for them.
_USER_FOLDERS: set[str] = set()


def _enter_folder(folder: str) -> None:
    """`folder` first on `sys.path` while its file is imported; a sibling module another user
    folder gave this process earlier (a `utils.py` of another solution) is imported afresh."""
    for key, module in list(sys.modules.items()):
        home = os.path.dirname(os.path.realpath(getattr(module, "__file__", None) or "/"))
        if home in _USER_FOLDERS and home != folder:
            sys.modules.pop(key, None)
    _USER_FOLDERS.add(folder)
    if folder in sys.path:
        sys.path.remove(folder)
    sys.path.insert(0, folder)
    sys.path_importer_cache.pop(folder, None)


def _leave_folder(folder: str) -> None:
    """After the import: `folder` last on `sys.path` (an import inside a function still finds its
    siblings, and nothing of the folder shadows a module this process or its children import)."""
    if folder in sys.path:
        sys.path.remove(folder)
    sys.path.append(folder)


def import_user_file(path: str, first_line: bool = False) -> ModuleType:
    try:
        return exec_user_module(path, "lowercheck_run_")
    except Exception as err:  # noqa: BLE001 - the user's import failed
        raise UserFailure(describe(err, path, first_line)) from None


def describe(err: BaseException, path: str, first_line: bool = False) -> str:
    """`file:line: Type: message` at the innermost frame in the user's file (an interpreter's
    wrapping error gives way to its cause); `first_line`: the message's first line only."""
    real = os.path.realpath(path)
    where = path
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        if os.path.realpath(frame.filename) == real:
            where = f"{path}:{frame.lineno}"
            break
    cause = err.__cause__ if type(err).__name__ == "InterpreterError" and err.__cause__ else err
    if isinstance(cause, ModuleNotFoundError) and cause.name:
        package = cause.name.split(".")[0]
        return (f"{where}: the file imports `{cause.name}`, which is not installed for the Python lowercheck runs "
                f"user code with ({sys.executable}): install it there (`{sys.executable} -m pip install "
                f"{package}`), or a stub module of that name beside the file")
    message = (str(cause).strip().splitlines() or [""])[0] if first_line else str(cause)
    return f"{where}: {type(cause).__name__}: {message}"


def pack_tuples(values: dict, tuples: dict[str, list[list]] | None) -> None:
    """Rebuild each tuple argument the spec gives item by item (`[args.res] items = [...]`) from its
    arrays, passed as `res_0`, `res_1`, ..., and its values: `tuples` maps `res` to its items,
    [array parameter, None] or [None, value] (`diff.SideInfo.tuples`)."""
    for name, items in (tuples or {}).items():
        values[name] = tuple(values[array] if array is not None else value for array, value in items)


class FunctionContext:
    """What an autograd Function's `forward(ctx, ...)` or `backward(ctx, ...)` receives as `ctx`
    when lowercheck calls it as an entry: it keeps what the method saves and sets, and answers what
    it asks (every input needs its gradient)."""

    def __init__(self) -> None:
        self.saved_tensors: tuple = ()
        self.needs_input_grad = (True,) * 64

    def save_for_backward(self, *tensors) -> None:
        self.saved_tensors = tensors

    def mark_dirty(self, *tensors) -> None:
        pass

    def mark_non_differentiable(self, *tensors) -> None:
        pass

    def set_materialize_grads(self, value: bool) -> None:
        pass


def is_autograd_method(owner: object, name: str) -> bool:
    """`owner.name` is the `forward`/`backward` of a torch.autograd.Function (its first parameter
    is the context; a `backward` reads what `forward` saved there, so only `forward` is an entry of
    its own: `lowercheck.frontends.triton.source`)."""
    try:
        import torch
    except ImportError:
        return False
    return isinstance(owner, type) and issubclass(owner, torch.autograd.Function) and name in ("forward", "backward")


def entry_callable(module: ModuleType, name: str):
    """The entry `name` of an imported user module: a function, or `Class.method` (an autograd
    Function's `forward`/`backward` gets a fresh `FunctionContext` as its `ctx`); None if absent."""
    import functools

    owner, _, method = name.rpartition(".")
    if not owner:
        return getattr(module, name, None)
    cls = getattr(module, owner, None)
    fn = getattr(cls, method, None) if cls is not None else None
    if fn is None:
        return None
    if is_autograd_method(cls, method):
        bound = functools.partial(fn, FunctionContext())
        functools.update_wrapper(bound, fn)
        bound.__signature__ = inspect.signature(functools.partial(fn, None))
        return bound
    return fn
