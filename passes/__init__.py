"""lowercheck's xDSL passes, one per file, registered by name (`lowercheck opt FILE -p NAME`)."""

from __future__ import annotations

from xdsl.passes import ModulePass


def registry() -> dict[str, type[ModulePass]]:
    from lowercheck.passes.extract_accesses import ExtractAccessesPass

    return {cls.name: cls for cls in (ExtractAccessesPass,)}
