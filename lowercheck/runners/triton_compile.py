"""Compile every Triton kernel of a user's file for one NVIDIA GPU, without the GPU: the facts that
`lowercheck audit` judges (LC642, LC644; `lowercheck.audit.compile`).

The runner imports the user's file (so it runs in the sandbox's child, never in lowercheck's own
process), finds the kernels the file defines (`@triton.jit`, through `@triton.autotune` and
`@triton.heuristics`; a jit function that other jit functions call, or pass on as a scan's combine
function, and that nothing launches is a helper, not compiled alone) and compiles each with
Triton's own compiler for `GPUTarget("cuda", request.options["capability"], 32)`, as far as the cubin:

- an autotuned kernel once per `triton.Config` (its kwargs as constexprs, its num_warps, num_stages);
- a plain kernel once per distinct set of constexprs its launches in the file pass as literals (a
  module-level name or a local constant counts), else with its defaults.

No argument exists, so the signature is the one a typical launch would give: a parameter annotated
with a type keeps it; a pointer (annotated, named `*ptr*`, or reaching `tl.load`/`tl.store`/... as
the base of its address) is `*fp32` with 16-byte alignment (as every torch allocation); a parameter
with a float default is `fp32`; the rest `i32`.

The facts come back in `RunResult.facts["compilations"]`, one dict per compilation (judging them
against the target is the caller's business):
- "kind": "compiled", "compile-error" or "not-checked" (not compiled: a constexpr without a value);
- "kernel": the kernel and what it was compiled with ("`k`'s config BLOCK=64, num_warps=4, ...");
- "reason": the compiler's message, or why it was not compiled ("" when compiled);
- "location": [file, line, column]: the compiler's line for an error, else the config's line, else
  the kernel's `def` line;
- "config": the config's index (-1 for a plain kernel); "pruned": the autotuner prunes its configs
  at run time (`prune_configs_by`); "same": how many other configs of the kernel failed alike (they
  are not listed again);
- "guessed": for an error on a line that uses a parameter whose type was guessed (`*fp32`, `i32`:
  it may be a tensor descriptor, or a float), that parameter: the error may be the guess's;
- "shared" (bytes: Triton's `metadata.shared`, what its launcher checks), "registers" (per thread,
  from cuobjdump; -1 when unknown), "threads" (per block): for a compiled kernel.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lowercheck.diagnostics import captured_stderr
from lowercheck.runners.base import RunRequest, RunResult
from lowercheck.runners.user_code import UserFailure, import_user_file

WARP_SIZE = 32
# Triton calls whose first argument (or this keyword) is a pointer: the base of its address is one.
_POINTER_CALLS = {
    "load": "pointer", "store": "pointer", "atomic_add": "pointer", "atomic_max": "pointer",
    "atomic_min": "pointer", "atomic_and": "pointer", "atomic_or": "pointer", "atomic_xor": "pointer",
    "atomic_xchg": "pointer", "atomic_cas": "pointer", "make_block_ptr": "base",
    "make_tensor_descriptor": "base", "advance": "base",
}
# Calls that pass a pointer through: the pointer is their first argument (or, for `where`, the others).
_PASS_THROUGH = {"multiple_of": (0,), "max_contiguous": (0,), "max_constancy": (0,), "where": (1, 2),
                 "advance": (0,)}
_MLIR_ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$", re.M)
_REGISTERS = re.compile(r"\bREG:(\d+)")


def warm_up() -> None:
    """Import torch and Triton's compiler now (the fork server calls this)."""
    import importlib

    for name in ("torch", "triton.compiler"):
        importlib.import_module(name)


def run(request: RunRequest) -> RunResult:
    start = time.monotonic()
    result = RunResult()
    for key, value in (request.options.get("env") or {}).items():
        os.environ[key] = str(value)
    compilations: list[dict[str, Any]] = []
    result.facts["compilations"] = compilations
    try:
        module = import_user_file(request.path)
        capability = int(request.options["capability"])
        tree = ast.parse(Path(request.path).read_text(encoding="utf-8-sig"))
        for name, kernel in _kernels(module, request.path, tree):
            compilations += _compile_kernel(name, kernel, module, tree, request.path, capability)
    except UserFailure as failure:
        result.error, result.error_kind = str(failure), "user"
    result.wall_s = time.monotonic() - start
    return result


# --- finding the kernels ----------------------------------------------------------------------------


def _jit_of(obj: Any):
    """The JITFunction under `@triton.autotune`/`@triton.heuristics` layers, or None."""
    from triton.runtime.jit import JITFunction

    for _ in range(8):
        if isinstance(obj, JITFunction):
            return obj
        obj = getattr(obj, "fn", None)
    return None


def _kernels(module, path: str, tree: ast.Module) -> list[tuple[str, Any]]:
    """(name, outermost wrapper) of each kernel the file defines, in source order; helpers left out."""
    real = os.path.realpath(path)
    found: dict[int, tuple[str, Any]] = {}
    inner: set[int] = set()
    for name, value in vars(module).items():
        jit = _jit_of(value)
        if jit is None or os.path.realpath(jit.fn.__code__.co_filename) != real:
            continue
        found.setdefault(id(value), (name, value))
        layer = getattr(value, "fn", None)
        while layer is not None:
            inner.add(id(layer))
            layer = getattr(layer, "fn", None)
    launched, called = _launched_and_called(tree)
    kernels = []
    for key, (name, value) in found.items():
        if key in inner:
            continue
        jit = _jit_of(value)
        helper = value is jit and jit.fn.__name__ in called and jit.fn.__name__ not in launched \
            and name not in launched
        if not helper:
            kernels.append((name, value))
    return sorted(kernels, key=lambda item: _jit_of(item[1]).fn.__code__.co_firstlineno)


def _launched_and_called(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Names launched as `k[grid](...)` anywhere, and names used inside jit functions' bodies."""
    launched, called = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
            if (name := _dotted(node.func.value)) is not None:
                launched.add(name.rpartition(".")[2])
        if isinstance(node, ast.FunctionDef) and any("jit" in (_dotted(_callee(d)) or "") for d in node.decorator_list):
            # called, or passed on (`tl.associative_scan(x, 0, combine)`, `tl.reduce(x, 0, combine)`)
            called |= {name.id for name in ast.walk(node) if isinstance(name, ast.Name) and name.id != node.name}
    return launched, called


def _callee(node: ast.expr) -> ast.expr:
    return node.func if isinstance(node, ast.Call) else node


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and (base := _dotted(node.value)) is not None:
        return f"{base}.{node.attr}"
    return None


# --- what to compile ---------------------------------------------------------------------------------


def _compile_kernel(name: str, kernel, module, tree: ast.Module, path: str, capability: int) -> list[dict[str, Any]]:
    from triton.runtime.autotuner import Autotuner

    jit = _jit_of(kernel)
    kernel_line = (path, jit.def_file_line_number, 0)
    func = _function_def(jit)
    pointers = _pointer_params(func, jit)
    defaults = {p.name: p.default for p in jit.params if p.has_default}
    heuristics = _heuristics(kernel)
    facts: list[dict[str, Any]] = []
    variants = _launch_variants(tree, jit, name, module)
    if isinstance(kernel, Autotuner):
        launched = variants[0][0]  # constexprs the autotuner does not tune come from the launch
        pruned = bool(kernel.early_config_prune or kernel.perf_model)
        lines = _config_lines(tree, jit.fn.__name__, len(kernel.configs))
        tuned = set.intersection(*(set(c.kwargs) for c in kernel.configs)) if kernel.configs else set()
        unknown = [p.name for p in jit.params if p.is_constexpr and p.name not in tuned and p.name not in heuristics
                   and isinstance({**defaults, **launched}.get(p.name, _Unknown(p.name)), _Unknown)]
        if unknown:  # the same for every config: said once
            given = ", ".join(f"{u} = {launched[u]}" if u in launched else u for u in unknown)
            return [_fact("not-checked", f"`{jit.fn.__name__}`", kernel_line, {"config": -1, "pruned": pruned},
                          reason=f"no value lowercheck can read for the constexpr(s) {given} (set when the wrapper "
                                 f"runs): its {len(kernel.configs)} configs were not compiled")]
        for index, config in enumerate(kernel.configs):
            where = (path, lines[index], 0) if lines else kernel_line
            constexprs = {**defaults, **launched, **config.kwargs}
            options = {"num_warps": config.num_warps, "num_stages": config.num_stages,
                       "num_ctas": config.num_ctas, "maxnreg": config.maxnreg}
            label = f"`{jit.fn.__name__}`'s config {_describe(config.kwargs, options)}"
            facts.append(_compile_one(jit, label, constexprs, heuristics, options, pointers, capability,
                                      where, path, {"config": index, "pruned": pruned}))
        return _merge_failures(facts, {(path, line, 0) for line in lines or ()})
    for constexprs, options in variants:
        constexprs = {**defaults, **constexprs}
        shown = {p.name: constexprs[p.name] for p in jit.params if p.is_constexpr and p.name in constexprs}
        label = f"`{jit.fn.__name__}` with {_describe(shown, options)}" if shown or options else f"`{jit.fn.__name__}`"
        facts.append(_compile_one(jit, label, constexprs, heuristics, options, pointers, capability,
                                  kernel_line, path, {"config": -1, "pruned": False}))
    return facts


def _merge_failures(facts: list[dict[str, Any]], config_lines: set[tuple[str, int, int]]) -> list[dict[str, Any]]:
    """Configs that fail for the same reason at the same line of the kernel (a config's own line does
    not count): the first one's fact, with "same" the number of other configs that failed so."""
    merged: list[dict[str, Any]] = []
    first: dict[tuple, dict[str, Any]] = {}
    for fact in facts:
        if fact["kind"] == "compiled":
            merged.append(fact)
            continue
        location = tuple(fact["location"])
        key = (fact["kind"], fact["reason"], None if location in config_lines else location)
        if key in first:
            first[key]["same"] += 1
            continue
        first[key] = fact
        merged.append(fact)
    return merged


def _fact(kind: str, kernel: str, location: tuple[str, int, int], extra: dict[str, Any], reason: str = "",
          guessed: str | None = None, **figures: int) -> dict[str, Any]:
    """One compilation's facts (the module's docstring lists them)."""
    return {"kind": kind, "kernel": kernel, "reason": reason, "location": list(location), "same": 0,
            "guessed": guessed, **extra, **figures}


def _describe(constexprs: dict[str, Any], options: dict[str, Any]) -> str:
    items = [*(f"{k}={v}" for k, v in constexprs.items()),
             *(f"{k}={v}" for k, v in options.items() if k in ("num_warps", "num_stages") and v is not None)]
    return ", ".join(items)


def _heuristics(kernel) -> dict[str, Any]:
    """`@triton.heuristics` values by name (functions of the launch's arguments)."""
    values: dict[str, Any] = {}
    layer = kernel
    while layer is not None:
        values.update(getattr(layer, "values", None) or {})
        layer = getattr(layer, "fn", None)
    return values


def _function_def(jit) -> ast.FunctionDef | None:
    try:
        tree = ast.parse(textwrap.dedent(jit.src))
    except (SyntaxError, TypeError):
        return None
    return next((node for node in tree.body if isinstance(node, ast.FunctionDef)), None)


def _config_lines(tree: ast.Module, kernel: str, count: int) -> list[int] | None:
    """The line of each `triton.Config(...)` of `kernel`'s autotune decorator, when its configs are a
    list literal (in the decorator or assigned to a module-level name) of `count` items."""
    lists = {target.id: node.value for node in tree.body if isinstance(node, ast.Assign)
             for target in node.targets if isinstance(target, ast.Name) and isinstance(node.value, ast.List)}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.FunctionDef) and node.name == kernel):
            continue
        for decorator in node.decorator_list:
            if not (isinstance(decorator, ast.Call) and (_dotted(decorator.func) or "").endswith("autotune")):
                continue
            configs = next((kw.value for kw in decorator.keywords if kw.arg == "configs"),
                           decorator.args[0] if decorator.args else None)
            if isinstance(configs, ast.Name):
                configs = lists.get(configs.id)
            if isinstance(configs, ast.List) and len(configs.elts) == count:
                return [item.lineno for item in configs.elts]
            return [decorator.lineno] * count
    return None


def _launch_variants(tree: ast.Module, jit, name: str, module) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The distinct (constexprs, options) that the file's launches `name[grid](...)` pass as values
    lowercheck can read without running the wrapper; one empty variant when there is no launch."""
    params = [p.name for p in jit.params]
    constexpr = {p.name for p in jit.params if p.is_constexpr}
    variants: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for function in [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
        local = _local_constants(function) if function is not tree else {}
        statements = [s for s in function.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for node in (n for stmt in statements for n in _walk_shallow(stmt)):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript)):
                continue
            if (_dotted(node.func.value) or "").rpartition(".")[2] not in (name, jit.fn.__name__):
                continue
            constexprs: dict[str, Any] = {}
            options: dict[str, Any] = {}
            for index, arg in enumerate(node.args):
                if index < len(params) and params[index] in constexpr:
                    constexprs[params[index]] = _value(arg, local, module)
            for kw in node.keywords:
                if kw.arg in constexpr:
                    constexprs[kw.arg] = _value(kw.value, local, module)
                elif kw.arg in ("num_warps", "num_stages"):
                    options[kw.arg] = _value(kw.value, local, module)
            variant = (constexprs, options)
            if variant not in variants:
                variants.append(variant)
    return variants or [({}, {})]


def _walk_shallow(node: ast.AST) -> Iterator[ast.AST]:
    """`ast.walk` that does not enter nested function definitions (they are visited on their own)."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield from _walk_shallow(child)


class _Unknown:
    """A launch argument lowercheck cannot read without running the wrapper."""

    def __init__(self, text: str):
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Unknown) and other.text == self.text

    def __repr__(self) -> str:
        return self.text


def _local_constants(function: ast.FunctionDef) -> dict[str, ast.expr]:
    """Names a function assigns exactly once, to the expression assigned."""
    seen: dict[str, list[ast.expr]] = {}
    for node in _walk_shallow(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    seen.setdefault(target.id, []).append(node.value)
                elif isinstance(target, ast.Tuple):  # `BLOCK_M, BLOCK_N = 32, 64`
                    values = node.value.elts if isinstance(node.value, ast.Tuple) and \
                        len(node.value.elts) == len(target.elts) else [None] * len(target.elts)
                    for name, value in zip(target.elts, values, strict=True):
                        if isinstance(name, ast.Name):
                            seen.setdefault(name.id, []).extend([value] if value is not None else [name, name])
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
            seen.setdefault(node.target.id, []).extend([node.value, node.value])  # never a constant
    return {name: values[0] for name, values in seen.items() if len(values) == 1}


def _value(node: ast.expr, local: dict[str, ast.expr], module, depth: int = 0) -> Any:
    """A launch argument's value: a literal, arithmetic on literals, a local constant, a module
    global (and its attributes: `tl.float16`); else `_Unknown`."""
    unknown = _Unknown(ast.unparse(node))
    if depth > 8:
        return unknown
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in local:
            return _value(local[node.id], {}, module, depth + 1)
        return getattr(module, node.id, unknown)
    if isinstance(node, ast.Attribute):
        base = _value(node.value, local, module, depth + 1)
        return unknown if isinstance(base, _Unknown) else getattr(base, node.attr, unknown)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        operand = _value(node.operand, local, module, depth + 1)
        return -operand if isinstance(operand, (int, float)) else unknown
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.LShift)):
        left, right = (_value(n, local, module, depth + 1) for n in (node.left, node.right))
        if isinstance(left, int) and isinstance(right, int) and not isinstance(left, bool):
            ops = {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__,
                   ast.FloorDiv: int.__floordiv__, ast.LShift: int.__lshift__}
            return ops[type(node.op)](left, right) if not (isinstance(node.op, ast.FloorDiv) and right == 0) else unknown
    return unknown


# --- the signature -----------------------------------------------------------------------------------


def _pointer_params(func: ast.FunctionDef | None, jit) -> set[str]:
    """Parameters used as pointers: annotated so, named `*ptr*`, or the base of an address that a
    load, store, atomic or block pointer takes (through local names, `+`/`-`, subscripts, `where`).
    In a sum, the pointer is its first name (`x_ptr + offs`, `a_ptr + rm[:, None] * stride_am`)."""
    params = {p.name for p in jit.params if not p.is_constexpr}
    pointers = {p.name for p in jit.params if p.annotation.startswith("*")}
    pointers |= {p for p in params if "ptr" in p.lower()}
    if func is None:
        return pointers
    assigned: dict[str, list[ast.expr]] = {}
    pending: list[ast.expr] = []
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).append(node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)):
            callee = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
            keyword = _POINTER_CALLS.get(callee)
            if keyword is None:
                continue
            given = next((kw.value for kw in node.keywords if kw.arg == keyword), None)
            if given is None and node.args:
                given = node.args[0]
            if given is not None:
                pending.append(given)
    seen: set[str] = set()
    while pending:
        for name in _bases(pending.pop()):
            if name in seen:
                continue
            seen.add(name)
            if name in params:
                pointers.add(name)
            pending += assigned.get(name, [])
    return pointers


def _bases(node: ast.expr) -> list[str]:
    """The names a pointer-valued expression takes its pointer from."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Subscript):
        return _bases(node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
        return _bases(node.left)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        for term in _terms(node):
            if isinstance(term, (ast.Name, ast.Subscript, ast.Call, ast.IfExp)) and (found := _bases(term)):
                return found
        return []
    if isinstance(node, ast.IfExp):
        return _bases(node.body) + _bases(node.orelse)
    if isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)):
        callee = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
        return [name for i in _PASS_THROUGH.get(callee, ()) if i < len(node.args) for name in _bases(node.args[i])]
    return []


def _terms(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _terms(node.left) + _terms(node.right)
    return [node]


def _signature(jit, constexprs: dict[str, Any], pointers: set[str]) -> tuple[dict[str, str], dict, dict]:
    """(signature, constexprs, attrs) for `ASTSource`."""
    signature: dict[str, str] = {}
    attrs: dict[tuple[int, ...], list] = {}
    for index, param in enumerate(jit.params):
        if param.is_constexpr:
            signature[param.name] = "constexpr"
        elif param.annotation_type:
            signature[param.name] = param.annotation_type
        elif param.name in pointers:
            signature[param.name] = "*fp32"
        elif param.has_default and isinstance(param.default, float):
            signature[param.name] = "fp32"
        else:
            signature[param.name] = "i32"
        if signature[param.name].startswith("*"):
            attrs[(index,)] = [["tt.divisibility", 16]]
    values = {name: constexprs[name] for name, ty in signature.items() if ty == "constexpr"}
    return signature, values, attrs


# --- compiling -----------------------------------------------------------------------------------------


def _compile_one(jit, label: str, constexprs: dict[str, Any], heuristics: dict[str, Any], options: dict[str, Any],
                 pointers: set[str], capability: int, where: tuple[str, int, int], path: str,
                 extra: dict[str, Any]) -> dict[str, Any]:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.compiler.errors import CompilationError

    for name, rule in heuristics.items():  # rules that read only constexprs; others stay unknown
        if name not in constexprs or isinstance(constexprs[name], _Unknown):
            try:
                constexprs[name] = rule(dict(constexprs))
            except Exception:  # noqa: BLE001 - a rule of the launch's arguments
                constexprs[name] = _Unknown(f"@triton.heuristics value of `{name}`")
    missing = [p.name for p in jit.params if p.is_constexpr
               and (p.name not in constexprs or isinstance(constexprs[p.name], _Unknown))]
    if missing:
        given = ", ".join(f"{m} = {constexprs[m]}" if m in constexprs else m for m in missing)
        kernel = label if extra.get("config", -1) >= 0 else f"`{jit.fn.__name__}`"
        return _fact("not-checked", kernel, where, extra,
                     reason=f"no value lowercheck can read for the constexpr(s) {given} (set when the wrapper runs)")
    signature, values, attrs = _signature(jit, constexprs, pointers)
    opts = {k: v for k, v in options.items() if v is not None and not isinstance(v, _Unknown)}
    try:
        with captured_stderr() as diagnostics:
            compiled = triton.compile(ASTSource(fn=jit, signature=signature, constexprs=values, attrs=attrs),
                                      target=GPUTarget("cuda", capability, WARP_SIZE), options=opts)
    except CompilationError as err:
        return _compile_error(jit, label, _first_line(err.error_message) or "compile error",
                              _error_location(err, jit, path), extra)
    except Exception as err:  # noqa: BLE001 - MLIR and ptxas failures: RuntimeError and friends
        found = _MLIR_ERROR.search("".join(diagnostics))
        if found and os.path.realpath(found["file"]) == os.path.realpath(path):
            return _compile_error(jit, label, found["msg"], (path, int(found["line"]), int(found["col"])), extra)
        message = found["msg"] if found else f"{type(err).__name__}: {_first_line(str(err))}"
        return _fact("compile-error", label, where, extra, reason=message)
    metadata = compiled.metadata
    return _fact("compiled", label, where, extra, shared=int(metadata.shared),
                 registers=_registers(compiled.asm.get("cubin")), threads=int(metadata.num_warps) * WARP_SIZE)


def _compile_error(jit, label: str, message: str, location: tuple[str, int, int],
                   extra: dict[str, Any]) -> dict[str, Any]:
    """A compile error at a user's line, with "guessed" the first parameter of the kernel that the
    line uses and whose type lowercheck guessed (the error may then be the guess's, not the kernel's)."""
    import linecache

    text = linecache.getline(location[0], location[1])
    guessed = [p.name for p in jit.params if not p.is_constexpr and not p.annotation_type
               and re.search(rf"\b{re.escape(p.name)}\b", text)]
    return _fact("compile-error", label, location, extra, reason=message, guessed=guessed[0] if guessed else None)


def _first_line(text: str | None) -> str:
    return next((line.strip() for line in (text or "").splitlines() if line.strip()), "")


def _error_location(err, jit, path: str) -> tuple[str, int, int]:
    """The user's line of a `CompilationError`: its node is relative to the source of the jit
    function that failed (the kernel, or a helper the file defines)."""
    import sys

    from triton.runtime.jit import JITFunction

    failed = jit
    module = sys.modules.get(jit.fn.__module__)
    for value in vars(module).values() if module else ():
        if isinstance(value, JITFunction) and value.src == err.src:
            failed = value
    node = err.node
    file = failed.fn.__code__.co_filename
    shown = path if os.path.realpath(file) == os.path.realpath(path) else file
    return shown, failed.def_file_line_number + getattr(node, "lineno", 1) - 1, getattr(node, "col_offset", -1) + 1


def _registers(cubin: bytes | None) -> int:
    """Registers per thread of the kernel in `cubin` (cuobjdump's resource usage); -1 if unknown."""
    if not cubin:
        return -1
    from triton import knobs

    try:
        tool = knobs.nvidia.cuobjdump.path
    except Exception:  # noqa: BLE001 - no cuobjdump here
        return -1
    with tempfile.NamedTemporaryFile(suffix=".cubin") as handle:
        handle.write(cubin)
        handle.flush()
        try:
            done = subprocess.run([tool, "--dump-resource-usage", handle.name], capture_output=True, text=True,
                                  timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return -1
    found = _REGISTERS.findall(done.stdout)
    return max(int(n) for n in found) if found else -1


