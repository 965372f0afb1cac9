"""The PyTorch reference front end: a KernelBench problem (`class Model(nn.Module)` with
`get_inputs()` / `get_init_inputs()`) or a plain function on tensors, lowered to a `kernel.entry`
holding its parameters and its operator graph (`kernel.aten`, from `torch.export`), and no launch.

A reference has no schedule: it says what each output is, not who computes which element. So it
takes part in the comparison through its shapes and dtypes (which tie the other side's sizes
together), its runs (eager on the CPU, and in float64: the oracle) and its operator graph (FLOPs and
compulsory bytes for the cost model); the access-relation checks run on the kernel side alone.

Pipeline: `source` finds the entries without importing the file; `graph` imports it (in the worker
process), exports the entry with every tensor dimension dynamic, names the size symbols and writes
the module. The IR is described in docs/CONVENTIONS-IR.md ("PyTorch reference IR").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from lowercheck.frontends.base import Binding, EntryCandidate

LANGUAGE = "torch"
EXTENSIONS = (".py",)


def entries(path: str) -> list[EntryCandidate]:
    """`Model` (or `ModelNew`) when the file defines it, else its public functions; read from the
    source, nothing is imported."""
    from lowercheck.frontends.torch.source import candidates

    return candidates(path)


def lower(path: str, entry: str | None, binding: Binding) -> ModuleOp:
    """The entry's parameters (shapes in size names: the binding's, else `<param>_size<d>`), its
    returned tensors (`return0`, ...) and its operator graph."""
    from lowercheck.frontends.torch.graph import lower as _lower

    return _lower(path, entry, binding)


def warm_up() -> None:
    """Import torch and the IR, so a worker process does it while the main process works."""
    import torch.export  # noqa: F401 - the heavy import, done early

    from lowercheck import ir

    ir.context()
