"""Parse a CUDA file with libclang against `shim.h`, and the small cursor helpers the lowering needs.

A KernelBench-style `.py` file (`load_inline(cuda_sources=SRC, ...)`) is parsed as the string `SRC`
assigned at module level, as an unsaved file; locations map back to the `.py` file's lines.

One translation unit per file and process (`translation_unit` caches it by path and mtime). Real CUDA
headers do not parse with the bundled clang, so `-nostdinc`, and:
- every header a CUDA file commonly includes maps to an empty in-memory file: `shim.h` declares what
  they would have; headers whose macros matter (`helper_cuda.h`'s `checkCudaErrors`, c10's launch
  checks) are modelled in `include/`;
- any other header that is not a file beside the includer is replaced by an empty one, and
  `source_notes(path)` says so: host-only headers (`<iostream>`, a sample's timer helpers) declare
  nothing a kernel needs, and a kernel that did need one fails at its own line instead.
A clang error is a `UserError` at the user's file:line:col, except inside a function that is not on
the lowering path (a sample's `main`, full of host APIs lowercheck does not model): such errors are
kept per function (`deferred_error`) and raised only when that function is lowered.
"""

from __future__ import annotations

import ast
import ctypes
import os
import re
import weakref
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import clang.cindex as ci

from lowercheck.errors import SourceLocation, Unsupported, UserError, read_user_text
from lowercheck.frontends.base import read_python
from lowercheck.frontends.cuda import instances
from lowercheck.frontends.cuda.instances import Instance

SHIM = Path(__file__).with_name("shim.h")
_VIRTUAL_INCLUDE = "/__lowercheck__/include"
# Headers a CUDA file may include; shim.h declares what lowercheck models of them.
_EMPTY_HEADERS = (
    "cuda_runtime.h", "cuda_runtime_api.h", "cuda.h", "device_launch_parameters.h",
    "device_functions.h", "math_functions.h", "cuda_device_runtime_api.h", "math.h", "cmath",
    "stdio.h", "cstdio", "stdlib.h", "cstdlib", "stdint.h", "cstdint", "stddef.h", "cstddef",
    "assert.h", "cassert", "float.h", "cfloat", "limits.h", "climits", "string.h", "cstring",
    "cuda_fp16.h", "cuda_bf16.h", "vector_types.h", "cooperative_groups.h", "cuda_fp16.hpp",
    "cooperative_groups/reduce.h", "torch/extension.h", "ATen/ATen.h", "c10/cuda/CUDAStream.h",
    "ATen/cuda/CUDAContext.h", "vector", "algorithm", "cmath.h", "curand.h", "string",
    "array", "optional", "c10/util/Optional.h",
)


MODELLED = Path(__file__).with_name("include")  # headers lowercheck models beyond shim.h
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)
_INCLUDE_DEPTH = 16


def _resource_include() -> str:
    return str(Path(ci.__file__).parent / "native" / "resource" / "include")


# What nvcc's front end accepts and clang rejects unless it is told to be lenient: a declaration in
# a function template's body that shadows a template parameter (`template <int bits> ... constexpr
# int bits = ...;`, DeepSpeed's fp_quantizer). A file with such an error is parsed again with
# `-fms-compatibility`, under which clang makes it a warning and the inner declaration wins, as in nvcc.
_LENIENT_ERRORS = ("shadows template parameter",)
LENIENT = ["-fms-compatibility"]


def _args(folders: list[Path] = (), lenient: bool = False) -> list[str]:
    return [*(LENIENT if lenient else []), "-x", "cuda", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib", "-std=c++17",
            "-nostdinc", "-Wno-unknown-cuda-version", "-ferror-limit=0", f"-I{MODELLED}", *(f"-I{f}" for f in folders),
            f"-I{_VIRTUAL_INCLUDE}", "-isystem", _resource_include(), "-include", str(SHIM)]


# How far up from the file its project's include folders are looked for, and their usual names.
_PROJECT_DEPTH = 4
_INCLUDE_FOLDERS = ("", "include", "includes", "inc")


_HEADER_SUFFIXES = (".h", ".cuh", ".hpp", ".hh", ".inl")


def include_folders(file: Path, missing: list[str]) -> list[Path]:
    """The project's own include folders, as a build would pass them with -I: for each header not
    beside its includer, the nearest folder among the file's ancestors (up to `_PROJECT_DEPTH`),
    or their `include`/`includes` subfolders, that holds it (DeepSpeed's kernels include
    "reduction_utils.h" from csrc/includes). Failing that, a project header (`.h`, `.cuh`, ...) in
    one subfolder of the nearest ancestor that has one: builds pass their sibling folders too
    (DeepSpeed's ragged_ops/embed/embed_cuda.cu includes "ragged_dtypes.h" from
    ragged_ops/ragged_helpers/); the file system's root is not searched."""
    found: list[Path] = []
    ancestors = [a for a in [file.parent, *list(file.parent.parents)[:_PROJECT_DEPTH]] if a.parent != a]
    for header in missing:
        hits: list[Path] = []
        for ancestor in ancestors:
            hits = [ancestor / sub for sub in _INCLUDE_FOLDERS if (ancestor / sub / header).is_file()]
            if hits:
                break
        if not hits and header.endswith(_HEADER_SUFFIXES):
            for ancestor in ancestors:
                hits = sorted(p.parent for p in ancestor.glob(f"*/{header}") if p.is_file())
                if hits:
                    break
        if hits and hits[0] not in found:
            found.append(hits[0])
    return found


@cache
def _index() -> ci.Index:
    return ci.Index.create()


@cache
def _unary_kind_fn():
    fn = ci.conf.lib.clang_getCursorUnaryOperatorKind
    fn.argtypes = [ci.Cursor]
    fn.restype = ctypes.c_int
    return fn


@dataclass
class _Parsed:
    mtime: float
    tu: ci.TranslationUnit
    stubbed: list[str]  # headers replaced by an empty file
    deferred: list[ci.Diagnostic]  # errors inside functions, raised when such a function is lowered
    folders: list[Path] = field(default_factory=list)  # the project's include folders found
    # launcher templates' instances and their instantiated definitions (`instances.py`)
    instances: list[tuple[Instance, ci.Cursor]] = field(default_factory=list)
    headers: dict[str, float] = field(default_factory=dict)  # each included file on disk -> its mtime

    def current(self, mtime: float) -> bool:
        """Still what parsing the file would give: neither it nor a header it includes changed."""
        return self.mtime == mtime and all(_mtime(h) == m for h, m in self.headers.items())


def _mtime(path: str) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


_TU_CACHE: dict[str, _Parsed] = {}


@dataclass(frozen=True)
class Embedded:
    """CUDA source held in a Python string: where its first character sits in the `.py` file."""

    py_file: str  # resolved path of the .py file
    line: int  # 1-based line of the string's first character
    column: int  # 1-based column of the string's first character on that line


# virtual file name (the .py path + ".cu") -> where its text lies in the .py file
_EMBEDDED: dict[str, Embedded] = {}


def embedded_cuda(path: Path) -> tuple[str, Embedded]:
    """The CUDA source a KernelBench-style file passes to `load_inline(cuda_sources=NAME)`: the
    module-level string constant assigned to NAME (or the literal itself). UserError if none."""
    text = read_python(str(path))
    shown = str(path)
    try:
        tree = ast.parse(text, filename=shown)
    except SyntaxError as err:
        where = SourceLocation(shown, err.lineno or 1, err.offset or 1)
        raise UserError(f"Python syntax error: {err.msg}", where) from None
    strings: dict[str, ast.Constant] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    strings[target.id] = node.value
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _callee_name(node.func) == "load_inline"):
            continue
        for kw in node.keywords:
            if kw.arg != "cuda_sources":
                continue
            value = kw.value
            if isinstance(value, (ast.List, ast.Tuple)) and len(value.elts) == 1:
                value = value.elts[0]
            if isinstance(value, ast.Name) and value.id in strings:
                value = strings[value.id]
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value, _string_start(text, value, str(path.resolve()))
            raise UserError("`cuda_sources=` is not a module-level string constant lowercheck can read",
                            SourceLocation(shown, kw.value.lineno, kw.value.col_offset + 1),
                            hint="assign the CUDA source to a name at module level: `cuda_src = \"\"\"...\"\"\"`")
    raise UserError(f"{path} calls no `load_inline(cuda_sources=...)`", SourceLocation(shown, 1))


def forward_calls(path: str | os.PathLike) -> set[str]:
    """The functions a KernelBench-style file's `forward` methods call by name (`return
    ext.bias_relu_cuda(x, bias)`): what the file runs of the extension it compiles."""
    try:
        tree = ast.parse(read_python(str(path)))
    except (OSError, SyntaxError, ValueError, UserError):
        return set()
    called: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "forward":
            called |= {name for call in ast.walk(node) if isinstance(call, ast.Call)
                       and (name := _callee_name(call.func)) is not None}
    return called


def _callee_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _string_start(text: str, node: ast.Constant, py_file: str) -> Embedded:
    """Where the string's content starts: after its prefix and opening quotes."""
    line = text.splitlines()[node.lineno - 1]
    col = node.col_offset  # ast counts UTF-8 bytes; the file's lines are ASCII in practice
    rest = line[col:]
    prefix = len(rest) - len(rest.lstrip("rRbBuUfF"))
    quote = rest[prefix:prefix + 3]
    width = 3 if quote in ('"""', "'''") else 1
    return Embedded(py_file, node.lineno, col + prefix + width + 1)


def translation_unit(path: str | os.PathLike) -> ci.TranslationUnit:
    """The parsed file (cached per path and mtime). Raises UserError for a missing file or a C++ error."""
    return _parse(path).tu


def included_files(path: str | os.PathLike) -> list[str]:
    """The files on disk the parse of `path` read besides it: the headers it includes (directly or
    not), not the empty stand-ins nor lowercheck's own models."""
    ours = str(SHIM.parent) + os.sep
    return sorted(f for f in _parse(path).headers if not f.startswith(ours))


def _parse(path: str | os.PathLike) -> _Parsed:
    file = Path(path)
    if not file.is_file():
        raise UserError(f"no such file: {file}", SourceLocation(str(file), 1), hint="check the path of the CUDA source")
    key = str(file.resolve())
    mtime = file.stat().st_mtime
    cached = _TU_CACHE.get(key)
    if cached and cached.current(mtime):
        return cached
    unsaved = [(f"{_VIRTUAL_INCLUDE}/{name}", "") for name in _EMPTY_HEADERS]
    parsed = key
    if file.suffix == ".py":  # KernelBench style: the CUDA source is a string in the file
        source, where = embedded_cuda(file)
        parsed = key + ".cu"
        _EMBEDDED[parsed] = where
        unsaved.append((parsed, source))
    else:
        source = read_user_text(str(file), "CUDA source")
    stubbed, shadowed = _missing_headers(source, file.parent)
    folders: list[Path] = []
    for _ in range(_INCLUDE_DEPTH):  # headers of the project's include folders include more of them
        more = [f for f in include_folders(file.resolve(), stubbed) if f not in folders]
        if not more:
            break
        folders += more
        stubbed, shadowed = _missing_headers(source, file.parent, folders)
    unsaved += [(name, "") for header in stubbed for name in _virtual_names(header)]
    unsaved += [(str(local), f"#include <{name}>\n") for local, name in shadowed]  # the model, once
    try:
        tu = _index().parse(parsed, args=_args(folders), unsaved_files=unsaved)
        lenient = any(d.severity >= ci.Diagnostic.Error and any(e in d.spelling for e in _LENIENT_ERRORS)
                      for d in tu.diagnostics)
        if lenient:
            tu = _index().parse(parsed, args=_args(folders, lenient=True), unsaved_files=unsaved)
        tu, found = _with_instances(tu, parsed, source, folders, unsaved, lenient)
    except ci.TranslationUnitLoadError as err:
        raise UserError(f"clang could not parse {file}: {err}", SourceLocation(str(file), 1)) from None
    deferred = _check_errors(tu, str(file), stubbed)
    headers = {os.path.realpath(i.include.name): _mtime(i.include.name) for i in tu.get_includes()
               if i.include is not None and os.path.isfile(i.include.name)}
    _TU_CACHE[key] = result = _Parsed(mtime, tu, stubbed, deferred, folders, found, headers)
    return result


def _with_instances(tu: ci.TranslationUnit, parsed: str, source: str, folders: list[Path],
                    unsaved: list[tuple[str, str]],
                    lenient: bool = False) -> tuple[ci.TranslationUnit, list[tuple[Instance, ci.Cursor]]]:
    """The unit parsed again with a probe line per instance of its launcher templates appended
    (`instances.py`); a probe clang rejects (an instantiation that does not compile) is left out,
    so that it is no error of the file. Then the instances the file's own calls make of the
    templates it does not instantiate itself (`instances.used_instances`). Unchanged when the file
    has no launcher template."""
    if "template" not in source:
        return tu, []
    planned = instances.planned(tu, source)
    if not planned:
        return tu, instances.used_instances(tu, source, [])
    lines = instances.probe_lines(planned)
    first = source.count("\n") + 2  # the probes' first line: after the source and one newline
    for _ in range(4):  # with every probe, then again without the rejected ones, until none is
        # (clang may report a later probe's failure only once an earlier one is gone)
        probed = source + "\n" + "\n".join(lines) + "\n"
        files = [(name, text) for name, text in unsaved if name != parsed] + [(parsed, probed)]
        tu = _index().parse(parsed, args=_args(folders, lenient), unsaved_files=files)
        rejected = {line - first for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error
                    for line in _probe_lines(d, tu.spelling, first)}
        if not rejected:
            break
        lines = ["" if i in rejected else line for i, line in enumerate(lines)]
    found = instances.instantiated(tu, planned)
    return tu, found + instances.used_instances(tu, source, [fn for _, fn in found])


def _probe_lines(d: ci.Diagnostic, main: str, first: int) -> set[int]:
    """The probe lines an error is owed to: its own line, or, for an error inside a template the
    probe instantiates (a header's `conversion::to<__nv_bfloat162>` that only a bf16 build defines),
    the probe line of its "in instantiation ... requested here" notes."""
    lines = set()
    for at in (d.location, *(note.location for note in d.children)):
        if at.file is not None and at.file.name == main and at.line >= first:
            lines.add(at.line)
    return lines


def launcher_instances(path: str | os.PathLike) -> list[tuple[Instance, ci.Cursor]]:
    """The instantiated definitions of the file's launcher templates (`instances.py`), in order."""
    return _parse(path).instances


def _missing_headers(source: str, folder: Path, folders: list[Path] = ()) -> tuple[list[str], list[tuple[Path, str]]]:
    """The headers `source` includes (directly or through headers beside it) that are neither a file
    beside their includer, nor one lowercheck models: each becomes an empty header. And the local
    copies of headers lowercheck models (a sample's own `helper_cuda.h`), which the model replaces:
    the real ones are host code against the real CUDA headers."""
    known = set(_EMPTY_HEADERS)
    missing: list[str] = []
    shadowed: list[tuple[Path, str]] = []
    seen: set[Path] = set()

    def scan(text: str, here: Path, depth: int) -> None:
        for quote, name in _INCLUDE.findall(text):
            name = name.strip()
            local = here / name
            if quote == '"' and local.is_file() and (MODELLED / name).is_file():
                shadowed.append((local.resolve(), name))
                continue
            if not local.is_file():  # a project include folder's (-I) file is read like a local one
                local = next((f / name for f in folders if (f / name).is_file()), local)
            if local.is_file() and (quote == '"' or local.parent != here):
                if depth < _INCLUDE_DEPTH and local.resolve() not in seen:
                    seen.add(local.resolve())
                    try:
                        scan(local.read_text(errors="replace"), local.parent, depth + 1)
                    except OSError:
                        pass
                continue
            if name in known or (MODELLED / name).is_file() or name in missing:
                continue
            missing.append(name)

    scan(source, folder, 0)
    return missing, shadowed


def _virtual_names(header: str) -> list[str]:
    """The paths clang may look the empty header up under (`../x.h` normalised too)."""
    raw = f"{_VIRTUAL_INCLUDE}/{header}"
    return list(dict.fromkeys([raw, os.path.normpath(raw)]))


def _check_errors(tu: ci.TranslationUnit, shown: str, stubbed: list[str] = ()) -> list[ci.Diagnostic]:
    """Raise the first error of the main file outside its functions; return the others (inside a
    function of any file, or at a project header's top level), kept for `deferred_error`."""
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if not errors:
        return []
    bodies = _all_function_bodies(tu)
    deferred, fatal = [], []
    for d in errors:
        loc = d.location
        inside = loc.file is not None and any(
            name == loc.file.name and start <= loc.offset <= end for name, start, end in bodies)
        # An error at the top level of a project header (a host-only helper class against the C
        # library) is kept too: what uses it fails at its own line when lowered.
        in_header = loc.file is not None and loc.file.name != tu.spelling and not loc.file.name.startswith(
            _VIRTUAL_INCLUDE)
        (deferred if inside or in_header else fatal).append(d)
    if fatal:
        raise _error(fatal[0], len(errors), shown, stubbed)
    return deferred


_FUNCTIONS = (ci.CursorKind.FUNCTION_DECL, ci.CursorKind.FUNCTION_TEMPLATE, ci.CursorKind.CXX_METHOD,
              ci.CursorKind.CONSTRUCTOR, ci.CursorKind.DESTRUCTOR, ci.CursorKind.CONVERSION_FUNCTION)
_SCOPES = (ci.CursorKind.NAMESPACE, ci.CursorKind.LINKAGE_SPEC, ci.CursorKind.STRUCT_DECL,
           ci.CursorKind.CLASS_DECL, ci.CursorKind.CLASS_TEMPLATE, ci.CursorKind.UNEXPOSED_DECL)


def _all_function_bodies(tu: ci.TranslationUnit) -> list[tuple[str, int, int]]:
    """(file, start, end) of every function definition in every file of the unit (the project's
    headers too): an error inside one matters only if that function is lowered."""
    found: list[tuple[str, int, int]] = []

    def visit(cursor: ci.Cursor) -> None:
        for c in cursor.get_children():
            if c.location.file is None or c.location.file.name.startswith(_VIRTUAL_INCLUDE) \
                    or c.location.file.name == str(SHIM):
                continue
            if c.kind in _FUNCTIONS and c.is_definition():
                found.append((c.location.file.name, c.extent.start.offset, c.extent.end.offset))
            elif c.kind in _SCOPES:
                visit(c)

    visit(tu.cursor)
    return found


# Template libraries whose headers lowercheck has no model of: a file built on one is LC901 naming
# it (not clang's first error against the empty header that stands in for it).
TEMPLATE_LIBRARIES = {"cutlass/": "CUTLASS", "cute/": "CuTe", "cub/": "CUB"}


def template_library(stubbed: list[str]) -> tuple[str, str] | None:
    """(library, header) of the first template-library header the file includes, or None."""
    for header in stubbed:
        for prefix, library in TEMPLATE_LIBRARIES.items():
            if header.startswith(prefix):
                return library, header
    return None


def _error(first: ci.Diagnostic, count: int, shown: str, stubbed: list[str] = ()) -> UserError | Unsupported:
    loc = first.location
    where = (_mapped(loc.file.name, loc.line, loc.column, shown) if loc.file
             else SourceLocation(shown, loc.line, loc.column))
    library = template_library(list(stubbed))
    if library is not None:  # what fails is the library's code, which lowercheck does not model
        name, header = library
        return Unsupported(f"this code is built on {name} (`<{header}>`), whose templates lowercheck does not model "
                           f"(clang, without them: {first.spelling})", where,
                           hint=f"a kernel written without {name} can be checked; one built on it cannot yet")
    more = f" (and {count - 1} more error(s))" if count > 1 else ""
    hint = None
    if "file not found" in first.spelling:
        hint = ("lowercheck parses CUDA against its own runtime model (shim.h) without system or C++ "
                "library headers; keep the kernels and their launcher in a file that needs none")
    elif "undeclared identifier" in first.spelling or "no member named" in first.spelling:
        hint = ("lowercheck's CUDA runtime model (shim.h, include/) may not declare this; if it is a CUDA "
                "or library API, report it")
    return UserError(f"{first.spelling}{more}", where, hint)


def _errors_in(parsed: _Parsed, fn: ci.Cursor) -> list[ci.Diagnostic]:
    """The kept clang errors inside the function `fn` (its file and its extent)."""
    file = fn.extent.start.file
    start, end = fn.extent.start.offset, fn.extent.end.offset
    return [d for d in parsed.deferred if file is not None and d.location.file is not None
            and d.location.file.name == file.name and start <= d.location.offset <= end]


def deferred_error(path: str | os.PathLike, functions: list[ci.Cursor]) -> UserError | None:
    """The first clang error inside any of `functions` (the ones a lowering is about to read), as
    the UserError to raise; None when they parsed cleanly."""
    parsed = _parse(path)
    for fn in functions:
        if inside := _errors_in(parsed, fn):
            return _error(inside[0], len(inside), str(path), parsed.stubbed)
    return None


def errored_functions(path: str | os.PathLike) -> list[ci.Cursor]:
    """The main file's function definitions that hold a clang error (kept for `deferred_error`)."""
    parsed = _parse(path)
    return [fn for fn in function_definitions(parsed.tu) if _errors_in(parsed, fn)]


def first_error(path: str | os.PathLike) -> UserError | Unsupported | None:
    """The main file's first kept clang error, wherever it is: what a file without a launcher
    shows instead of "no entry point" (a file cut short lost its launcher and broke a function)."""
    parsed = _parse(path)
    inside = [d for d in parsed.deferred if d.location.file is not None and d.location.file.name == parsed.tu.spelling]
    return _error(inside[0], len(inside), str(path), parsed.stubbed) if inside else None


def source_notes(path: str | os.PathLike) -> list[str]:
    """What the parse replaced or skipped, for the report's notes."""
    parsed = _parse(path)
    notes = []
    if parsed.stubbed:
        notes.append(f"{path}: replaced by empty headers (lowercheck does not model them; host-only code needs "
                     f"none): {', '.join(f'<{h}>' for h in parsed.stubbed)}")
    headers = sorted({d.location.file.name for d in parsed.deferred
                      if d.location.file is not None and d.location.file.name != parsed.tu.spelling})
    if headers:
        notes.append(f"{path}: the project's headers hold code lowercheck's CUDA model does not parse (not lowered "
                     f"unless a kernel uses it): {', '.join(headers)}")
    if parsed.folders:
        notes.append(f"{path}: the project's include folders, found beside its ancestors: "
                     f"{', '.join(str(f) for f in parsed.folders)}")
    for fn in errored_functions(path):
        first = _errors_in(parsed, fn)[0]
        where = _mapped(first.location.file.name, first.location.line, first.location.column, str(path))
        notes.append(f"{where}: `{fn.spelling}` does not parse against lowercheck's CUDA model "
                     f"({first.spelling}); it is not lowered, so this does not matter unless it is the entry")
    return notes


def _shown_name(name: str, shown: str) -> str:
    return shown if Path(name).resolve() == Path(shown).resolve() else name


def _mapped(name: str, line: int, column: int, shown: str | None) -> SourceLocation:
    """A position in a parsed file as the user sees it: in a `.py` file for embedded CUDA."""
    embedded = _EMBEDDED.get(name)
    if embedded is not None:
        py = shown if shown is not None and Path(shown).resolve() == Path(embedded.py_file) else embedded.py_file
        return SourceLocation(py, embedded.line + line - 1, column + (embedded.column - 1 if line == 1 else 0))
    if shown is not None:
        name = _shown_name(name, shown)
    return SourceLocation(name, line, column)


def location(cursor: ci.Cursor, shown: str | None = None) -> SourceLocation:
    """The cursor's position as the user wrote the file name (`shown`) where it is the main file.
    A member access is at its start (`blockIdx.x` at `blockIdx`, as clang's other expressions)."""
    loc = cursor.extent.start if cursor.kind == ci.CursorKind.MEMBER_REF_EXPR else cursor.location
    if loc.file is None:
        return SourceLocation(shown or "<unknown>", loc.line, loc.column)
    return _mapped(loc.file.name, loc.line, loc.column, shown)


def token_location(token: ci.Token, shown: str | None = None) -> SourceLocation:
    """A token's position as the user sees it (in the `.py` file for embedded CUDA)."""
    loc = token.location
    if loc.file is None:
        return SourceLocation(shown or "<unknown>", loc.line, loc.column)
    return _mapped(loc.file.name, loc.line, loc.column, shown)


# clang's UnaryOperatorKind, as clang_getCursorUnaryOperatorKind returns it.
UNARY_KINDS = {1: "post++", 2: "post--", 3: "pre++", 4: "pre--", 5: "&", 6: "*", 7: "+", 8: "-",
               9: "~", 10: "!"}


INCREMENTS = ("pre++", "pre--", "post++", "post--")


def unary_operator(cursor: ci.Cursor, shown: str) -> str:
    kind = UNARY_KINDS.get(_unary_kind_fn()(cursor))
    if kind is None:
        raise Unsupported("unary operator `" + " ".join(t.spelling for t in cursor.get_tokens()) + "`",
                          location(cursor, shown))
    return kind


@cache
def _eval_fns():
    lib = ci.conf.lib
    fns = {"eval": lib.clang_Cursor_Evaluate, "kind": lib.clang_EvalResult_getKind,
           "int": lib.clang_EvalResult_getAsLongLong, "uint": lib.clang_EvalResult_getAsUnsigned,
           "unsigned": lib.clang_EvalResult_isUnsignedInt, "double": lib.clang_EvalResult_getAsDouble,
           "dispose": lib.clang_EvalResult_dispose}
    fns["eval"].argtypes, fns["eval"].restype = [ci.Cursor], ctypes.c_void_p
    for name, restype in (("kind", ctypes.c_int), ("int", ctypes.c_longlong),
                          ("uint", ctypes.c_ulonglong), ("unsigned", ctypes.c_uint),
                          ("double", ctypes.c_double), ("dispose", None)):
        fns[name].argtypes, fns[name].restype = [ctypes.c_void_p], restype
    return fns


def evaluate(cursor: ci.Cursor) -> int | float | None:
    """Clang's constant value of an expression (literals, sizeof, macros), None when not constant."""
    fns = _eval_fns()
    result = fns["eval"](cursor)
    if not result:
        return None
    try:
        kind = fns["kind"](result)
        if kind == 1:  # CXEval_Int
            return int(fns["uint"](result)) if fns["unsigned"](result) else int(fns["int"](result))
        if kind == 2:  # CXEval_Float
            return float(fns["double"](result))
        return None
    finally:
        fns["dispose"](result)


def member_name(cursor: ci.Cursor) -> str:
    """`x` for `threadIdx.x` (clang's builtin variables hide the member behind a property)."""
    if cursor.spelling:
        return cursor.spelling
    tokens = list(cursor.get_tokens())
    return tokens[-1].spelling if tokens else ""


_ASSIGNING_OPERATOR = re.compile(r"operator(=|\+=|-=|\*=|/=|%=|&=|\|=|\^=|<<=|>>=|\+\+|--)")


def assigned_decl(cursor: ci.Cursor, shown: str) -> ci.Cursor | None:
    """The local variable or parameter that `cursor` assigns (`v = e`, `v += e`, `++v`), if any."""
    K = ci.CursorKind
    if cursor.kind == K.COMPOUND_ASSIGNMENT_OPERATOR or (
            cursor.kind == K.BINARY_OPERATOR and cursor.binary_operator.is_assignment):
        target = children(cursor)[0]
    elif cursor.kind == K.UNARY_OPERATOR and unary_operator(cursor, shown) in INCREMENTS:
        target = children(cursor)[0]
    elif cursor.kind == K.CALL_EXPR and _ASSIGNING_OPERATOR.fullmatch(cursor.spelling) and children(cursor):
        target = children(cursor)[0]  # `v = make_uint2(...)` of a vector or struct: its `operator=`
    else:
        return None
    while (target.kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR) and len(children(target)) == 1) or \
            (target.kind == K.MEMBER_REF_EXPR and children(target)  # `v.x = e` assigns the variable v
             and children(target)[0].type.get_canonical().kind == ci.TypeKind.RECORD):
        target = children(target)[0]
    return target.referenced if target.kind == K.DECL_REF_EXPR else None


def is_null_pointer(e: ci.Cursor) -> bool:
    """`nullptr`, `NULL` or a literal `0`: a null pointer constant where the other side of a
    comparison is a pointer (the caller checks that side)."""
    K = ci.CursorKind
    while e.kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR) \
            and len(children(e)) == 1:
        e = children(e)[0]
    return e.kind == K.CXX_NULL_PTR_LITERAL_EXPR or (e.kind == K.INTEGER_LITERAL and evaluate(e) == 0) \
        or (evaluate(e) == 0 and e.type.get_canonical().kind == ci.TypeKind.POINTER)


def decl_key(decl: ci.Cursor) -> tuple[int, int]:
    """A declaration's identity: clang's cursor hash, with its position against hash collisions."""
    return decl.hash, decl.location.offset


def children(cursor: ci.Cursor) -> list[ci.Cursor]:
    return list(cursor.get_children())


def is_main_file(cursor: ci.Cursor, tu: ci.TranslationUnit) -> bool:
    return cursor.location.file is not None and cursor.location.file.name == tu.spelling


def has_attr(cursor: ci.Cursor, kind: ci.CursorKind) -> bool:
    return any(c.kind == kind for c in cursor.get_children())


def is_kernel(fn: ci.Cursor) -> bool:
    return has_attr(fn, ci.CursorKind.CUDAGLOBAL_ATTR)


def is_device_only(fn: ci.Cursor) -> bool:
    return has_attr(fn, ci.CursorKind.CUDADEVICE_ATTR) and not has_attr(fn, ci.CursorKind.CUDAHOST_ATTR)


# Each translation unit's function definitions, found once: the walk visits every declaration of
# every header, and the front end asks for them several times per unit.
_DEFINITIONS: weakref.WeakKeyDictionary[ci.TranslationUnit, tuple[ci.Cursor, ...]] = weakref.WeakKeyDictionary()


def function_definitions(tu: ci.TranslationUnit) -> list[ci.Cursor]:
    """Function definitions in the main file (namespaces included), in source order."""
    if tu not in _DEFINITIONS:
        _DEFINITIONS[tu] = tuple(_function_definitions(tu))
    return list(_DEFINITIONS[tu])


def _function_definitions(tu: ci.TranslationUnit) -> list[ci.Cursor]:
    found: list[ci.Cursor] = []

    def visit(cursor: ci.Cursor) -> None:
        for c in cursor.get_children():
            if not is_main_file(c, tu):
                continue
            if c.kind == ci.CursorKind.FUNCTION_DECL and c.is_definition():
                found.append(c)
            elif c.kind in (ci.CursorKind.NAMESPACE, ci.CursorKind.LINKAGE_SPEC):
                visit(c)

    visit(tu.cursor)
    return found


def walk(cursor: ci.Cursor):
    yield cursor
    for c in cursor.get_children():
        yield from walk(c)
