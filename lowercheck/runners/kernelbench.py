"""KernelBench's conventions, in the child processes that run user code.

A problem file holds `class Model(nn.Module)`, `get_inputs()` and `get_init_inputs()`; a solution
file holds `class ModelNew(nn.Module)` with the same `forward` parameters. Both modules are built
as KernelBench builds them: `Module(*get_init_inputs())` of the *problem*, after the same seed
(`SEED`), in eval mode. A solution's parameters and buffers are then aligned with the reference's
(`align_state`): those of the same name and shape that the seed did not already make equal are
copied from the reference, as the CudaForge harness copies the reference's state_dict; any other
solution parameter is left as it is and named, since no rule says what it stands for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from lowercheck.runners.user_code import UserFailure, describe

SEED = 0  # torch.manual_seed before each construction (lowercheck's reference runs use the same)


def init_inputs(problem: ModuleType, path: str) -> list[Any]:
    """The problem's `get_init_inputs()`, or none."""
    init = getattr(problem, "get_init_inputs", None)
    if not callable(init):
        return []
    try:
        return list(init())
    except Exception as err:  # noqa: BLE001 - the user's get_init_inputs failed
        raise UserFailure(f"get_init_inputs() failed: {describe(err, path)}") from None


def construct(cls: Any, args: list[Any], path: str, what: str) -> Any:
    """`cls(*args)` after `torch.manual_seed(SEED)`, in eval mode."""
    import torch

    try:
        torch.manual_seed(SEED)
        module = cls(*args)
    except Exception as err:  # noqa: BLE001 - the user's constructor failed
        raise UserFailure(f"constructing {what} failed: {describe(err, path)}") from None
    return module.eval() if hasattr(module, "eval") else module


@dataclass
class Alignment:
    """How the solution's state was made the reference's: plain data, for a run's facts."""

    seeded: list[str] = field(default_factory=list)  # equal after the same seed (KernelBench's rule)
    copied: list[str] = field(default_factory=list)  # same name and shape, copied (CudaForge's rule)
    unaligned: list[str] = field(default_factory=list)  # no counterpart of that name and shape
    unused: list[str] = field(default_factory=list)  # the reference's, with no counterpart in the solution

    def to_facts(self) -> dict[str, list[str]]:
        return {"seeded": self.seeded, "copied": self.copied, "unaligned": self.unaligned, "unused": self.unused}


def align_state(solution: Any, reference: Any) -> Alignment:
    """Copy into `solution` each parameter or buffer of `reference` with its name and shape where the
    values differ; say what was done."""
    import torch

    alignment = Alignment()
    if not isinstance(solution, torch.nn.Module) or not isinstance(reference, torch.nn.Module):
        return alignment
    theirs = reference.state_dict()
    ours = solution.state_dict()
    with torch.no_grad():
        for name, value in ours.items():
            given = theirs.get(name)
            if not isinstance(value, torch.Tensor) or given is None or given.shape != value.shape:
                if isinstance(value, torch.Tensor) and value.numel() and value.is_floating_point():
                    alignment.unaligned.append(name)
                continue
            if given.dtype == value.dtype and torch.equal(given, value):
                alignment.seeded.append(name)
                continue
            value.copy_(given.to(value.dtype))
            alignment.copied.append(name)
    alignment.unused = [name for name, value in theirs.items()
                        if name not in ours and isinstance(value, torch.Tensor) and value.numel()
                        and value.is_floating_point()]
    return alignment
