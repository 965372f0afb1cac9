"""Facts lowercheck infers when no spec states them: buffer extents and the size sweep.

Extents: a buffer's extent is the smallest candidate E (a size, or a product of two sizes) such that
every access of the reference side stays in [0, E) and element E - 1 is accessed, for every size
(parametric) or, when the indices are not affine in the sizes, for every size of the sweep.

Sweep: sizes that break tiling — 1, tile - 1, tile, tile + 1 for each tile size either side uses,
a prime, and a few thousand — capped so the differential run stays quick.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence

import islpy as isl
import sympy
from xdsl.dialects.builtin import ModuleOp

from lowercheck import symbolic
from lowercheck.compare.accesses import Relations, build, extent_set
from lowercheck.dialects.access import AccessOp, KernelOp
from lowercheck.dialects.kernel import EntryOp

PRIMES = (97, 4099)
MAX_SWEEP = 8


def infer_extents(module: ModuleOp, buffers: Iterable[str], size_names: Sequence[str],
                  sweep: Sequence[Mapping[str, int]]) -> dict[str, list[str]]:
    """Extents (as one-element shapes) of `buffers` from `module`'s accesses; missing: not inferable."""
    candidates = [[s] for s in size_names] + [[a, b] for a, b in itertools.combinations(size_names, 2)]
    candidates += _grid_extents(module)  # one output element per block or program (partial sums)
    try:
        relations = [build(module, None, size_names)]
    except symbolic.NonAffine:
        relations = [build(module, b, size_names) for b in sweep]
    found: dict[str, list[str]] = {}
    for buffer in buffers:
        for shape in candidates:
            if all(_fits(rel, buffer, shape) for rel in relations):
                indices = [symbolic.parse(a.op.indices.data[0].data) for a in relations[0].of(buffer)]
                found[buffer] = _row_major(shape, indices)  # over the sizes, whatever the binding
                break
    return found


def _row_major(shape: list[str], indices: list) -> list[str]:
    """Order a 2-D extent so the size that multiplies a row index (`row * n + col`) is the inner one."""
    if len(shape) != 2:
        return shape
    outer, inner = shape
    strides = {s.name for index in indices for term in sympy.Add.make_args(sympy.expand(index))
               if len(term.free_symbols) > 1 for s in term.free_symbols if s.name in shape}
    if strides == {outer}:
        outer, inner = inner, outer
    return [outer, inner]


def _grid_extents(module: ModuleOp) -> list[list[str]]:
    """The launches' grid extents that depend on the sizes, as 1-D extent candidates."""
    found: list[list[str]] = []
    for op in module.ops:
        if isinstance(op, KernelOp):
            for text in op.grid_exprs:
                if symbolic.params_of([symbolic.parse(text)]) and [text] not in found:
                    found.append([text])
    return found


def _fits(rel: Relations, buffer: str, shape: list[str]) -> bool:
    accessed = rel.union(buffer)
    if accessed is None:
        return False
    try:
        ext = extent_set(buffer, ["*".join(f"({d})" for d in shape)], rel.sizes, rel.params)  # flat
    except symbolic.NonAffine:
        return False
    elements = accessed.range()
    if not elements.is_subset(isl.UnionSet(ext)):
        return False
    last = isl.Set(_last_element_text(buffer, shape, rel))
    reached = elements.intersect(isl.UnionSet(last)).params()
    universe = isl.UnionSet(ext).params()
    return universe.is_subset(reached)


def _last_element_text(buffer: str, shape: list[str], rel: Relations) -> str:
    total = symbolic.parse("*".join(shape))
    if rel.sizes is not None:
        total = symbolic.substitute(total, rel.sizes)
    params = "[" + ", ".join(rel.params) + "]"
    return f"{params} -> {{ {buffer}[i0] : i0 = {symbolic.to_isl(total)} - 1 }}"


def tile_sizes(modules: Iterable[ModuleOp]) -> list[int]:
    """Tile widths the kernels use: CUDA block.x, Triton `make_range` extents (from LANE domains)."""
    tiles: set[int] = set()
    bound = re.compile(r"^LANE\d+ < (\d+)$")
    for module in modules:
        for op in module.walk():
            if isinstance(op, EntryOp):
                for launch in op.launches:
                    exprs = launch.block_exprs
                    if exprs and exprs[0].isdigit() and int(exprs[0]) > 1:
                        tiles.add(int(exprs[0]))
            elif isinstance(op, AccessOp):
                for text in (a.data for a in op.domain.data):
                    if (m := bound.match(text)) and int(m.group(1)) > 1:
                        tiles.add(int(m.group(1)))
    return sorted(tiles)


def default_sweep(size_names: Sequence[str], tiles: Sequence[int]) -> list[dict[str, int]]:
    """Sizes chosen to break tiling, per size name (several names: zipped, not a full product)."""
    values = {1}
    for t in tiles:
        values |= {t - 1, t, t + 1}
    values |= set(PRIMES)
    ordered = sorted(v for v in values if v >= 1)
    if len(ordered) > MAX_SWEEP:  # keep the small edge cases and the largest ones
        keep = {1, *PRIMES} | {t + 1 for t in tiles[:2]} | {t - 1 for t in tiles[:2]}
        ordered = sorted(v for v in ordered if v in keep)[:MAX_SWEEP]
    if not size_names:
        return [{}]
    if len(size_names) == 1:
        return [{size_names[0]: v} for v in ordered]
    sweep = []
    small = [v for v in ordered if v <= 1100] or ordered
    for i, v in enumerate(small):
        sweep.append({name: small[(i + k) % len(small)] for k, name in enumerate(size_names)})
    return sweep
