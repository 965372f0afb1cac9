"""The Triton front end: a Python wrapper that launches `@triton.jit` kernels, lowered to a
`kernel.entry` (params, launches) plus the kernels' TTIR as `tt.func` (see `lowering`).

Pipeline: `source` imports the file and finds wrappers; `capture` runs the wrapper on fake tensors
and records its launches; `compile` runs Triton's compiler to TTIR and reads it into xDSL; `effects`
finds which pointers a kernel reads and writes; `lowering` assembles the module.
Heavy imports (torch, triton) happen inside these calls, never at import of this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from lowercheck.frontends.base import Binding, EntryCandidate

LANGUAGE = "triton"
EXTENSIONS = (".py",)


def entries(path: str) -> list[EntryCandidate]:
    """The wrappers in `path` (module-level functions that launch a kernel of the file)."""
    from lowercheck.frontends.triton.lowering import entries as _entries

    return _entries(path)


def lower(path: str, entry: str | None, binding: Binding) -> ModuleOp:
    """The module for `entry` under `binding`; symbolic when `binding.sizes` is None."""
    from lowercheck.frontends.triton.lowering import lower as _lower

    return _lower(path, entry, binding)


def warm_up() -> None:
    """Import what `entries` and `lower` will need (torch, Triton, the shape-only capture, the IR),
    so a worker process can do it while the main process works on the other side."""
    import triton  # noqa: F401

    from lowercheck import ir
    from lowercheck.frontends.triton import lowering, shapes  # noqa: F401

    ir.context()


def warm_up_thorough() -> None:
    """Import what the capture on torch's fake tensors needs besides: torch._dynamo, which a
    ShapeEnv and FakeTensorMode import (1.2 s), for a call the shape-only capture fell short in."""
    import torch._dynamo.source  # noqa: F401
    import torch._subclasses.fake_tensor  # noqa: F401
