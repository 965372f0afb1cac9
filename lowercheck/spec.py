"""The optional spec file (TOML): sizes to sweep and what each entry argument is.

```toml
[sizes]            # integer parameters and the values to sweep (several: their Cartesian product)
n = [1, 1000, 4097]
[args.x]           # per argument of the entry (by name): shape in sizes, dtype, role
shape = ["n"]      # each entry a size name, an integer, or a product/sum of them ("2*half")
dtype = "float32"  # optional: a typed side (CUDA) keeps its own; an untyped one is float32
role = "in"        # in | out | inout: replaces what lowercheck infers from the code (said in a note)
[args.ids]         # an integer input's values: lo <= v < hi in every run (indices into a table of v rows)
shape = ["n"]
range = [0, "v"]   # each bound an integer or a size expression
[args.eps]         # a scalar the entry receives as given, in every run (never swept)
value = 1e-6       # a number, a boolean, a string ("mean"), a list (a tuple); `none = true`: None
[args.res]         # a tuple of arrays (a custom_vjp backward's residuals): one table per item
items = [{ shape = ["n"], dtype = "float32" }, { none = true }]
[args.block_sizes] # an object the entry's own module makes (a config dataclass), in every run
construct = "BlockSizes"        # or "BlockSizes.get_default": a factory
kwargs = { block_q = 64 }       # values: numbers, strings, lists, tables (dicts), constructs
                                # (`mask = { construct = "mask_lib.CausalMask", kwargs = {...} }`);
                                # `item = 0`: the first of what the construct returns
[launch]           # the entry is a kernel itself (a `@triton.jit` kernel, no wrapper): its grid
grid = ["(n + 1023) // 1024"]   # one to three extents over the sizes
```
"""

from __future__ import annotations

import itertools
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from lowercheck.errors import SourceLocation, UserError, read_user_text

# A shape entry: a size name, an integer, or an expression of them with + and * ("2*half").
_NAME = re.compile(r"[A-Za-z_]\w*")
_EXTENT = re.compile(r"\s*(?:[A-Za-z_]\w*|\d+)(?:\s*[*+]\s*(?:[A-Za-z_]\w*|\d+))*\s*")
DTYPES = ("float8_e4m3fn", "float8_e5m2", "float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "uint64", "bool")
ROLES = ("in", "out", "inout")


@dataclass(frozen=True)
class Construct:
    """A spec's `construct`: the value is `NAME(**kwargs)`, NAME (dotted: `BlockSizes.get_default`,
    `mask_lib.CausalMask` of a module the entry's imports) looked up in the entry's module when the
    entry is called (capture and runs alike); `item`: element `item` of what it returns (a factory
    that returns a pair). A dotted NAME that is no callable, without kwargs, is that value itself
    (an enum member: `QKVLayout.HEAD_DIM_MINOR`)."""

    name: str
    # (keyword, value); a value is a scalar, a tuple (a TOML list), a `Table` (passed as a dict:
    # `triton.Config({"BLOCK": 64})`) or a `Construct` of its own (made first)
    kwargs: tuple[tuple[str, object], ...] = ()
    item: int | None = None
    where: SourceLocation | None = field(default=None, compare=False, repr=False)  # the spec's line, for its errors

    def make(self, namespace: dict):
        head, *rest = self.name.split(".")
        target = namespace.get(head)
        for part in rest:
            target = getattr(target, part, None)
        if target is not None and not callable(target) and not self.kwargs and self.item is None and rest:
            return target  # `QKVLayout.HEAD_DIM_MINOR`: an enum member, a class's constant
        if not callable(target):
            raise UserError(f"the spec constructs `{self.name}`, which the entry's module does not define", self.where,
                            hint="name a class or function the entry's file defines or imports")
        kwargs = {k: _made(v, namespace) for k, v in self.kwargs}
        try:
            made = target(**kwargs)
            return made[self.item] if self.item is not None else made
        except Exception as err:  # noqa: BLE001 - the user's class rejected the spec's kwargs
            raise UserError(f"the spec's `construct = \"{self.name}\"` raised {type(err).__name__}: {err}", self.where,
                            hint="check the construct's kwargs against its signature") from None


@dataclass(frozen=True)
class Table:
    """A TOML table among a construct's kwargs: passed as a dict."""

    pairs: tuple[tuple[str, object], ...]


def _made(value: object, namespace: dict) -> object:
    if isinstance(value, Construct):
        return value.make(namespace)
    if isinstance(value, Table):
        return {k: _made(v, namespace) for k, v in value.pairs}
    if isinstance(value, tuple):
        return tuple(_made(v, namespace) for v in value)
    return value


def constructed(value, fn):
    """`value`, or the object a `Construct` makes in `fn`'s module (anything else passes as is)."""
    if isinstance(value, Construct):
        import inspect

        inner = inspect.unwrap(getattr(fn, "func", fn))  # through functools.wraps and partial
        return value.make(getattr(inner, "__globals__", {}))
    if isinstance(value, tuple):
        return tuple(constructed(v, fn) for v in value)
    return value


@dataclass(frozen=True)
class ArgSpec:
    shape: tuple[str | int, ...] | None = None
    dtype: str | None = None
    role: str | None = None
    fixed: bool = False  # `value = ...` or `none = true`: the entry receives `value` as is
    value: bool | int | float | str | tuple | None = None
    items: tuple[ArgSpec, ...] | None = None  # `items = [...]`: a tuple of these (arrays or values)
    range: tuple[str | int, str | int] | None = None  # an integer input's values: lo <= v < hi


@dataclass(frozen=True)
class Spec:
    sizes: dict[str, list[int]] = field(default_factory=dict)
    args: dict[str, ArgSpec] = field(default_factory=dict)
    path: str | None = None
    grid: tuple[str, ...] | None = None  # `[launch] grid`: a kernel entry's launch grid over the sizes
    given_on_command_line: frozenset[str] = frozenset()  # sizes `--size` gives (over the file's)

    def sweep(self) -> list[dict[str, int]]:
        """Every combination of the size values (the Cartesian product), in order."""
        names = list(self.sizes)
        return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*self.sizes.values())]

    def with_sizes(self, overrides: dict[str, list[int]]) -> Spec:
        """The spec with sizes of the command line (`--size`) over its own."""
        check_sweep_limit({**self.sizes, **overrides}, None, "--size over the spec" if self.path else "--size")
        return Spec({**self.sizes, **overrides}, self.args, self.path, self.grid,
                    self.given_on_command_line | frozenset(overrides))

    def where(self, key: str) -> SourceLocation | None:
        """The spec file's line of `key` (`sizes.n`, `args.x`, `launch`; line 1 when the file writes
        it in a way `line_of` does not find); None where no file says it (no spec file, a size the
        command line gives)."""
        size = key.removeprefix("sizes.") if key.startswith("sizes.") else None
        if self.path is None or size in self.given_on_command_line:
            return None
        return _at(self.path, Path(self.path), key)

    def origin(self, size: str) -> str:
        """Where a size's values come from, in words: `--size n=...` or the spec."""
        if size in self.given_on_command_line:
            return f"--size {size}={','.join(map(str, self.sizes[size]))}"
        return "the spec" if self.path else "the default sweep"


def load(path: str | None) -> Spec:
    if path is None:
        return Spec()
    file = Path(path)
    if not file.exists():
        raise UserError(f"--spec {path}: no such file", hint="pass an existing TOML file to --spec")
    text = read_user_text(path, "a TOML spec")  # a directory, a binary or a huge file: said at its line
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        line = getattr(err, "lineno", 0) or _toml_error_line(str(err), file) or 1
        raise UserError(f"the spec is not valid TOML: {err}", SourceLocation(path, line),
                        hint="see `lowercheck diff --help` for the spec format") from None
    unknown = set(data) - {"sizes", "args", "launch"}
    if unknown:
        raise UserError(f"unknown section(s) {sorted(unknown)} in the spec", SourceLocation(path, 1),
                        hint="a spec has [sizes], [args.NAME] and [launch] sections")
    for section in ("sizes", "args", "launch"):
        if section in data and not isinstance(data[section], dict):
            raise UserError(f"`{section}` must be a table ([{section}])", _at(path, file, section),
                            hint="a spec has [sizes], [args.NAME] and [launch] sections")
    sizes: dict[str, list[int]] = {}
    for name, values in data.get("sizes", {}).items():
        values = values if isinstance(values, list) else [values]
        if not values or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
            raise UserError(f"size `{name}` must be a non-negative integer or a list of them",
                            _at(path, file, name), hint=f"{name} = [1, 1000, 4097]")
        check_size_limits(name, values, _at(path, file, name))
        sizes[name] = values
    check_sweep_limit(sizes, _at(path, file, "sizes"))
    args: dict[str, ArgSpec] = {}
    for name, entry in data.get("args", {}).items():
        where = _at(path, file, f"args.{name}")
        if not isinstance(entry, dict):
            raise UserError(f"[args.{name}] must be a table", where)
        shape = entry.get("shape")
        if shape is not None:
            if not isinstance(shape, list) or not all(isinstance(d, (str, int)) for d in shape):
                raise UserError(f"[args.{name}] shape must be a list of size names or integers", where,
                                hint='shape = ["n"]')
            for d in shape:
                if not isinstance(d, str):
                    continue
                if not _EXTENT.fullmatch(d):
                    raise UserError(f"[args.{name}] shape entry `{d}` is not a size, an integer or a product/sum "
                                    "of them", where, hint='shape = ["seq", "2*half"]')
                for used in _NAME.findall(d):
                    if used not in sizes:
                        raise UserError(f"[args.{name}] shape names `{used}`, which is not in [sizes]", where,
                                        hint=f"add `{used} = [...]` to [sizes]")
            shape = tuple(shape)
        dtype = entry.get("dtype")
        if dtype is not None and dtype not in DTYPES:
            raise UserError(f"[args.{name}] dtype `{dtype}` is not one of {', '.join(DTYPES)}", where)
        role = entry.get("role")
        if role is not None and role not in ROLES:
            raise UserError(f"[args.{name}] role `{role}` is not one of {', '.join(ROLES)}", where)
        unknown_keys = set(entry) - {"shape", "dtype", "role", "value", "none", "items", "range", "construct", "kwargs",
                                     "item"}
        if unknown_keys:
            raise UserError(f"[args.{name}] has unknown key(s) {', '.join(sorted(unknown_keys))}", where,
                            hint="an argument has shape, dtype, role, range, a value (value = ..., none = true, "
                                 "construct = ...), or items")
        value_range = _range(name, entry, sizes, where)
        if "items" in entry:
            args[name] = ArgSpec(items=_items(name, entry, sizes, where))
            continue
        fixed, value = _fixed_value(name, entry, where)
        if fixed and (shape is not None or role is not None):
            raise UserError(f"[args.{name}] gives both a value and a tensor's shape or role", where,
                            hint="a tensor has shape, dtype and role; a scalar has a value")
        if value_range is not None and (fixed or (dtype is not None and not dtype.startswith(("int", "uint")))):
            raise UserError(f"[args.{name}] range is for an integer tensor's values", where,
                            hint='range = [0, "vocab"] with dtype = "int64"')
        args[name] = ArgSpec(shape, dtype, role, fixed, value, range=value_range)
    return Spec(sizes, args, path, _grid(data.get("launch"), sizes, file, path))


def _grid(launch: object, sizes: dict[str, list[int]], file: Path, path: str) -> tuple[str, ...] | None:
    """`[launch] grid = ["(n + 1023) // 1024", 1]`: the grid a kernel entry (a `@triton.jit` kernel
    named as the entry, no wrapper) is launched on, one extent per axis over the sizes."""
    if launch is None:
        return None
    where = _at(path, file, "launch")
    if not isinstance(launch, dict) or set(launch) - {"grid"}:
        raise UserError("[launch] holds one key, `grid`", where, hint='[launch]\ngrid = ["(n + 1023) // 1024"]')
    grid = launch.get("grid")
    if not isinstance(grid, list) or not 1 <= len(grid) <= 3 or not all(isinstance(g, (str, int)) for g in grid):
        raise UserError("[launch] grid is a list of one to three extents (integers, or expressions over the sizes)",
                        where, hint='grid = ["(n + 1023) // 1024"]')
    from lowercheck import symbolic

    texts = []
    for g in grid:
        try:
            expr = symbolic.parse(str(g))
        except ValueError as err:
            raise UserError(f"[launch] grid extent `{g}` is not an expression over the sizes ({err})", where,
                            hint='grid = ["(n + 1023) // 1024"]') from None
        unknown = sorted(str(s) for s in expr.free_symbols if str(s) not in sizes)
        if unknown:
            raise UserError(f"[launch] grid extent `{g}` names {', '.join(unknown)}, not in [sizes]", where,
                            hint=f"add `{unknown[0]} = [...]` to [sizes]")
        texts.append(symbolic.format(expr))
    return tuple(texts)


def _range(name: str, entry: dict, sizes: dict[str, list[int]], where: SourceLocation) -> tuple | None:
    """`range = [lo, hi]`: each bound an integer or an expression of sizes (`"v"`, `"2*v"`)."""
    if "range" not in entry:
        return None
    bounds = entry["range"]
    hint = 'range = [0, "vocab"]: the values lo <= v < hi, each bound an integer or a size expression'
    if not isinstance(bounds, list) or len(bounds) != 2 or not all(isinstance(b, (int, str)) for b in bounds):
        raise UserError(f"[args.{name}] range must be a list of two bounds", where, hint=hint)
    for b in bounds:
        if isinstance(b, str):
            if not _EXTENT.fullmatch(b):
                raise UserError(f"[args.{name}] range bound `{b}` is not a size, an integer or a product/sum of them",
                                where, hint=hint)
            for used in _NAME.findall(b):
                if used not in sizes:
                    raise UserError(f"[args.{name}] range names `{used}`, which is not in [sizes]", where,
                                    hint=f"add `{used} = [...]` to [sizes]")
    return tuple(bounds)


def _items(name: str, entry: dict, sizes: dict[str, list[int]], where: SourceLocation) -> tuple[ArgSpec, ...]:
    """`items = [{ shape = [...], dtype = "..." }, { none = true }, { value = 2 }]`: a tuple argument."""
    items = entry["items"]
    if set(entry) != {"items"} or not isinstance(items, list) or not items \
            or not all(isinstance(i, dict) for i in items):
        raise UserError(f"[args.{name}] items must be a non-empty list of tables, alone in its table", where,
                        hint='items = [{ shape = ["n"], dtype = "float32" }, { none = true }]')
    found = []
    for index, item in enumerate(items):
        unknown = set(item) - {"shape", "dtype", "value", "none"}
        if unknown:
            raise UserError(f"[args.{name}] item {index} has unknown key(s) {', '.join(sorted(unknown))}", where,
                            hint="an item has shape and dtype, or a value (value = ..., none = true)")
        fixed, value = _fixed_value(f"{name}] item [{index}", item, where)
        shape = item.get("shape")
        if fixed == (shape is not None):
            raise UserError(f"[args.{name}] item {index} needs a shape or a value, not both", where,
                            hint='{ shape = ["n"], dtype = "float32" } or { none = true }')
        if shape is not None:
            if not isinstance(shape, list) or not all(isinstance(d, (str, int)) for d in shape):
                raise UserError(f"[args.{name}] item {index}: shape must be a list of size names or integers", where)
            for d in shape:
                for used in _NAME.findall(d) if isinstance(d, str) else ():
                    if used not in sizes:
                        raise UserError(f"[args.{name}] item {index} names `{used}`, which is not in [sizes]", where,
                                        hint=f"add `{used} = [...]` to [sizes]")
        dtype = item.get("dtype")
        if dtype is not None and dtype not in DTYPES:
            raise UserError(f"[args.{name}] item {index}: dtype `{dtype}` is not one of {', '.join(DTYPES)}", where)
        found.append(ArgSpec(tuple(shape) if shape is not None else None, dtype, None, fixed, value))
    return tuple(found)


def _fixed_value(name: str, entry: dict, where: SourceLocation) -> tuple[bool, bool | int | float | str | tuple | None]:
    """`value = 1e-6` (a number, boolean or string; a list of them is passed as a tuple) or
    `none = true` (Python's None)."""
    if "construct" in entry:
        return True, _construct(name, entry, where)
    if "kwargs" in entry:
        raise UserError(f"[args.{name}] kwargs go with construct", where, hint='construct = "BlockSizes"')
    if "none" in entry:
        if entry["none"] is not True or "value" in entry:
            raise UserError(f"[args.{name}] none must be `true`, and not beside a value", where,
                            hint="none = true passes None")
        return True, None
    if "value" not in entry:
        return False, None
    value = entry["value"]
    if isinstance(value, list) and all(isinstance(v, (bool, int, float, str)) for v in value):
        return True, tuple(value)  # `block_shape = (128, 128)`: a tuple, as Python callers pass it
    if not isinstance(value, (bool, int, float, str)):
        raise UserError(f"[args.{name}] value must be a number, a boolean, a string or a list of them", where,
                        hint='value = 1e-6, value = true, value = "mean", value = [128, 128]; none = true for None')
    return True, value


def _construct(name: str, entry: dict, where: SourceLocation) -> Construct:
    """`construct = "BlockSizes"` with `kwargs = { block_q = 64 }`, or `construct =
    "BlockSizes.get_default"`: an object the entry's own module makes (a config dataclass)."""
    target, kwargs, item = entry["construct"], entry.get("kwargs", {}), entry.get("item")
    if not isinstance(target, str) or not all(part.isidentifier() for part in target.split(".")) or \
            {"value", "none"} & set(entry) or set(entry) - {"construct", "kwargs", "item"}:
        raise UserError(f"[args.{name}] construct names a class or function of the entry's module", where,
                        hint='construct = "BlockSizes" (with kwargs = { block_q = 64 }), or "BlockSizes.get_default"')
    if item is not None and (not isinstance(item, int) or isinstance(item, bool) or item < 0):
        raise UserError(f"[args.{name}] item is the index of the element of what the construct returns", where,
                        hint="item = 0 takes the first of a returned pair")

    def frozen(value: object) -> object:
        if isinstance(value, dict) and "construct" in value:  # `mask = { construct = "CausalMask", ... }`
            return _construct(name, value, where)
        if isinstance(value, dict):
            return Table(tuple(sorted((k, frozen(v)) for k, v in value.items())))
        if isinstance(value, list):
            return tuple(frozen(v) for v in value)
        if isinstance(value, (bool, int, float, str)):
            return value
        raise UserError(f"[args.{name}] kwargs holds numbers, booleans, strings, lists, tables and constructs",
                        where, hint="kwargs = { block_q = 64, shape = [128, 128] }")
    if not isinstance(kwargs, dict):
        raise UserError(f"[args.{name}] kwargs is a table", where, hint="kwargs = { block_q = 64, block_k = 64 }")
    return Construct(target, tuple(sorted((k, frozen(v)) for k, v in kwargs.items())), item, where)


# The largest size any kernel parameter holds (a signed 64-bit integer), and the most size
# combinations a sweep may hold (each is lowered, checked and run): past them a spec or a `--size`
# is rejected at its line, the limit named.
MAX_SIZE = 2**63 - 1
MAX_SWEEP = 256


def check_size_limits(name: str, values: list[int], where: SourceLocation | None, given: str = "the spec") -> None:
    """Each value of size `name` at most `MAX_SIZE`, and at most `MAX_SWEEP` of them."""
    past = [v for v in values if v > MAX_SIZE]
    if past:
        raise UserError(f"size `{name}` = {past[0]} ({given}) is past 2^63 - 1 = {MAX_SIZE}, the largest size a kernel "
                        "parameter holds", where, hint=f"sweep sizes the kernel can be called with: {name} = [1, 1000]")
    if len(values) > MAX_SWEEP:
        raise UserError(f"size `{name}` has {len(values)} values ({given}), past lowercheck's limit of {MAX_SWEEP} "
                        "per sweep", where, hint="sweep a few sizes that matter: small ones, the tile edges, a large one")


def check_sweep_limit(sizes: dict[str, list[int]], where: SourceLocation | None, given: str = "the spec") -> None:
    """The Cartesian product of the sizes at most `MAX_SWEEP` combinations."""
    count = 1
    for values in sizes.values():
        count *= len(values)
    if count > MAX_SWEEP:
        raise UserError(f"the sizes ({given}) make {count} combinations to sweep, past lowercheck's limit of "
                        f"{MAX_SWEEP}", where, hint="sweep fewer values per size: each combination is lowered, "
                                                   "checked and run")


def parse_size_option(text: str) -> tuple[str, list[int]]:
    """`--size n=1,1000,4097`."""
    name, _, values = text.partition("=")
    try:
        parsed = [int(v) for v in values.split(",") if v.strip()]
    except ValueError:
        parsed = []
    if not name.isidentifier() or not parsed or min(parsed) < 0:
        raise UserError(f"bad --size `{text}`", hint="write --size NAME=V1,V2,... with non-negative integers")
    check_size_limits(name, parsed, None, f"--size {text[:40]}")
    return name, parsed


def _toml_error_line(message: str, file: Path) -> int:
    import re

    if match := re.search(r"at line (\d+)", message):
        return int(match.group(1))
    if "end of document" in message:
        return len(file.read_text().splitlines())
    return 0


def _at(path: str, file: Path, key: str) -> SourceLocation:
    """Where the spec says `key`: its line, else the whole file (`path:1`: a key written in a way
    `line_of` does not find, such as a quoted or dotted key)."""
    return SourceLocation(path, line_of(file, key) or 1)


def line_of(file: Path, key: str) -> int:
    short = key.split(".")[-1]
    for number, line in enumerate(file.read_text().splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith(f"[{key}]") or stripped.startswith(f"{short} ") or stripped.startswith(f"{short}="):
            return number
    return 0
