"""Where a timing was taken: the device, its driver and clocks, and the software that ran it.

A timing is comparable only with one taken in the same environment: a baseline recorded on other
hardware, another driver, other clocks or other library versions is one of the loopholes public
harnesses fell for. `lowercheck bench --baseline-json FILE` refuses a baseline whose recorded
environment differs from the current device's in any field, or that cannot be checked (a field
unknown on either side, or no CUDA device here at all).
"""

from __future__ import annotations

import importlib.metadata
import json
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lowercheck.errors import UserError

# The compared fields, in the order a refusal lists them.
FIELDS = ("device", "compute_capability", "sm_count", "driver", "cuda", "max_sm_mhz", "application_sm_mhz",
          "software")
SOFTWARE = ("torch", "triton")


@dataclass(frozen=True)
class Environment:
    """One device and the software around it. None: the device could not say."""

    device: str
    compute_capability: str | None
    sm_count: int | None
    driver: str | None
    cuda: str | None  # the CUDA runtime torch was built with
    max_sm_mhz: float | None
    application_sm_mhz: float | None  # the clock kernels run at unless throttled (NVML's applications clock)
    software: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in FIELDS}

    @classmethod
    def from_json(cls, data: Any) -> Environment:
        if not isinstance(data, dict) or any(name not in data for name in FIELDS):
            missing = [name for name in FIELDS if not isinstance(data, dict) or name not in data]
            raise ValueError(f"the recorded environment lacks {', '.join(missing)}")
        return cls(**{name: data[name] for name in FIELDS})


def software_versions() -> dict[str, str]:
    """Versions of Python and of the libraries that compile and launch the kernels."""
    versions = {"python": platform.python_version()}
    for name in SOFTWARE:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "absent"
    return versions


def differences(recorded: Environment, current: Environment) -> list[str]:
    """Why a timing recorded in `recorded` cannot be compared with one taken in `current`: every
    field that differs, and every field unknown on either side (it cannot be checked)."""
    out = []
    for name in FIELDS:
        was, now = getattr(recorded, name), getattr(current, name)
        if was is None or now is None:
            out.append(f"{name}: {'not recorded' if was is None else 'not readable here'}, so it cannot be checked")
        elif name == "software":
            for key in sorted(set(was) | set(now)):
                if was.get(key) != now.get(key):
                    out.append(f"{key}: recorded {was.get(key, 'absent')}, here {now.get(key, 'absent')}")
        elif was != now:
            out.append(f"{name}: recorded {was!r}, here {now!r}")
    return out


def load_baseline(path: str) -> tuple[Environment, dict[str, Any]]:
    """The environment and the timing of a `lowercheck bench --json` file ({"bench": {"environment":
    ..., "result": ...}}). A file without a recorded environment is refused (exit 2)."""
    try:
        document = json.loads(Path(path).read_text())
    except OSError as err:
        raise UserError(f"cannot read the baseline {path}: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise UserError(f"the baseline {path} is not JSON: {err}") from None
    bench = document.get("bench") if isinstance(document, dict) else None
    if not isinstance(bench, dict) or not isinstance(bench.get("result"), dict):
        raise UserError(f"refused baseline {path}: it holds no timing (no `bench.result`)",
                        hint="give a file written by `lowercheck bench --json` on a GPU")
    try:
        environment = Environment.from_json(bench.get("environment"))
    except (ValueError, TypeError) as err:
        raise UserError(f"refused baseline {path}: {err}; a timing without its device, driver, clocks and "
                        "software cannot be matched to this machine",
                        hint="time both sides here instead: `lowercheck bench` runs them in one process") from None
    return environment, bench["result"]


def check_baseline(path: str, recorded: Environment, current: Environment | None) -> None:
    """Raise UserError (exit 2) unless `current` is the environment `recorded` was timed in."""
    hint = "time both sides on this machine: `lowercheck bench` runs them in one process, alternating"
    if current is None:
        raise UserError(f"refused baseline {path}: it was timed on {recorded.device}, and this machine has no CUDA "
                        "device, so nothing here can be matched to it", hint=hint)
    found = differences(recorded, current)
    if found:
        raise UserError(f"refused baseline {path}: it was timed elsewhere ({'; '.join(found)})", hint=hint)


__all__ = ["Environment", "check_baseline", "differences", "load_baseline", "software_versions"]
