"""Configuration: `[tool.lowercheck]` in the nearest `pyproject.toml`, or a `lowercheck.toml`.

```toml
[tool.lowercheck]            # in lowercheck.toml: the same keys at the top level
gpu = "h100-sxm"             # default --gpu
seed = 0                     # default --seed
timeout = 120.0              # default --timeout (seconds per side and size)
ignore = ["LC205"]           # codes dropped from the report (said in a note)
error = ["LC206"]            # codes promoted to errors (they decide the verdict)
reuse_reports = true         # reuse a stored static report while nothing it depends on changed (--no-reuse)
python = ""                  # default --python: also import what this interpreter has installed
integrity = "on"             # default --integrity: probe a solution module for reward hacks (LC7xx)
custom_kernel = "optional"   # default --custom-kernel: "required" makes a solution without a kernel an error

[[tool.lowercheck.overrides]]   # per path: for a diff whose source or target matches a pattern
paths = ["kernels/legacy/*"]
ignore = ["LC205", "LC206"]
```

Precedence, lowest first: the defaults, the file, the environment (`LOWERCHECK_SEED`,
`LOWERCHECK_TIMEOUT`, `LOWERCHECK_GPU`, `LOWERCHECK_IGNORE=LC205,LC206`, `LOWERCHECK_ERROR`,
`LOWERCHECK_REUSE_REPORTS=0`, `LOWERCHECK_CUSTOM_KERNEL=required`, ...), the
command line. The nearest file is looked for from the current
folder up to the filesystem's root: a `lowercheck.toml` wins over a `pyproject.toml` in the same
folder; a `pyproject.toml` without `[tool.lowercheck]` is passed over. An unknown key is bad input
(exit 2) naming the key and its file:line. `lowercheck config` prints every value and where it came from.
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lowercheck.errors import SourceLocation, UserError, read_user_text

DEFAULTS: dict[str, Any] = {"gpu": "h100-sxm", "seed": 0, "timeout": 120.0, "ignore": [], "error": [],
                            "reuse_reports": True, "python": "", "integrity": "on", "custom_kernel": "optional"}
_TYPES = {"gpu": str, "seed": int, "timeout": float, "ignore": list, "error": list, "reuse_reports": bool,
          "python": str, "integrity": str, "custom_kernel": str}
# String keys with a closed set of values (their command-line choices).
_CHOICES = {"integrity": ("on", "off"), "custom_kernel": ("optional", "required")}
_BOOLEANS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}
_OVERRIDE_KEYS = {"paths", "ignore", "error"}


@dataclass
class Config:
    values: dict[str, Any] = field(default_factory=lambda: dict(DEFAULTS))
    origins: dict[str, str] = field(default_factory=lambda: {k: "default" for k in DEFAULTS})
    file: Path | None = None
    overrides: list[dict[str, Any]] = field(default_factory=list)

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def codes_for(self, paths: list[str]) -> tuple[set[str], set[str]]:
        """(codes to ignore, codes to promote to errors) for a command over these files."""
        ignore, error = set(self.values["ignore"]), set(self.values["error"])
        base = self.file.parent if self.file else Path.cwd()
        for override in self.overrides:
            for path in paths:
                try:
                    shown = str(Path(path).resolve().relative_to(base.resolve()))
                except ValueError:
                    shown = str(path)
                if any(fnmatch.fnmatch(shown, pattern) or fnmatch.fnmatch(str(path), pattern)
                       for pattern in override["paths"]):
                    ignore |= set(override.get("ignore", ()))
                    error |= set(override.get("error", ()))
                    break
        return ignore, error

    def set(self, key: str, value: Any, origin: str) -> None:
        self.values[key] = value
        self.origins[key] = origin


def find(start: Path | None = None) -> tuple[Path, dict[str, Any]] | None:
    """The nearest configuration file and its lowercheck table."""
    folder = (start or Path.cwd()).resolve()
    for here in (folder, *folder.parents):
        own = here / "lowercheck.toml"
        if own.is_file():
            return own, _parse(own)
        project = here / "pyproject.toml"
        if project.is_file():
            table = _parse(project).get("tool", {}).get("lowercheck")
            if isinstance(table, dict):
                return project, table
    return None


def _parse(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(read_user_text(str(path), "a TOML file"))
    except tomllib.TOMLDecodeError as err:
        raise UserError(f"{path} is not valid TOML: {err}", SourceLocation(str(path), getattr(err, "lineno", 0) or 1)) from None


def _line(path: Path, key: str) -> int:
    lines = path.read_text(errors="replace").splitlines()
    return next((n for n, text in enumerate(lines, 1) if text.strip().startswith((f"{key} ", f"{key}="))), 1)


def _check(key: str, value: Any, where: SourceLocation) -> Any:
    kind = _TYPES[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if kind is list:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise UserError(f"`{key}` must be a list of codes", where, hint=f'{key} = ["LC205"]')
        from lowercheck.findings import CODES

        unknown = [v for v in value if v.upper() not in CODES]
        if unknown:
            raise UserError(f"unknown code {unknown[0]!r} in `{key}`", where, hint="`lowercheck codes` lists them")
        return [v.upper() for v in value]
    if kind is bool:
        if not isinstance(value, bool):
            raise UserError(f"`{key}` must be true or false", where, hint=f"{key} = false")
        return value
    if not isinstance(value, kind) or isinstance(value, bool):
        raise UserError(f"`{key}` must be {'a number' if kind is float else 'an integer' if kind is int else 'a string'}",
                        where, hint=f"{key} = {DEFAULTS[key]!r}")
    if key in _CHOICES and value not in _CHOICES[key]:
        raise UserError(f"`{key}` must be one of {', '.join(map(repr, _CHOICES[key]))}", where,
                        hint=f"{key} = {_CHOICES[key][-1]!r}")
    if key == "timeout" and value <= 0:
        raise UserError("`timeout` must be positive", where)
    if key == "gpu":
        from lowercheck.perf.targets import get_target

        try:
            get_target(value)
        except UserError as err:
            raise UserError(err.message, where, err.hint) from None
    return value


def load(start: Path | None = None, environ: dict[str, str] | None = None) -> Config:
    """The effective configuration before the command line: defaults < file < environment."""
    config = Config()
    found = find(start)
    if found is not None:
        path, table = found
        config.file = path
        for key, value in table.items():
            where = SourceLocation(str(path), _line(path, key))
            if key == "overrides":
                config.overrides = _overrides(value, path)
                continue
            if key not in DEFAULTS:
                raise UserError(f"unknown key `{key}` in {'[tool.lowercheck]' if path.name == 'pyproject.toml' else path.name}",
                                where, hint=f"keys: {', '.join(sorted([*DEFAULTS, 'overrides']))}")
            config.set(key, _check(key, value, where), str(where))
    env = os.environ if environ is None else environ
    for key in DEFAULTS:
        name = f"LOWERCHECK_{key.upper()}"
        if name in env and env[name] != "":
            raw = env[name]
            where = SourceLocation(f"${name}", 0)
            try:
                if _TYPES[key] is bool:
                    value: Any = _BOOLEANS[raw.strip().lower()]
                elif _TYPES[key] is list:
                    value = [v.strip() for v in raw.split(",") if v.strip()]
                else:
                    value = _TYPES[key](raw)
            except (KeyError, ValueError):
                raise UserError(f"${name}={raw!r} is not valid", hint=f"like {DEFAULTS[key]!r}") from None
            config.set(key, _check(key, value, where), f"environment ${name}")
    return config


def _overrides(value: Any, path: Path) -> list[dict[str, Any]]:
    where = SourceLocation(str(path), _line(path, "[[tool.lowercheck.overrides]]") if path.name == "pyproject.toml"
                           else _line(path, "[[overrides]]"))
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise UserError("`overrides` must be an array of tables", where, hint='[[tool.lowercheck.overrides]]\npaths = ["kernels/*"]')
    out = []
    for table in value:
        unknown = sorted(set(table) - _OVERRIDE_KEYS)
        if unknown:
            raise UserError(f"unknown key `{unknown[0]}` in an override", SourceLocation(str(path), _line(path, unknown[0])),
                            hint=f"keys: {', '.join(sorted(_OVERRIDE_KEYS))}")
        paths = table.get("paths")
        if not isinstance(paths, list) or not paths or not all(isinstance(p, str) for p in paths):
            raise UserError("an override needs `paths`, a list of glob patterns", where, hint='paths = ["kernels/*.py"]')
        out.append({"paths": paths, **{k: _check(k, table[k], where) for k in ("ignore", "error") if k in table}})
    return out


def apply_command_line(config: Config, **given: Any) -> Config:
    """The command line's values (those given: not None) over the configuration."""
    for key, value in given.items():
        if value is not None:
            config.set(key, value, "command line")
    return config


def render(config: Config) -> str:
    """`lowercheck config`: each value and where it came from."""
    width = max(len(k) for k in config.values)
    lines = [f"# configuration file: {config.file or 'none found (defaults)'}"]
    lines += [f"{key:<{width}} = {config.values[key]!r:<24} # {config.origins[key]}" for key in config.values]
    for override in config.overrides:
        lines.append(f"override for {override['paths']}: "
                     + ", ".join(f"{k} = {override[k]!r}" for k in ("ignore", "error") if k in override))
    return "\n".join(lines)
