"""Host launchers written as function templates, lowered as the file instantiates them.

Real CUDA libraries write one launcher per element type as a template and instantiate it explicitly,
often from a macro:

    template <typename T> void launch_bias_gelu(T* x, const T* bias, int n, cudaStream_t s) { ... }
    #define INSTANTIATE(T) template void launch_bias_gelu<T>(T*, const T*, int, cudaStream_t);
    INSTANTIATE(float)
    INSTANTIATE(__half)

libclang shows the template's pattern (dependent types, no launch to read) and no cursor for an
explicit instantiation. It does show an instantiated definition through any reference to a
specialization, so the file is parsed once more with one line per instance appended,
`static void (*__lowercheck_instance_0)(float*, const float*, int, cudaStream_t) = &launch_bias_gelu<float>;`,
whose reference leads to the instantiated body, with concrete types, that the host reader and the
kernel lowering read as any other launcher.

Which instances: the explicit instantiations of the file, found in its text after expanding its
function-like macros once (`#define INST(T) template void f<T>(...)` and `INST(float)`); a template
with type parameters only and no explicit instantiation is instantiated with `float` for each; one
with a value parameter, as the file's own calls instantiate it (`used_instances`: a dispatcher's
`launch_impl<4, Type::Symmetric>(...)`). The
entry `f` is the first float instance (else the first); `f<__half>` names another.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import clang.cindex as ci

PROBE = "__lowercheck_instance_"
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)[ \t]*(.*)$", re.M)
# `template RET NAME<ARGS>(PARAMS);` (ARGS nests one level of <>), or `template RET NAME(PARAMS);`.
_EXPLICIT = re.compile(
    r"\btemplate\s+(?!<)(?P<ret>(?:[\w:]+[\s*&]+)+?)(?P<name>[A-Za-z_]\w*)\s*"
    r"(?:<(?P<args>[^<>;{}()]*(?:<[^<>;{}()]*>[^<>;{}()]*)*)>)?\s*\((?P<params>[^;{}]*)\)\s*;")


@dataclass(frozen=True)
class Instance:
    """One instantiation of a host launcher template: its template arguments as written (None: deduced
    from `params`), the function type's return and parameter text, and the probe's variable."""

    name: str
    args: str | None
    ret: str
    params: str | None  # None: no explicit instantiation, `&name<args>` alone
    scope: str = ""  # the template's namespaces, `ops::` (the probes are at the file's top level)

    @property
    def shown(self) -> str:
        return f"{self.name}<{self.args}>" if self.args is not None else self.name


def _logical_lines(source: str) -> str:
    return source.replace("\\\r\n", " ").replace("\\\n", " ")


def _expanded(source: str) -> str:
    """The file's text without its directives and, after it, each use of one of its function-like macros that writes an
    explicit instantiation, expanded once (with `#P` and `a##b` as the preprocessor does)."""
    text = _logical_lines(source)
    expansions = []
    for match in _DEFINE.finditer(text):
        name, params, body = match.group(1), [p.strip() for p in match.group(2).split(",")], match.group(3)
        if "template" not in body:
            continue
        for use in re.finditer(rf"(?<![\w#])\b{re.escape(name)}\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)", text):
            line_start = text.rfind("\n", 0, use.start()) + 1
            if re.match(r"[ \t]*#", text[line_start:use.start()]):
                continue  # the #define itself, or another directive naming it
            args = [a.strip() for a in use.group(1).split(",")]
            if len(args) != len(params):
                continue
            out = body
            for param, arg in zip(params, args, strict=True):
                out = re.sub(rf"#\s*\b{re.escape(param)}\b", f'"{arg}"', out)
                out = re.sub(rf"\b{re.escape(param)}\b", arg, out)
            # Each use ends its statement: a macro whose body has no `;` (the use writes it) must not
            # run into the next expansion.
            expansions.append(re.sub(r"\s*##\s*", "", out) + ";")
    code = re.sub(r"^[ \t]*#.*$", "", text, flags=re.M)  # a macro's body is no instantiation itself
    return code + "\n" + "\n".join(expansions)


def explicit_instantiations(source: str) -> dict[str, list[Instance]]:
    """Each explicit instantiation the file writes, by the template's name, in order, once each."""
    found: dict[str, list[Instance]] = {}
    for match in _EXPLICIT.finditer(_expanded(source)):
        ret = " ".join(w for w in match.group("ret").split() if w not in ("__host__", "inline", "static"))
        args = " ".join(match.group("args").split()) if match.group("args") is not None else None
        instance = Instance(match.group("name"), args, ret, " ".join(match.group("params").split()))
        if instance not in found.setdefault(instance.name, []):
            found[instance.name].append(instance)
    return found


def _launching_macros(source: str) -> set[str]:
    """The file's macros that launch a kernel: their body writes `<<<`, or uses a macro that does
    (`LAUNCH_FOR_ALIGNMENT(A)` choosing among `LAUNCH_HALF(4, A)`, ... each with a `<<<`)."""
    bodies = {m.group(1): m.group(2) for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(.*)$",
                                                          _logical_lines(source), re.M)}
    launching = {name for name, body in bodies.items() if "<<<" in body}
    while more := {name for name, body in bodies.items() if name not in launching
                   and launching & set(re.findall(r"\w+", body))}:
        launching |= more
    return launching


def launcher_templates(tu: ci.TranslationUnit, source: str) -> list[ci.Cursor]:
    """Host function templates of the main file (namespaces included) whose body launches a kernel:
    writes `<<<`, uses a macro of the file that does (`#define LAUNCH(...) k<<<...>>>(...)`), or
    calls another such template (a `switch` choosing `launch_impl<T, GELU>` or `launch_impl<T, RELU>`)."""
    launching = _launching_macros(source)
    templates: list[ci.Cursor] = []

    def visit(cursor: ci.Cursor) -> None:
        for c in cursor.get_children():
            if c.location.file is None or c.location.file.name != tu.spelling:
                continue
            if c.kind == ci.CursorKind.FUNCTION_TEMPLATE and c.is_definition() \
                    and not any(k.kind in (ci.CursorKind.CUDAGLOBAL_ATTR, ci.CursorKind.CUDADEVICE_ATTR)
                                for k in c.get_children()):
                templates.append(c)
            elif c.kind in (ci.CursorKind.NAMESPACE, ci.CursorKind.LINKAGE_SPEC):
                visit(c)

    visit(tu.cursor)
    tokens = {_key(t): {k.spelling for k in tu.get_tokens(extent=t.extent)} for t in templates}
    found = [t for t in templates if "<<<" in tokens[_key(t)] or launching & tokens[_key(t)]]
    while more := [t for t in templates if t not in found and {f.spelling for f in found} & tokens[_key(t)]]:
        found += more
    return [t for t in templates if t in found]


def _key(cursor: ci.Cursor) -> tuple[int, int]:
    return cursor.hash, cursor.location.offset


def _scope(cursor: ci.Cursor) -> str:
    parts = []
    parent = cursor.semantic_parent
    while parent is not None and parent.kind == ci.CursorKind.NAMESPACE:
        parts.append(parent.spelling)
        parent = parent.semantic_parent
    return "".join(f"{p}::" for p in reversed(parts))


def planned(tu: ci.TranslationUnit, source: str) -> list[Instance]:
    """The instances to probe: the file's explicit instantiations of its launcher templates, else
    `float` for each type parameter of one that has only type parameters."""
    written = explicit_instantiations(source)
    planned: list[Instance] = []
    for template in launcher_templates(tu, source):
        scope = _scope(template)
        instances = written.get(template.spelling, [])
        if not instances:
            kinds = [c.kind for c in template.get_children()
                     if c.kind in (ci.CursorKind.TEMPLATE_TYPE_PARAMETER, ci.CursorKind.TEMPLATE_NON_TYPE_PARAMETER,
                                   ci.CursorKind.TEMPLATE_TEMPLATE_PARAMETER)]
            if not kinds or any(k != ci.CursorKind.TEMPLATE_TYPE_PARAMETER for k in kinds):
                continue  # a value parameter: the instances the file's own calls make (`used_instances`)
            instances = [Instance(template.spelling, ", ".join(["float"] * len(kinds)), "", None)]
        planned += [Instance(i.name, i.args, i.ret, i.params, scope) for i in instances]
    return planned


def probe_lines(instances: list[Instance]) -> list[str]:
    """One line per instance: a variable whose initialiser refers to the specialization."""
    lines = []
    for index, i in enumerate(instances):
        target = f"&{i.scope}{i.shown}"
        if i.params is None:
            lines.append(f"static auto {PROBE}{index} = {target};")
        else:
            lines.append(f"static {i.ret} (*{PROBE}{index})({i.params}) = {target};")
    return lines


def instantiated(tu: ci.TranslationUnit, instances: list[Instance]) -> list[tuple[Instance, ci.Cursor]]:
    """The instantiated definition each probe refers to (the probes that did not resolve: none)."""
    found = []
    for c in tu.cursor.get_children():
        if c.kind != ci.CursorKind.VAR_DECL or not c.spelling.startswith(PROBE):
            continue
        index = int(c.spelling.removeprefix(PROBE))
        ref = next((d.referenced for d in _walk(c) if d.kind == ci.CursorKind.DECL_REF_EXPR and d.referenced), None)
        definition = ref.get_definition() if ref is not None else None
        if definition is not None and definition.kind == ci.CursorKind.FUNCTION_DECL and index < len(instances):
            found.append((instances[index], definition))
    return found


def _walk(cursor: ci.Cursor):
    yield cursor
    for c in cursor.get_children():
        yield from _walk(c)


def used_instances(tu: ci.TranslationUnit, source: str, callers: list[ci.Cursor]) -> list[tuple[Instance, ci.Cursor]]:
    """The instances of launcher templates with value parameters that the file neither instantiates
    explicitly nor can choose values for, as its own code calls them: a dispatcher's
    `launch_impl<4, Type::Symmetric>(...)` in a function of the file, or in `callers` (instantiated
    launchers, whose calls name their own arguments). Each such call instantiates the template, so
    its definition is there to read; the instance is named by its arguments (`launch_impl<4, 0>`)."""
    written = explicit_instantiations(source)
    wanted = [t for t in launcher_templates(tu, source) if t.spelling not in written and any(
        c.kind != ci.CursorKind.TEMPLATE_TYPE_PARAMETER for c in t.get_children()
        if c.kind in (ci.CursorKind.TEMPLATE_TYPE_PARAMETER, ci.CursorKind.TEMPLATE_NON_TYPE_PARAMETER,
                      ci.CursorKind.TEMPLATE_TEMPLATE_PARAMETER))]
    if not wanted:
        return []
    todo = [c for c in _main_functions(tu) if c.kind == ci.CursorKind.FUNCTION_DECL and c.is_definition()]
    todo += callers
    found: dict[tuple[int, int], tuple[Instance, ci.Cursor]] = {}
    seen: set[tuple[int, int]] = set()
    while todo:
        caller = todo.pop(0)
        if _key(caller) in seen:
            continue
        seen.add(_key(caller))
        for ref in _walk(caller):
            callee = ref.referenced if ref.kind == ci.CursorKind.DECL_REF_EXPR else None
            template = callee.specialized_template if callee is not None and callee.kind == ci.CursorKind.FUNCTION_DECL \
                else None
            definition = callee.get_definition() if template is not None and template in wanted else None
            if definition is not None and _key(definition) not in found:
                found[_key(definition)] = (Instance(template.spelling, None, "", None, _scope(template)), definition)
                todo.append(definition)  # an instance that calls another
    return list(found.values())


def _main_functions(tu: ci.TranslationUnit, scope: ci.Cursor | None = None):
    """The main file's declarations, those in namespaces and `extern "C"` blocks too."""
    for c in (scope or tu.cursor).get_children():
        if c.location.file is None or c.location.file.name != tu.spelling:
            continue
        if c.kind in (ci.CursorKind.NAMESPACE, ci.CursorKind.LINKAGE_SPEC):
            yield from _main_functions(tu, c)
        else:
            yield c
