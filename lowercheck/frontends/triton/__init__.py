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
