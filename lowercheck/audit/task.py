"""A kernel task as `lowercheck audit` reads it: what is asked, and how the task's harness judges.

A task file (TOML) names the reference, an optional reference solution, the target hardware and
the harness the task ships with:

```toml
[task]
kind = "translation"       # generation | translation | migration | debugging | optimisation | fusion
reference = "problem.py"   # a KernelBench problem or a PyTorch function (paths relative to this file)
solution = "solution.py"   # optional: the task's own solution (diffed against the reference)
target = "h100-sxm"        # lowercheck.perf.targets names
tf32 = false               # whether the task allows TF32 products for float32 matmuls
[harness]
preset = "kernelbench"     # optional: the named harness's defaults (`presets.PRESETS`) fill the rest
timed = true               # false: the task times nothing (a preset's timing is dropped)
[harness.correctness]
atol = 1e-2                # a number, or a table per output dtype: { float32 = 1e-4, bfloat16 = 1e-2 }
rtol = 1e-2
inputs = "get_inputs"      # or per input: { x = { shape = [16, 16384], dtype = "bfloat16", distribution = "rand" } }
trials = 5
seed = "per-trial"         # per-trial | fixed | none: how the harness seeds get_inputs() per trial
seed_init = true           # the harness seeds before building each side's Model
check_dtype = true         # the output's dtype must equal the reference's
check_layout = false       # the output's strides must equal the reference's
clone_inputs = false       # each side gets its own copy of the inputs
check_inputs = false       # the inputs are compared with a saved copy after the solution ran
order = "reference-first"  # reference-first | solution-first | separate-processes
poison_freed = false       # memory freed between the two sides is overwritten before the solution runs
relative_to = "reference"  # whose magnitude rtol scales: reference | solution (torch.allclose(ref, out))
[harness.timing]           # absent: the task times nothing (the fairness of timing is not checked)
warmup = 3                 # calls before timing
reps = 100                 # timed calls
l2_flush = false           # the L2 cache is flushed before each timed call
statistic = "mean"         # mean | median | min
streams = "current"        # current: events on the current stream | device: the device synchronised
sync = true                # synchronised before the end event is read
fresh_inputs = false       # new inputs for every timed call
baseline_tf32 = false      # the baseline is timed with TF32 products on
```

A bare problem file (`problem.py`) is a task whose harness is a preset (`--harness kernelbench`).
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lowercheck.errors import SourceLocation, UserError, read_user_text
from lowercheck.spec import _toml_error_line, line_of

KINDS = ("generation", "translation", "migration", "debugging", "optimisation", "fusion")
SEEDINGS = ("per-trial", "fixed", "none")
ORDERS = ("reference-first", "solution-first", "separate-processes")
STATISTICS = ("mean", "median", "min")
STREAMS = ("current", "device")


@dataclass(frozen=True)
class Correctness:
    """How the task's checker judges a solution's outputs (torch.allclose semantics:
    `|out - ref| <= atol + rtol * |ref|`, NaN never close)."""

    atol: float | dict[str, float] = 1e-2
    rtol: float | dict[str, float] = 1e-2
    trials: int = 5
    seed: str = "per-trial"
    seed_init: bool = True
    check_dtype: bool = True
    check_layout: bool = False
    clone_inputs: bool = False
    check_inputs: bool = False
    order: str = "reference-first"
    poison_freed: bool = False
    relative_to: str = "reference"  # reference | solution: whose magnitude rtol scales (torch.allclose(ref, out): out's)
    # "get_inputs": the problem's own; or per input (in call order) a table: shape (or shapes, one per
    # trial in turn), dtype, distribution (rand | randn | uniform | normal | randint | ones | zeros)
    inputs: str | dict[str, dict[str, Any]] = "get_inputs"

    def input_list(self) -> list[dict[str, Any]] | None:
        """The inputs the task file describes, in call order (None: the problem's get_inputs)."""
        return None if isinstance(self.inputs, str) else list(self.inputs.values())

    def tolerance(self, dtype: str) -> tuple[float, float]:
        """(atol, rtol) for an output of `dtype` ("float32", "bfloat16", ...)."""
        def pick(value, name):
            if not isinstance(value, dict):
                return float(value)
            if dtype in value:
                return float(value[dtype])
            if "default" in value:
                return float(value["default"])
            raise UserError(f"the harness's {name} has no entry for {dtype} outputs",
                            hint=f"add `{dtype} = ...` (or `default = ...`) to {name}")
        return pick(self.atol, "atol"), pick(self.rtol, "rtol")


@dataclass(frozen=True)
class Timing:
    """How the task's harness times a solution against its baseline."""

    warmup: int = 3
    reps: int = 100
    l2_flush: bool = False
    statistic: str = "mean"
    streams: str = "current"
    sync: bool = True
    fresh_inputs: bool = False
    baseline_tf32: bool = False


@dataclass(frozen=True)
class Harness:
    correctness: Correctness = field(default_factory=Correctness)
    timing: Timing | None = None  # None: the task times nothing
    preset: str | None = None
    # "field -> where it came from" for the report: "task.toml:12", "preset kernelbench", "default"
    origins: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Task:
    path: Path  # the task file (or the bare problem file)
    kind: str
    reference: Path
    solution: Path | None
    target: str
    harness: Harness
    tf32: bool = False
    entry: str | None = None  # the reference's entry (Model, or a function name); None: found

    def location(self, key: str) -> SourceLocation:
        """Where `key` (a harness field such as "l2_flush", or "reference") is set: its line in the
        task file, else the line naming the preset that set it; for a bare problem file, the
        problem's `get_inputs` (what the harness runs it with)."""
        if self.path.suffix == ".toml":
            for name in (key, "preset") if key != "reference" else (key,):
                line = line_of(self.path, name)
                if line:
                    return SourceLocation(str(self.path), line)
            return SourceLocation(str(self.path), 1)
        return self.inputs_location()

    def inputs_location(self) -> SourceLocation:
        """The reference's `def get_inputs` (where its inputs and shapes are drawn), or its first line."""
        return SourceLocation(str(self.reference), _def_line(self.reference, "get_inputs") or 1)


def _def_line(path: Path, name: str) -> int:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return 0
    return next((n for n, line in enumerate(lines, 1) if line.lstrip().startswith(f"def {name}(")), 0)


def load(path: str, harness: str | None = None, target: str | None = None) -> Task:
    """The task at `path` (a .toml task file, or a .py problem file), with the preset `harness`
    filling what the file leaves out and `target` overriding the file's."""
    from lowercheck.audit import presets
    from lowercheck.perf.targets import TARGETS

    file = Path(path)
    if not file.is_file():
        raise UserError(f"task file not found: {path}", hint="pass a task .toml file or a KernelBench problem .py")
    if file.suffix != ".toml":
        if file.suffix != ".py":
            raise UserError(f"{path}: a task is a .toml file or a PyTorch problem (.py)",
                            hint="write a task file: see `lowercheck audit --help` and docs/audit.md")
        read_user_text(str(file), "Python source")
        task = Task(file.resolve(), "optimisation", file.resolve(), None, target or "h100-sxm",
                    _harness({}, harness or "kernelbench", file), entry=None)
        return task
    text = read_user_text(str(file), "a TOML task file")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        line = getattr(err, "lineno", 0) or _toml_error_line(str(err), file)
        raise UserError(f"the task file is not valid TOML: {err}", SourceLocation(str(file), line)) from None
    _known(data, {"task", "harness"}, file, "")
    section = data.get("task")
    if not isinstance(section, dict):
        raise UserError(f"{path}: no [task] section", SourceLocation(str(file), 1),
                        hint='[task]\nreference = "problem.py"')
    _known(section, {"kind", "reference", "solution", "target", "tf32", "entry"}, file, "task")
    kind = section.get("kind", "optimisation")
    if kind not in KINDS:
        raise UserError(f"unknown task kind {kind!r}", SourceLocation(str(file), line_of(file, "kind")),
                        hint=f"one of {', '.join(KINDS)}")
    reference = _file(section, "reference", file, required=True)
    solution = _file(section, "solution", file, required=False)
    chosen = target or section.get("target", "h100-sxm")
    if chosen not in TARGETS:
        raise UserError(f"unknown target {chosen!r}", SourceLocation(str(file), line_of(file, "target")),
                        hint=f"one of {', '.join(TARGETS)}")
    tf32 = section.get("tf32", False)
    if not isinstance(tf32, bool):
        raise UserError("`tf32` must be true or false", SourceLocation(str(file), line_of(file, "tf32")))
    raw = data.get("harness", {})
    if not isinstance(raw, dict):
        raise UserError("[harness] must be a table", SourceLocation(str(file), line_of(file, "harness")))
    chosen_preset = harness or raw.get("preset")
    if chosen_preset is not None and chosen_preset not in presets.PRESETS:
        raise UserError(f"unknown harness preset {chosen_preset!r}", SourceLocation(str(file), line_of(file, "preset")),
                        hint=f"one of {', '.join(presets.PRESETS)}")
    return Task(file.resolve(), kind, reference, solution, chosen, _harness(raw, chosen_preset, file), tf32,
                section.get("entry"))


def _file(section: dict, key: str, task_file: Path, required: bool) -> Path | None:
    value = section.get(key)
    if value is None:
        if required:
            raise UserError(f"the task names no {key}", SourceLocation(str(task_file), 1),
                            hint=f'{key} = "problem.py" under [task]')
        return None
    path = (task_file.parent / str(value)).resolve()
    if not path.is_file():
        raise UserError(f"the task's {key} {value!r} is not a file (looked in {task_file.parent})",
                        SourceLocation(str(task_file), line_of(task_file, key)))
    return path


def _known(table: dict, allowed: set[str], file: Path, where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        name = unknown[0]
        raise UserError(f"unknown key `{name}` in [{where or 'the task file'}]", SourceLocation(str(file), line_of(file, name)),
                        hint=f"keys there: {', '.join(sorted(allowed))}")


_CHOICES = {"seed": SEEDINGS, "order": ORDERS, "statistic": STATISTICS, "streams": STREAMS,
            "relative_to": ("reference", "solution")}


def _harness(raw: dict[str, Any], preset: str | None, file: Path) -> Harness:
    """The harness: the file's values over the preset's over the defaults, each value's origin kept."""
    from lowercheck.audit import presets

    _known(raw, {"preset", "correctness", "timing", "timed"}, file, "harness")
    base = presets.PRESETS[preset] if preset else presets.Preset("default", Correctness(), None, "")
    origins: dict[str, str] = {}
    correctness = _section(raw.get("correctness"), base.correctness, "correctness", preset, file, origins)
    timing_raw = raw.get("timing")
    timed = raw.get("timed", True)
    if not isinstance(timed, bool) or (timed is False and timing_raw is not None):
        raise UserError("`timed` must be true or false, and false goes without [harness.timing]",
                        SourceLocation(str(file), line_of(file, "timed")))
    if not timed:  # a correctness-only task (a translation judged by its checker alone)
        return Harness(correctness, None, preset, origins)
    timing_base = base.timing if base.timing is not None else (Timing() if timing_raw is not None else None)
    timing = _section(timing_raw, timing_base, "timing", preset, file, origins) if timing_base else None
    return Harness(correctness, timing, preset, origins)


_DISTRIBUTIONS = ("rand", "randn", "uniform", "normal", "randint", "ones", "zeros")
_INPUT_KEYS = {"shape", "shapes", "dtype", "distribution", "low", "high", "mean", "std"}


def _input_ok(item: Any) -> bool:
    from lowercheck.spec import DTYPES

    if not isinstance(item, dict) or set(item) - _INPUT_KEYS:
        return False
    shapes = item.get("shapes") or ([item["shape"]] if "shape" in item else [])
    return (bool(shapes) and all(isinstance(s, list) and all(isinstance(d, int) and 0 <= d < 2**40 for d in s)
                                 for s in shapes)
            and item.get("dtype", "float32") in DTYPES and item.get("distribution", "randn") in _DISTRIBUTIONS
            and all(isinstance(item[k], (int, float)) for k in ("low", "high", "mean", "std") if k in item))


def _section(raw: Any, base: Any, name: str, preset: str | None, file: Path, origins: dict[str, str]):
    raw = raw or {}
    if not isinstance(raw, dict):
        raise UserError(f"[harness.{name}] must be a table", SourceLocation(str(file), line_of(file, f"harness.{name}")))
    fields = {f.name: f for f in dataclasses.fields(base)}
    _known(raw, set(fields), file, f"harness.{name}")
    values = {}
    for key, value in raw.items():
        where = SourceLocation(str(file), line_of(file, key))
        default = getattr(base, key)
        if isinstance(default, bool):
            ok = isinstance(value, bool)
        elif key == "inputs":
            ok = value == "get_inputs" or (isinstance(value, dict) and bool(value) and all(
                _input_ok(v) for v in value.values()))
        elif key in ("atol", "rtol"):
            ok = (isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0) or (
                isinstance(value, dict) and all(isinstance(v, (int, float)) and v >= 0 for v in value.values()))
        elif isinstance(default, int):
            ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10**6
        else:
            ok = isinstance(value, str) and value in _CHOICES.get(key, (value,))
        if not ok and key == "inputs":
            raise UserError(f"harness.{name}.inputs = {value!r} is not valid", where,
                            hint='"get_inputs", or per input { shape = [16, 1000], dtype = "float32", '
                                 'distribution = "randn" } (or rand, uniform, normal, randint, ones, zeros)')
        if not ok:
            choices = _CHOICES.get(key)
            raise UserError(f"harness.{name}.{key} = {value!r} is not valid", where,
                            hint=f"one of {', '.join(choices)}" if choices else f"like the default, {default!r}")
        values[key] = value
        origins[f"{name}.{key}"] = str(where)
    for key in fields:
        origins.setdefault(f"{name}.{key}", f"preset {preset}" if preset else "default")
    if name == "correctness" and values.get("trials", base.trials if hasattr(base, "trials") else 1) < 1:
        raise UserError("harness.correctness.trials must be at least 1", SourceLocation(str(file), line_of(file, "trials")))
    return dataclasses.replace(base, **values)
