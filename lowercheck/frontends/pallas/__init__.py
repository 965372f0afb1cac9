"""The JAX Pallas front end: a Python function that calls `pl.pallas_call`, lowered to a
`kernel.entry` (params, one launch per pallas_call) plus each kernel body as a `tt.func`.

Pipeline: `source` imports the file and finds the entries (functions that call `pallas_call`);
`capture` traces the entry with `jax.make_jaxpr` at concrete shapes and names every array the
pallas_calls touch; `lanes` decides which dimensions of the kernel's values are the same lane;
`kernel` writes the body, BlockSpec windows composed with the ref indexing, as tile IR; `lowering`
assembles the module. JAX is imported inside these calls (on the CPU), never at import of this
package. The IR is described in docs/CONVENTIONS-IR.md ("Pallas kernel IR").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from lowercheck.frontends.base import Binding, EntryCandidate

LANGUAGE = "pallas"
EXTENSIONS = (".py",)


def entries(path: str) -> list[EntryCandidate]:
    """The functions of `path` that call `pallas_call`, in source order (read from the source,
    nothing is imported)."""
    from lowercheck.frontends.pallas.lowering import entries as _entries

    return _entries(path)


def lower(path: str, entry: str | None, binding: Binding) -> ModuleOp:
    """The module for `entry` under `binding`. JAX traces at concrete shapes only: a binding
    without sizes raises `NeedsConcreteSizes` (the caller then lowers once per swept size)."""
    from lowercheck.frontends.pallas.lowering import lower as _lower

    return _lower(path, entry, binding)


def migrate(path: str, entry: str, binding: Binding, sweep, platforms) -> dict:
    """What `entry`'s kernels are on each migration platform, at each size of `sweep`: block shapes,
    whether `jax.export` lowers them, and Triton's resource use for a GPU (`migration.py`)."""
    from lowercheck.frontends.pallas.migration import migrate as _migrate

    return _migrate(path, entry, binding, sweep, platforms)


def warm_up() -> None:
    """Import JAX (on the CPU) and the IR, so a worker process does it while the main process
    lowers the other side."""
    from lowercheck import ir
    from lowercheck.frontends.pallas import capture

    capture.import_jax()
    ir.context()
